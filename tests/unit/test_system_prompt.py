"""The system prompt document: Pi's layout where it is data, spans back to every source."""

from __future__ import annotations

from pi_lsp.prompt.default_text import skills_preamble
from pi_lsp.prompt.system_prompt import (
    PromptContextFile,
    PromptInputs,
    PromptSkill,
    build_system_prompt,
)
from pi_lsp.prompt.tokens import count_tokens, estimate_tokens
from pi_lsp.resources.system_files import PromptText

SKILL = PromptSkill("demo", 'Says <hi> & "bye"', "/skills/demo/SKILL.md")


def test_custom_prompt_layout_is_pis() -> None:
    doc = build_system_prompt(
        PromptInputs(
            cwd="/work/proj",
            custom_prompt=PromptText("You are X."),
            append=(PromptText("A1"), PromptText("A2\n")),
            context_files=(PromptContextFile("/work/AGENTS.md", "rule one\n"),),
            skills=(SKILL,),
        )
    )
    assert doc.text == (
        "You are X.\n\nA1\n\nA2\n"
        "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n"
        '<project_instructions path="/work/AGENTS.md">\nrule one\n\n</project_instructions>\n\n'
        "</project_context>\n"
        f"\n\n{skills_preamble('read')}\n\n"
        "<available_skills>\n  <skill>\n    <name>demo</name>\n"
        "    <description>Says &lt;hi&gt; &amp; &quot;bye&quot;</description>\n"
        "    <location>/skills/demo/SKILL.md</location>\n  </skill>\n</available_skills>"
        "\nCurrent working directory: /work/proj\n"
    )


def test_default_layout_ends_without_newline_and_has_no_date() -> None:
    doc = build_system_prompt(PromptInputs(cwd="/p"))
    assert doc.text.endswith("\nCurrent working directory: /p")
    assert "Current date" not in doc.text
    assert "- read: " in doc.text and "- ls: " not in doc.text


def test_skills_need_a_reading_tool_and_are_worded_for_it() -> None:
    no_reader = build_system_prompt(
        PromptInputs(cwd="/p", tools=("edit", "write"), skills=(SKILL,))
    )
    assert "<available_skills>" not in no_reader.text
    with_bash = build_system_prompt(PromptInputs(cwd="/p", tools=("bash",), skills=(SKILL,)))
    with_read = build_system_prompt(PromptInputs(cwd="/p", skills=(SKILL,)))
    assert "bash" in with_bash.text.split("<available_skills>")[0].rsplit("\n\n", 2)[-2]
    assert "with read" in with_read.text.split("<available_skills>")[0].rsplit("\n\n", 2)[-2]


def test_hidden_skills_are_left_out() -> None:
    hidden = PromptSkill("secret", "d", "/s/SKILL.md", visible=False)
    doc = build_system_prompt(PromptInputs(cwd="/p", skills=(hidden,)))
    assert "<available_skills>" not in doc.text


def test_bash_only_adds_the_explore_with_bash_guideline() -> None:
    bash_only = build_system_prompt(PromptInputs(cwd="/p", tools=("bash",))).text
    with_grep = build_system_prompt(PromptInputs(cwd="/p", tools=("bash", "grep"))).text
    assert "Explore files with bash" in bash_only
    assert "Explore files with bash" not in with_grep


def test_spans_tile_the_text_and_map_context_lines_to_their_file() -> None:
    content = "line 0\nline 1\nline 2"
    doc = build_system_prompt(
        PromptInputs(
            cwd="/p",
            context_files=(PromptContextFile("/p/AGENTS.md", content),),
            skills=(SKILL,),
        )
    )
    position = 0
    for span in doc.spans:
        assert span.start == position
        position = span.end
    assert position == len(doc.text)
    [file_span] = [s for s in doc.spans if s.kind == "context-file"]
    assert doc.text[file_span.start : file_span.end] == content
    assert file_span.source is not None
    assert (file_span.source.path, file_span.source.end_line) == ("/p/AGENTS.md", 2)
    data = file_span.to_json(doc.text, 0)
    prompt_lines = doc.text.split("\n")
    assert prompt_lines[data["startLine"] + 1] == "line 1"


def test_token_counts_are_real_and_the_estimate_is_pis() -> None:
    doc = build_system_prompt(PromptInputs(cwd="/p"))
    assert doc.tokens == count_tokens(doc.text) > 0
    assert doc.estimate == estimate_tokens(doc.text) == -(-len(doc.text) // 4)
    assert estimate_tokens("🙂") == 1  # two UTF-16 units
    assert sum(doc.tokens_by_kind().values()) >= doc.tokens - len(doc.spans)
