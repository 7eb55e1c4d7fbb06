"""Instruction extraction: Markdown structure, positions, polarity, choices, examples."""

from __future__ import annotations

from pi_lsp.lint.choices import Choice, contradicts, read_choices
from pi_lsp.lint.instructions import Instruction, extract_instructions


def _one(text: str) -> Instruction:
    found = extract_instructions("AGENTS.md", text)
    assert len(found) == 1, found
    return found[0]


def _picks(text: str) -> set[tuple[str, str]]:
    return {(c.value, c.stance) for c in _one(text).choices}


def test_bullets_numbered_items_and_sentences() -> None:
    text = "# Rules\n\n- Use pnpm.\n1. Run tests. Then commit.\n\nKeep it short. Be kind!\n"
    found = [i.text for i in extract_instructions("AGENTS.md", text)]
    assert found == ["Use pnpm.", "Run tests.", "Then commit.", "Keep it short.", "Be kind!"]


def test_positions_are_zero_based_code_points() -> None:
    text = "# Ünïcode\n\n- Ünïcode first. Use `pnpm` now\n  continued **here**.\n"
    first, second = extract_instructions("AGENTS.md", text)
    assert (first.where.start_line, first.where.start_column) == (2, 2)
    assert (first.where.end_line, first.where.end_column) == (2, 16)
    assert second.text == "Use `pnpm` now\ncontinued **here**."
    assert (second.where.start_line, second.where.start_column) == (2, 17)
    assert (second.where.end_line, second.where.end_column) == (3, 21)
    assert text.split("\n")[3][2:21] == "continued **here**."


def test_blockquote_positions() -> None:
    only = _one("> Use npm for this package.\n")
    assert (only.where.start_line, only.where.start_column) == (0, 2)


def test_code_html_tables_headings_and_frontmatter_are_ignored() -> None:
    text = (
        "---\ndescription: use npm\n---\n# Use yarn\n\n```bash\nnpm install\n```\n\n"
        "    npm test\n\n<!-- Use npm. -->\n\n| a | b |\n| - | - |\n| Use npm | x |\n\nUse pnpm.\n"
    )
    only = _one(text)
    assert only.text == "Use pnpm."
    assert only.where.start_line == 17


def test_examples_are_ignored() -> None:
    text = (
        "Use pnpm.\n\nFor example:\n\n- use yarn\n\n"
        "E.g. use npm here. Use a manager (e.g. yarn).\n\n## Examples\n\nUse bun.\n"
    )
    found = extract_instructions("AGENTS.md", text)
    assert [i.text for i in found] == ["Use pnpm.", "Use a manager (e.g. yarn)."]
    assert found[1].choices == ()


def test_polarity_and_action() -> None:
    never = _one("- Never run tests before committing.")
    always = _one("- Always run the tests before committing.")
    neutral = _one("- Tests run in CI.")
    assert (never.polarity, always.polarity, neutral.polarity) == ("never", "always", "neutral")
    assert never.action == always.action == "run tests before committing"
    assert _one("- Don't forget to run tests.").polarity == "neutral"


def test_normalized_form() -> None:
    only = _one("- Use **`pnpm`** for  [everything](http://x).\n")
    assert only.normalized == "use pnpm for everything"


def test_negation_and_replacement() -> None:
    assert _picks("- Use pnpm, not npm.") == {("pnpm", "prefer"), ("npm", "reject")}
    assert _picks("- Don't use npm; use pnpm.") == {("npm", "reject"), ("pnpm", "prefer")}
    assert _picks("- Prefer vitest over jest.") == {("vitest", "prefer"), ("jest", "reject")}
    assert _picks("- Use `bun install` instead of `npm install` or `yarn install`.") == {
        ("bun", "prefer"),
        ("npm", "reject"),
        ("yarn", "reject"),
    }
    assert _picks("- Avoid npm.") == {("npm", "reject")}
    assert _picks("- npm is not allowed here.") == {("npm", "reject")}
    assert _picks("- No semicolons.") == {("semicolons", "reject")}


def test_commands_and_code() -> None:
    assert _picks("- Run `uv run pytest tests/`.") == {("pytest", "prefer"), ("uv", "prefer")}
    assert _picks("- Never commit without running `pnpm test`.") == {("pnpm", "prefer")}
    assert _picks("- Never run `npm publish` by hand.") == set()
    assert _picks('- Never `import { expect } from "vitest"`.') == set()
    assert _picks("- Run `pnpm build --no-lint`.") == {("pnpm", "prefer")}


def test_descriptions_alternatives_and_scopes_make_no_choice() -> None:
    assert _picks("- `pnpm install` runs in CI.") == set()
    assert _picks("- Some packages use Vitest, others Jest.") == set()
    assert _picks("- Use npm or pnpm.") == set()
    # a version floor is a claim by its form, whatever the verb: it is read (as a floor)
    assert _picks("- Support Python 3.10 or later.") == {("Python 3.10+", "prefer")}


def test_settings_and_labels() -> None:
    assert _picks("- Line length: 120 chars maximum") == {("120 characters", "prefer")}
    assert _picks("- Keep lines under 100 characters.") == {("100 characters", "prefer")}
    assert _picks("- Indentation: 4 spaces") == {("4 spaces", "prefer")}
    assert _picks("- Response language: English") == {("English", "prefer")}
    assert _picks("- Package manager: pnpm") == {("pnpm", "prefer")}
    assert _picks("- Use black text on white.") == set()


def test_override_marks() -> None:
    text = "This package overrides the root rule: use npm.\n\n- Use jest.\n\n## Other\n\nUse x.\n"
    found = extract_instructions("AGENTS.md", text)
    assert [i.override for i in found] == [True, True, False]
    item = extract_instructions("AGENTS.md", "- Overrides the root: use npm.\n- Use jest.\n")
    assert [i.override for i in item] == [True, False]


def test_contradicts() -> None:
    pnpm = Choice("package-manager", "pnpm", "prefer", 0, 0)
    npm = Choice("package-manager", "npm", "prefer", 0, 0)
    no_npm = Choice("package-manager", "npm", "reject", 0, 0)
    assert contradicts(pnpm, npm) and contradicts(npm, no_npm)
    assert not contradicts(pnpm, no_npm)
    pytest_choice = Choice("test-runner", "pytest", "prefer", 0, 0, "python")
    vitest_choice = Choice("test-runner", "vitest", "prefer", 0, 0, "js")
    assert not contradicts(pytest_choice, vitest_choice)


def test_read_choices_offsets_index_the_clause() -> None:
    clause = "Use pnpm, not npm"
    (first, second) = read_choices(clause)
    assert clause[first.start : first.end] == "pnpm"
    assert clause[second.start : second.end] == "npm"
