"""Reading a context file chunk by chunk of top-level Markdown blocks gives exactly what
reading it as one document gives, before and after edits, and an edit reads again only the
chunk it changed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pi_lsp.lint.blocks import split_blocks
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.instructions import BlockMemo, extract_instructions
from tests.shared_data import CORPUS, REPO

#: lines an edit puts in: what makes a cut unsafe (fences, HTML blocks, lists, quotes,
#: indented code, lead-ins that skip the next block, headings that skip a section, tables)
SNIPPETS = (
    "```",
    "~~~~",
    "```python",
    "<!--",
    "-->",
    "<pre>",
    "</pre>",
    "# Examples",
    "## Setup",
    "For example:",
    "",
    "    indented",
    "- item",
    "  - nested",
    "1. first",
    "2) second",
    "-",
    "> quote",
    "---",
    "| a | b |",
    "|---|---|",
    "- Use pnpm.",
    "Never use npm.",
    "Use yarn; never npm.",
    "This overrides the root rule: use npm.",
    "<div>",
    "  ```sh",
    "- Example:",
    "lazy line after an item",
    "\t- tabbed item",
    "   <!--",
    "  <details>",
    "* * *",
)


def _texts(root: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted(root.rglob("*.md")):
        if "lint_heldout/test" in path.as_posix():
            continue  # the frozen set is never read
        try:
            found.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def _agree_under_edits(texts: list[tuple[str, str]], seed: int, edits: int = 5) -> None:
    rng = random.Random(seed)
    memo = BlockMemo(100_000)
    for path, text in texts:
        lines = text.split("\n")
        for step in range(edits + 1):
            current = "\n".join(lines)
            whole = extract_instructions(path, current, whole=True)
            fresh = extract_instructions(path, current)
            remembered = extract_instructions(path, current, memo=memo)
            assert fresh == whole, f"{path} after {step} edits (no memo)"
            assert remembered == whole, f"{path} after {step} edits (memo)"
            at = rng.randrange(len(lines) + 1)
            kind = rng.randrange(3)
            if kind == 0 or at == len(lines):
                lines.insert(at, rng.choice(SNIPPETS))
            elif kind == 1:
                del lines[at]
            else:
                lines[at] += " " + rng.choice(SNIPPETS)


@pytest.mark.timeout(480)  # the dev set grows with every blind set that joins it
def test_chunks_read_as_the_whole_file_on_the_lint_cases_and_dev_set() -> None:
    texts = _texts(REPO / "tests" / "lint_cases") + _texts(REPO / "tests" / "lint_heldout" / "dev")
    assert len(texts) > 100
    _agree_under_edits(texts, seed=15)


@pytest.mark.shared
@pytest.mark.timeout(480)  # reads the whole corpus three times: ~40 s alone, more under load
def test_chunks_read_as_the_whole_file_on_the_corpus() -> None:
    texts = _texts(CORPUS / "repos")
    assert len(texts) > 100
    _agree_under_edits(texts, seed=16, edits=2)


TRICKY = {
    "fence with blank lines and headings inside": (
        "# Rules\n\n- Use pnpm.\n\n```\n# not a heading\n\nUse npm.\n\nNever use pnpm.\n```\n\n"
        "Use yarn.\n"
    ),
    "unclosed fence": "- Use pnpm.\n\n```sh\nnpm install\n\nUse npm.\n\n## Not a heading\n",
    "fence in a list item, ended by the list": (
        "- Use pnpm:\n\n  ```\n  npm i\n\nUse npm.\n\n```\n\nnot code\n\n```\n\nUse yarn.\n"
    ),
    "fence in a quote": "> ```\n> code\n\nUse npm.\n\n```\nx\n\ny\n```\n\nUse yarn.\n",
    "HTML comment over blank lines": "<!--\nUse npm.\n\nNever use pnpm.\n-->\n\nUse yarn.\n",
    "pre block": "<pre>\nUse npm.\n\nUse pnpm.\n</pre>\n\nUse yarn.\n",
    "loose list after an example lead-in": (
        "For example:\n\n- Use npm.\n\n- Use pnpm.\n\n- Use yarn.\n\nUse bun.\n"
    ),
    "list items with blank lines and lazy lines": (
        "- Use npm\nlazily continued.\n\n- Use pnpm.\n\n  Still the item.\n\n-\n\n- Use yarn.\n"
    ),
    "indented list after a list": " - Use npm.\n\n- Use pnpm.\n\n1. Use yarn.\n\n2) Use bun.\n",
    "example section": "# Examples\n\nUse npm.\n\n## Sub\n\nUse pnpm.\n\n# Rules\n\nUse yarn.\n",
    "override section": "# Overrides the root\n\nUse npm.\n\n# Rules\n\nUse yarn.\n",
    "table": "| tool | use |\n|---|---|\n| npm | yes |\n\nUse pnpm.\n",
    "setext heading": "Examples\n========\n\nUse npm.\n\nRules\n-----\n\nUse pnpm.\n",
    "frontmatter": "---\ntitle: x\n---\n\nUse npm.\n\n---\n\nUse pnpm.\n",
    "CRLF": "# Rules\r\n\r\n- Use npm.\r\n\r\n-\r\n\r\n- Use pnpm.\r\n\r\nUse yarn.\r\n",
    "lone CR": "# Rules\r- Use npm.\r\rUse pnpm.\n\nUse yarn.\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_chunks_read_as_the_whole_file_where_a_cut_would_be_wrong(name: str) -> None:
    text = TRICKY[name]
    whole = extract_instructions("AGENTS.md", text, whole=True)
    assert extract_instructions("AGENTS.md", text) == whole
    # the same blocks, many times over: cuts are made between them somewhere
    long = "\n\n".join([text] * 40)
    assert extract_instructions("AGENTS.md", long) == extract_instructions(
        "AGENTS.md", long, whole=True
    )


def _items(count: int, word: str = "Rule") -> list[str]:
    tools = ("pnpm", "npm", "yarn", "bun")
    return [f"- {word} {k}: use {tools[k % 4]} for the {k}th script." for k in range(count)]


#: long lists without blank lines, with what may make a cut between two items wrong
TIGHT_LISTS = {
    "plain": _items(60),
    "ordered": [f"{k}. Use {('npm', 'pnpm')[k % 2]} in step {k}." for k in range(1, 61)],
    "after an example lead-in": ["For example:", "", *_items(60)],
    "an example lead-in as an item": [*_items(30), "- Example:", *_items(30, "Item")],
    "nested items and continuations": [
        line
        for k, item in enumerate(_items(40))
        for line in (item, f"  - nested {k}: never use npm.", "  still the item, use pnpm.")
    ],
    "a fence inside items": [
        line
        for k, item in enumerate(_items(40))
        for line in (
            (item, "  ```sh", "  npm ci", "- not an item", "  ```") if k % 7 == 3 else (item,)
        )
    ],
    "an HTML block after an item": [*_items(20), "<div>", *_items(20, "Html"), "", *_items(20)],
    "lazy lines": [line for item in _items(40) for line in (item, "lazily: use yarn.")],
    "too little indent": [
        line for item in _items(40) for line in (item, " one space: use bun.", "1. Ordered")
    ],
    "thematic breaks": [line for item in _items(40) for line in (item, "- - -", "***")],
    "tabs": [line for item in _items(40) for line in (item, "\tTabbed: use npm.", "-\tTab marker")],
    "quotes": [line for item in _items(40) for line in (item, "> quoted: use npm.")],
    "headings": [line for k, item in enumerate(_items(40)) for line in (item, f"# Examples {k}")],
    "CRLF": [item + "\r" for item in _items(60)],
    # an ordered item not numbered 1 after a bullet item is a lazy line of its paragraph
    "mixed markers": [
        line
        for k, item in enumerate(_items(40))
        for line in ((item, "- Example:", f"{k + 2}. Use npm.") if k % 5 == 2 else (item,))
    ],
    "ordered delimiters": [f"{k}{'.)'[k // 10 % 2]} Use pnpm in step {k}." for k in range(1, 61)],
}


@pytest.mark.parametrize("name", sorted(TIGHT_LISTS))
def test_a_list_cut_between_its_items_reads_as_the_whole_list(name: str) -> None:
    text = "# Rules\n\n" + "\n".join(TIGHT_LISTS[name]) + "\n\nUse bun.\n"
    whole = extract_instructions("AGENTS.md", text, whole=True)
    assert extract_instructions("AGENTS.md", text) == whole
    memo = BlockMemo(10_000)
    extract_instructions("AGENTS.md", text, memo=memo)
    lines = text.split("\n")
    rng = random.Random(name)
    for _ in range(20):
        at = rng.randrange(2, len(lines) - 2)
        lines.insert(at, rng.choice(SNIPPETS))
        edited = "\n".join(lines)
        assert extract_instructions("AGENTS.md", edited, memo=memo) == extract_instructions(
            "AGENTS.md", edited, whole=True
        ), f"{name}: after inserting at line {at}"


def test_a_long_list_without_blank_lines_is_cut_between_its_items() -> None:
    text = "# Rules\n\n" + "\n".join(_items(60)) + "\n"
    chunks = split_blocks(text)
    assert len(chunks) > 5
    assert all(chunk.text.startswith(("# Rules", "- Rule")) for chunk in chunks)
    # an HTML block, a lazy line or a heading between the items leaves the rest uncut
    for hazard in ("<div>", "lazy line", "## Heading"):
        lines = text.split("\n")
        lines.insert(4, hazard)
        assert len(split_blocks("\n".join(lines))) <= 2, hazard


def _sections(count: int) -> list[str]:
    lines = []
    for k in range(count):
        lines += [f"## Section {k}", "", f"Paragraph {k} says to keep things tidy.", ""]
        lines += [f"- Rule {k}.{j}: run the checks before you push." for j in range(3)]
        lines.append("")
    return lines


def test_an_edit_reads_again_only_the_chunk_it_changed() -> None:
    lines = _sections(200)
    memo = BlockMemo(10_000)
    text = "\n".join(lines)
    first = extract_instructions("AGENTS.md", text, memo=memo)
    chunks = len(split_blocks(text))
    assert memo.misses == chunks > 50
    # change one rule in the middle (not a line after a blank one, so no cut moves)
    at = lines.index("- Rule 100.1: run the checks before you push.")
    lines[at] = "- Rule 100.1: use pnpm, never npm."
    edited = "\n".join(lines)
    second = extract_instructions("AGENTS.md", edited, memo=memo)
    assert memo.misses == chunks + 1
    assert second == extract_instructions("AGENTS.md", edited, whole=True)
    assert [i.text for i in second if i not in first] == ["Rule 100.1: use pnpm, never npm."]
    # a line added moves every later instruction down; only its chunk is read (two, when
    # the new item is a place where a list is cut: it starts a chunk of its own)
    lines.insert(at, "- Rule 100.0b: keep it short.")
    grown = "\n".join(lines)
    third = extract_instructions("AGENTS.md", grown, memo=memo)
    starts = {chunk.first_line for chunk in split_blocks(grown)}
    assert memo.misses == chunks + 1 + (2 if at in starts else 1)
    assert third == extract_instructions("AGENTS.md", grown, whole=True)
    # back to a text read before: nothing is read
    read = memo.misses
    extract_instructions("AGENTS.md", text, memo=memo)
    assert memo.misses == read


def test_a_chunk_read_again_reads_again_only_the_sentences_it_changed() -> None:
    # one long paragraph is one chunk: an edit of one of its sentences reads that chunk
    # again, but its other sentences keep their readings
    sentences = [f"Step {k}: run the checks before you push, then tidy up." for k in range(40)]
    text = "# Rules\n\n" + " ".join(sentences) + "\n"
    memo = BlockMemo(10_000)
    first = extract_instructions("AGENTS.md", text, memo=memo)
    read = memo.sentences.misses
    assert read >= 40
    edited = text.replace("Step 20: run the checks", "Step 20: use pnpm, never npm, and run")
    second = extract_instructions("AGENTS.md", edited, memo=memo)
    assert memo.sentences.misses == read + 1
    assert second == extract_instructions("AGENTS.md", edited, whole=True)
    assert len(second) == len(first)
    # the same sentence under another heading, or in another file, is read on its own
    moved = edited.replace("# Rules", "# Python")
    assert extract_instructions("AGENTS.md", moved, memo=memo) == extract_instructions(
        "AGENTS.md", moved, whole=True
    )
    assert memo.sentences.misses == read + 1 + len(second)
    other = extract_instructions("docs/AGENTS.md", edited, memo=memo)
    assert {i.path for i in other} == {"docs/AGENTS.md"}
    assert memo.sentences.misses == read + 1 + 2 * len(second)


def test_a_kept_sentence_takes_the_override_of_its_new_place() -> None:
    # the reading is kept, the override declared by a sentence before it is not
    memo = BlockMemo(10_000)
    plain = "# Rules\n\n- Use npm for scripts. Keep it short.\n"
    overriding = "# Rules\n\n- This overrides the root rule. Use npm for scripts. Keep it short.\n"
    for text in (plain, overriding, plain):
        got = extract_instructions("AGENTS.md", text, memo=memo)
        assert got == extract_instructions("AGENTS.md", text, whole=True)
    assert [i.override for i in extract_instructions("AGENTS.md", overriding, memo=memo)] == [
        True,
        True,
        True,
    ]
    assert not any(i.override for i in extract_instructions("AGENTS.md", plain, memo=memo))


def test_an_edit_of_a_large_file_moves_its_findings_with_it() -> None:
    lines = _sections(150)
    root = ("/w/AGENTS.md", "- Use pnpm to install packages.\n")
    chain = [root, ("/w/pkg/AGENTS.md", "\n".join(lines))]
    assert [f for f in find_conflicts(chain) if f.rule == "conflicting-instructions"] == []
    at = lines.index("- Rule 90.2: run the checks before you push.")
    lines[at] = "- Use npm to install packages."
    chain[1] = ("/w/pkg/AGENTS.md", "\n".join(lines))
    (found,) = [f for f in find_conflicts(chain) if f.rule == "conflicting-instructions"]
    assert found.where.start_line == at
    lines[at:at] = ["", "Some words.", ""]
    chain[1] = ("/w/pkg/AGENTS.md", "\n".join(lines))
    (moved,) = [f for f in find_conflicts(chain) if f.rule == "conflicting-instructions"]
    assert moved.where.start_line == at + 3
    del lines[at + 3]
    chain[1] = ("/w/pkg/AGENTS.md", "\n".join(lines))
    assert [f for f in find_conflicts(chain) if f.rule == "conflicting-instructions"] == []


def test_the_readings_kept_by_content_are_bounded_by_their_characters() -> None:
    from pi_lsp.lint.conflicts import _ReadInstructions

    kept = _ReadInstructions(size=100, blocks=1_000, characters=3_000)
    texts = [
        f"# Rules {k}\n\n- Use pnpm, never npm ({k}).\n" + "Keep it short.\n" * 40
        for k in range(10)
    ]
    for k, text in enumerate(texts):
        assert kept.get(f"/w/{k}/AGENTS.md", text, None) is not None
        assert kept.held <= 3_000
    assert kept.held == sum(len(t) for t in texts[-len(kept._read) :])
    # the latest reading is kept even when it alone is over the limit
    huge = "- Use pnpm.\n" * 1_000
    first = kept.get("/w/AGENTS.md", huge, None)
    assert kept.held == len(huge)
    assert kept.get("/w/AGENTS.md", huge, None) is first
