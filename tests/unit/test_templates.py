"""Prompt templates and ``/skill:`` commands (spec §6.6, §7)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.resources.skills import Skill, SkillRoot, load_skills
from pi_lsp.resources.templates import (
    PromptTemplate,
    TemplateRoot,
    expand_prompt_template,
    expand_skill_command,
    load_prompt_templates,
    parse_command_args,
    parse_skill_block,
    substitute_args,
)
from tests.unit.helpers import write

# --- parseCommandArgs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b c", ["a", "b", "c"]),
        ('"first arg" second', ["first arg", "second"]),
        ("a  b   c", ["a", "b", "c"]),
        ('"" " "', [" "]),
        ('"line1\nline2" second', ["line1\nline2", "second"]),
        (
            "label-2\n\nHere is some description #2.",
            ["label-2", "Here", "is", "some", "description", "#2."],
        ),
        ('"quoted \\"text\\""', ["quoted \\text\\"]),
        ("it's 'a b'", ["its a", "b"]),
        ("tab\tsep\u3000ideographic\ufeffbom", ["tab", "sep", "ideographic", "bom"]),
        ("keep\x1cthis", ["keep\x1cthis"]),
        ("", []),
    ],
)
def test_parse_command_args(text: str, expected: list[str]) -> None:
    assert parse_command_args(text) == expected


# --- substituteArgs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "args", "expected"),
    [
        ("$1 $2 $3 $4 $5", ["a", "b"], "a b   "),
        ("$10 $12 $15", [f"val{i}" for i in range(15)], "val9 val11 val14"),
        ("$ARGUMENTS", ["a", "", "c"], "a  c"),
        ("$@", ["$100", "$1"], "$100 $1"),
        ("${1:-brief}", [""], "brief"),
        ("${1:-brief}", [], "brief"),
        ("${1:-brief}", ["full"], "full"),
        ("${3:-$ARGUMENTS}", ["a", "b"], "$ARGUMENTS"),
        ("${@:2:2}", ["a", "b", "c", "d"], "b c"),
        ("prefix${@:2}suffix", ["a", "b", "c"], "prefixb csuffix"),
        ("Price: \\$100", [], "Price: \\"),
        ("${@:-none}", [], "none"),
        ("${ARGUMENTS:-none}", ["x", "y"], "x y"),
        ("${@:0}", ["a", "b"], "a b"),
        ("${@:5}", ["a", "b"], ""),
        ("${@:2:0}", ["a", "b"], ""),
        ("$0 ${0:-zero}", ["a"], " zero"),
        ("${2:-multi\nline}", ["a"], "multi\nline"),
        ("$99999999999999999999999 ${@:99999999999999999999:1}", ["a"], " "),
        ("${@:1:99999999999999999999}", ["a", "b"], "a b"),
        ("$ARGUMENTSX $@@", ["a"], "aX a@"),
        ("$x ${x} ${1} $", ["a"], "$x ${x} ${1} $"),
        ("$١", ["a"], "$١"),
        # a default runs to the first "}", wherever that is; an opener never closed is text
        ("${1:-a ${2:-b} c}", [], "a ${2:-b c}"),
        ("${1:-never closed $1 $@", ["x", "y"], "${1:-never closed x x y"),
        ("${1:-x} ${2:-${1:-", ["a"], "a ${2:-${1:-"),
    ],
)
def test_substitute_args(content: str, args: list[str], expected: str) -> None:
    assert substitute_args(content, args) == expected


def test_substitution_is_a_single_pass() -> None:
    assert substitute_args("$1 then $2", ["$2", "${1:-x}"]) == "$2 then ${1:-x}"
    # a default is inserted literally, even when it looks like a placeholder
    assert substitute_args("${1:-$2}", ["", "b"]) == "$2"


def test_the_observed_review_template() -> None:
    content = "Review $1 focusing on ${2:-everything}.\nAll args: $@\nFrom 2: ${@:2}"
    args = parse_command_args('src/a.ts "error handling" extra')
    assert substitute_args(content, args) == (
        "Review src/a.ts focusing on error handling.\n"
        "All args: src/a.ts error handling extra\n"
        "From 2: error handling extra"
    )
    assert substitute_args(content, ["src/a.ts"]) == (
        "Review src/a.ts focusing on everything.\nAll args: src/a.ts\nFrom 2: "
    )


# --- expandPromptTemplate ------------------------------------------------------------------------


def template(name: str, content: str) -> PromptTemplate:
    return PromptTemplate(name, "", content, f"/t/{name}.md", None, "user", "auto", "top-level")


def test_expand_prompt_template() -> None:
    templates = [template("greet", "Hello $1 ($@)"), template("greet", "second copy")]
    assert expand_prompt_template("/greet World  and more", templates) == (
        "Hello World (World and more)"
    )
    assert expand_prompt_template("/greet", templates) == "Hello  ()"
    assert expand_prompt_template("/greet\nacross\nlines", templates) == (
        "Hello across (across lines)"
    )
    assert expand_prompt_template("/unknown x", templates) == "/unknown x"
    assert expand_prompt_template("greet x", templates) == "greet x"
    assert expand_prompt_template("/ greet", templates) == "/ greet"
    assert expand_prompt_template("", templates) == ""


# --- loading (spec §7.1) -------------------------------------------------------------------------


def test_load_templates_from_a_prompts_folder(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    write(
        prompts / "review.md",
        '---\ndescription: Review a file\nargument-hint: "<file>"\n---\nReview $1\n\n',
    )
    write(prompts / "plain.md", "\n\n   First line is the description\nsecond\n")
    write(prompts / "long.md", "x" * 59 + "😀" + "tail")
    write(prompts / "exact.md", "y" * 60)
    write(prompts / "emptybody.md", "---\ndescription: ''\n---\n")
    write(prompts / "numeric.md", "---\ndescription: 42\nargument-hint: 0\n---\nbody")
    write(prompts / ".hidden.md", "hidden")
    write(prompts / "ignored.md", "ignored")
    write(prompts / ".gitignore", "IGNORED.md\n")
    write(prompts / "notes.txt", "not a template")
    write(prompts / "sub" / "nested.md", "not recursive")
    write(prompts / "node_modules" / "x.md", "dependency")
    result = load_prompt_templates([TemplateRoot(str(prompts), "auto", "user")])
    by_name = {t.name: t for t in result.templates}
    assert list(by_name) == ["emptybody", "exact", "long", "numeric", "plain", "review"]
    review = by_name["review"]
    assert (review.description, review.argument_hint, review.content) == (
        "Review a file",
        "<file>",
        "Review $1",
    )
    assert review.description_range is not None and review.description_range.start_line == 1
    assert review.content_line == 4
    assert review.scope == "user" and review.file_path == str(prompts / "review.md")
    plain = by_name["plain"]
    assert plain.description == "   First line is the description"
    assert plain.content == "\n\n   First line is the description\nsecond\n"  # no block: untrimmed
    # 60 UTF-16 units: the emoji would be split, so it is left out
    assert by_name["long"].description == "x" * 59 + "..."
    assert by_name["exact"].description == "y" * 60
    assert by_name["emptybody"].description == ""
    assert (by_name["numeric"].description, by_name["numeric"].argument_hint) == ("42", None)
    assert result.findings == ()


def test_explicit_folder_takes_every_markdown_file(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    write(folder / ".hidden.md", "dot file")
    write(folder / "a.md", "a")
    write(folder / ".gitignore", "a.md\n")
    result = load_prompt_templates([TemplateRoot(str(folder), "explicit", "temporary")])
    assert [t.name for t in result.templates] == [".hidden", "a"]


def test_collisions_missing_paths_and_bad_files(tmp_path: Path) -> None:
    user = tmp_path / "user"
    project = tmp_path / "project"
    write(project / "commit.md", "project commit")
    write(user / "commit.md", "user commit")
    write(user / "broken.md", "---\ndescription: [oops\n---\nbody")
    write(tmp_path / "single.md", "single file")
    write(tmp_path / "single.txt", "not markdown")
    (tmp_path / "link.md").symlink_to(project / "commit.md")
    result = load_prompt_templates(
        [
            TemplateRoot(str(project), "auto", "project"),
            TemplateRoot(str(user), "auto", "user"),
            TemplateRoot(str(tmp_path / "single.md"), "explicit", "temporary"),
            TemplateRoot(str(tmp_path / "single.txt"), "explicit", "temporary"),
            TemplateRoot(str(tmp_path / "link.md"), "explicit", "temporary"),
            TemplateRoot(str(tmp_path / "gone"), "explicit", "temporary"),
        ]
    )
    assert [(t.name, t.content) for t in result.templates] == [
        ("commit", "project commit"),
        ("single", "single file"),
    ]
    assert [f.rule for f in result.findings] == [
        "template-invalid-frontmatter",
        "template-path-not-markdown",
        "template-path-missing",
        "template-name-collision",
    ]
    assert result.pi_diagnostics() == [
        {
            "type": "error",
            "message": "Prompt template path does not exist",
            "path": str(tmp_path / "gone"),
        },
        {
            "type": "collision",
            "message": 'name "/commit" collision',
            "path": str(user / "commit.md"),
            "collision": {
                "resourceType": "prompt",
                "name": "commit",
                "winnerPath": str(project / "commit.md"),
                "loserPath": str(user / "commit.md"),
            },
        },
    ]
    assert result.findings[0].where.start_line == 1


# --- /skill: commands (spec §6.6) ----------------------------------------------------------------


@pytest.fixture
def skills(tmp_path: Path) -> list[Skill]:
    root = tmp_path / "skills"
    write(
        root / "alpha" / "SKILL.md",
        "---\nname: alpha\ndescription: Alpha.\ndisable-model-invocation: true\n---\n\n"
        "Alpha instructions line 1.\nSee ./ref.md\n\n",
    )
    write(root / "plain" / "SKILL.md", "---\ndescription: Plain.\n---\nPlain body")
    return list(load_skills([SkillRoot(str(root), "pi")]).skills)


def test_skill_command_block(skills: list[Skill]) -> None:
    alpha = skills[0]
    expansion = expand_skill_command("/skill:alpha   do it now  ", skills)
    assert expansion.skill is alpha and expansion.error is None
    assert expansion.text == (
        f'<skill name="alpha" location="{alpha.file_path}">\n'
        f"References are relative to {alpha.base_dir}.\n\n"
        "Alpha instructions line 1.\nSee ./ref.md\n</skill>\n\ndo it now"
    )
    bare = expand_skill_command("/skill:plain", skills)
    assert bare.text.endswith("\n\nPlain body\n</skill>")
    block = parse_skill_block(expansion.text)
    assert block is not None
    assert (block.name, block.location, block.args) == ("alpha", alpha.file_path, "do it now")
    assert block.content.endswith("See ./ref.md")
    plain_block = parse_skill_block(bare.text)
    assert plain_block is not None and plain_block.args is None


def test_skill_command_leaves_other_text_alone(skills: list[Skill]) -> None:
    for text in ("/skill:missing go", "skill:alpha", "/skills:alpha", "/skill:alpha\tgo", "hi"):
        expansion = expand_skill_command(text, skills)
        assert (expansion.text, expansion.skill, expansion.error) == (text, None, None)
    assert parse_skill_block("plain text") is None


def test_skill_command_read_failure_keeps_the_text(skills: list[Skill]) -> None:
    os.unlink(skills[1].file_path)
    expansion = expand_skill_command("/skill:plain now", skills)
    assert expansion.text == "/skill:plain now"
    assert expansion.error == f"ENOENT: no such file or directory, open '{skills[1].file_path}'"
    write(Path(skills[1].file_path), "---\na: [\n---\n")
    broken = expand_skill_command("/skill:plain now", skills)
    assert broken.text == "/skill:plain now" and broken.error and "at line" in broken.error
