"""Scopes of instructions, which pairs tier 1 compares, and acknowledged overrides."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import (
    ACKNOWLEDGED_OVERRIDE,
    CONFLICT,
    CONFLICT_IN_FILE,
    find_conflicts,
    scoped_pairs,
)
from pi_lsp.lint.instructions import extract_instructions
from pi_lsp.lint.scopes import Scope, declined_reason, scopes_overlap, share_scope

ROOT = "/repo/AGENTS.md"
PKG = "/repo/pkg/AGENTS.md"


def _scope(text: str, path: str = ROOT) -> Scope:
    [instruction] = [i for i in extract_instructions(path, text) if i.choices]
    return instruction.scope


def _rules(chain: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(f.rule, f.severity) for f in find_conflicts(chain)]


# --- overlap --------------------------------------------------------------------------------


def test_languages_overlap_when_shared_or_unstated() -> None:
    python = Scope(languages=frozenset({"python"}))
    typescript = Scope(languages=frozenset({"typescript"}))
    assert not scopes_overlap(python, typescript)
    assert declined_reason(python, typescript) == "languages"
    assert scopes_overlap(python, Scope())
    assert scopes_overlap(Scope(languages=frozenset({"python", "go"})), python)


def test_conditions_overlap_only_when_the_same() -> None:
    docs, ci = Scope(condition="for docs site"), Scope(condition="in ci")
    assert declined_reason(docs, Scope()) == "conditional"
    assert declined_reason(Scope(), docs) == "conditional"
    assert declined_reason(docs, ci) == "conditions"
    assert scopes_overlap(docs, Scope(condition="for docs site"))


def test_folders_of_one_chain_always_overlap() -> None:
    assert scopes_overlap(Scope(folder="/repo"), Scope(folder="/home/u/.pi/agent"))
    assert scopes_overlap(Scope(folder="/repo/a"), Scope(folder="/repo/b"))


def test_a_plain_text_scope_folds_in() -> None:
    assert Scope().with_hint("Python").languages == {"python"}
    assert Scope().with_hint("`*.tsx`").languages == {"typescript"}
    assert Scope().with_hint("the docs site").condition == "docs site"
    assert Scope(condition="x").with_hint("  ").condition == "x"


# --- reading a scope --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "languages"),
    [
        ("## Python\n\n- Use 4 spaces for indentation.\n", {"python"}),
        ("## Style\n\n### TypeScript\n\n- Use 2 spaces for indentation.\n", {"typescript"}),
        ("- In TypeScript files, use 2 spaces for indentation.\n", {"typescript"}),
        ("- Use 2 spaces for indentation in `*.tsx` files.\n", {"typescript"}),
        ("- Go code uses tabs; indent with tabs.\n", {"go"}),
        ("## Before you go\n\n- Use 2 spaces for indentation.\n", set()),
        ("- Use 2 spaces for indentation.\n", set()),
    ],
)
def test_languages_come_from_the_heading_or_the_sentence(text: str, languages: set[str]) -> None:
    assert _scope(text).languages == languages


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("- For the docs site, use npm.\n", "for docs site"),
        ("- When running in CI, use npm.\n", "when running in ci"),
        ("- If the lockfile is missing, use npm.\n", "if lockfile is missing"),
        ("- For hotfixes, use npm.\n", "for hotfixes"),
        ("- In this package, use npm.\n", ""),
        ("- In general, use npm.\n", ""),
        ("- When in doubt, use npm.\n", ""),
        ("- Unless told otherwise, use npm.\n", ""),
        ("- For now, use npm.\n", ""),
        ("- Use npm.\n", ""),
        ("- Use npm in CI.\n", "in ci"),
        ("- Use npm for hotfixes.\n", "for hotfixes"),
        ("- Use npm when installing packages.\n", ""),
        # CI where a rule is enforced is no condition of it
        ("- Use npm; the lockfile is checked by `tools/lock.py` in CI.\n", ""),
        ("- Use npm, enforced in CI.\n", ""),
    ],
)
def test_a_scoped_clause_keeps_its_choice_with_its_condition(text: str, condition: str) -> None:
    [instruction] = extract_instructions(ROOT, text)
    assert [(c.value, c.stance) for c in instruction.choices] == [("npm", "prefer")]
    assert instruction.scope.condition == condition
    assert instruction.scope.folder == "/repo"


# --- which pairs are compared --------------------------------------------------------------


def test_sections_of_different_languages_do_not_conflict() -> None:
    text = (
        "## Python\n\n- Use 4 spaces for indentation.\n\n"
        "## TypeScript\n\n- Use 2 spaces for indentation.\n"
    )
    assert find_conflicts([(ROOT, text)]) == []
    # the same two rules without their headings do
    plain = "- Use 4 spaces for indentation.\n- Use 2 spaces for indentation.\n"
    assert _rules([(ROOT, plain)]) == [(CONFLICT_IN_FILE, "warning")]


def test_a_language_section_still_conflicts_with_an_unscoped_rule() -> None:
    chain = [
        (ROOT, "- Use 4 spaces for indentation.\n"),
        (PKG, "## Python\n\n- Indent with tabs.\n"),
    ]
    assert _rules(chain) == [(CONFLICT, "warning")]


def test_a_conditional_rule_is_declined_and_offered_to_the_judge() -> None:
    chain = [(ROOT, "- Use pnpm.\n"), (PKG, "- For the docs site, use npm.\n")]
    assert find_conflicts(chain) == []
    [pair] = scoped_pairs(chain)
    assert (pair.later.path, pair.earlier.path) == (PKG, ROOT)
    assert (pair.dimension, pair.reason) == ("package-manager", "conditional")


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        ("- Do not use npm, except for the docs site.\n", "- For the docs site, use npm.\n"),
        ("- Never use Docker other than in CI.\n", "- In CI, use Docker.\n"),
    ],
)
def test_a_ban_except_for_a_situation_meets_no_use_there(root: str, nested: str) -> None:
    assert find_conflicts([(ROOT, root), (PKG, nested)]) == []


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        ("- Indent TypeScript with 2 spaces.\n", "- Indent Python with 4 spaces.\n"),
        ("- Format TypeScript with Biome.\n", "- Format Markdown with Prettier.\n"),
    ],
)
def test_a_language_worked_on_by_the_verb_is_the_rules_scope(root: str, nested: str) -> None:
    assert find_conflicts([(ROOT, root), (PKG, nested)]) == []


def test_a_language_worked_on_meets_a_rule_for_every_language() -> None:
    chain = [(ROOT, "- Indent with 2 spaces.\n"), (PKG, "- Indent Python with 4 spaces.\n")]
    assert _rules(chain) == [(CONFLICT, "warning")]


def test_two_rules_under_the_same_condition_conflict() -> None:
    chain = [
        (ROOT, "- For the docs site, use pnpm.\n"),
        (PKG, "- For the docs site, use npm.\n"),
    ]
    assert _rules(chain) == [(CONFLICT, "warning")]
    assert scoped_pairs(chain) == []


def test_different_languages_are_not_judge_candidates() -> None:
    text = "## Python\n\n- Indent with tabs.\n\n## Go\n\n- Use 4 spaces for indentation.\n"
    assert find_conflicts([(ROOT, text)]) == []
    assert scoped_pairs([(ROOT, text)]) == []


def test_the_finding_points_at_the_earliest_overlapping_instruction() -> None:
    root = "- For the docs site, use npm.\n- Use yarn.\n"
    [finding] = find_conflicts([(ROOT, root), (PKG, "- Use pnpm.\n")])
    assert finding.rule == CONFLICT
    assert finding.related[0].where.start_line == 1  # "Use yarn.", not the docs-site rule


def test_a_choice_between_languages_is_not_a_language_scope() -> None:
    chain = [
        (ROOT, "- Write TypeScript code, not JavaScript.\n"),
        (PKG, "- Use plain JavaScript files only.\n"),
    ]
    assert [f.rule for f in find_conflicts(chain)] == [CONFLICT]


def test_always_and_never_in_different_language_sections_do_not_conflict() -> None:
    text = (
        "## Python\n\n- Always run the formatter before each commit.\n\n"
        "## TypeScript\n\n- Never run the formatter before each commit.\n"
    )
    assert find_conflicts([(ROOT, text)]) == []


# --- acknowledged overrides ------------------------------------------------------------------


@pytest.mark.parametrize(
    "pkg",
    [
        "This package overrides the root rule: use npm.\n",
        "- Unlike the root AGENTS.md, use npm.\n",
        "- Use npm instead of the repo-wide package manager.\n",
        "- Use npm (overrides ../AGENTS.md).\n",
        "- Use npm (overrides `../AGENTS.md`).\n",
        "- This rule takes precedence over the root: use npm.\n",
        "- This supersedes the root guidance: use npm.\n",
        "- Here we use npm, not pnpm as at the root.\n",
        "- Exception: use npm in this package.\n",
        "- In this package, ignore the root guidance on tools: use npm.\n",
        "## Overrides\n\n### Tools\n\n- Use npm.\n",
    ],
)
def test_an_acknowledged_override_has_its_own_rule(pkg: str) -> None:
    chain = [(ROOT, "- Use pnpm.\n"), (PKG, pkg)]
    [finding] = find_conflicts(chain)
    assert (finding.rule, finding.severity) == (ACKNOWLEDGED_OVERRIDE, "information")
    assert "../AGENTS.md" in finding.message
    assert "\u201cUse pnpm.\u201d" in finding.message  # both sides quoted
    assert "npm" in finding.message.split("here", 1)[1]


@pytest.mark.parametrize(
    "pkg",
    [
        "- Use pnpm instead of npm.\n",
        "- Always use pnpm rather than npm.\n",
        "- Run it from the package folder, not from elsewhere; use pnpm.\n",
    ],
)
def test_rejecting_a_value_is_not_an_override(pkg: str) -> None:
    chain = [(ROOT, "- Use npm.\n"), (PKG, pkg)]
    assert [(f.rule, f.severity) for f in find_conflicts(chain)] == [(CONFLICT, "warning")]


def test_an_override_covers_its_own_list_item_only() -> None:
    root = "- Use pnpm.\n- Indent with tabs.\n"
    pkg = "- Unlike the root AGENTS.md, use npm.\n- Use 4 spaces for indentation.\n"
    findings = find_conflicts([(ROOT, root), (PKG, pkg)])
    assert [(f.rule, f.where.start_line) for f in findings] == [
        (ACKNOWLEDGED_OVERRIDE, 0),
        (CONFLICT, 1),
    ]


def test_an_override_section_ends_at_the_next_section() -> None:
    root = "- Use pnpm.\n- Indent with tabs.\n"
    pkg = "# Pkg\n\n## Overrides\n\n- Use npm.\n\n## Style\n\n- Use 4 spaces for indentation.\n"
    findings = find_conflicts([(ROOT, root), (PKG, pkg)])
    assert [f.rule for f in findings] == [ACKNOWLEDGED_OVERRIDE, CONFLICT]


def test_an_override_in_one_file_names_the_line() -> None:
    text = "- Indent with tabs.\n- Exception: use 4 spaces for indentation in this file.\n"
    [finding] = find_conflicts([(ROOT, text)])
    assert finding.rule == ACKNOWLEDGED_OVERRIDE
    assert "line 1" in finding.message and "\u201cIndent with tabs.\u201d" in finding.message


def test_an_exception_paragraph_does_not_cover_the_next_section() -> None:
    root = "## Tooling\n\n- Use pnpm for every package.\n- Indent with 2 spaces.\n"
    pkg = "# packages/cli\n\nException: use npm in this package.\n\n## Style\n\nIndent with tabs.\n"
    findings = find_conflicts([(ROOT, root), (PKG, pkg)])
    assert [(f.rule, f.where.start_line) for f in findings] == [
        (ACKNOWLEDGED_OVERRIDE, 2),
        (CONFLICT, 6),
    ]


def test_words_about_code_are_not_an_override() -> None:
    chain = [
        (ROOT, "- Use npm.\n"),
        (
            PKG,
            "Override `__eq__` only with `__hash__`. Explicit flags take precedence. "
            "Don't let it override the user's settings. Use pnpm.\n",
        ),
    ]
    assert [f.rule for f in find_conflicts(chain)] == [CONFLICT]


def test_a_condition_named_by_the_other_side_is_shared() -> None:
    in_tests = Scope(condition="tests")
    assert share_scope(
        in_tests, "in tests, always mock the repository layer", Scope(), "don't stub it in tests"
    )
    assert not share_scope(
        in_tests, "in tests, always mock the repository layer", Scope(), "never mock the repo"
    )
    # two different conditions are never shared, whatever the words
    assert not share_scope(
        in_tests, "in tests, mock it", Scope(condition="ci"), "in ci, in tests, never mock it"
    )


def test_lines_of_a_language_name_it_as_a_scope() -> None:
    from pi_lsp.lint.scopes import languages_of

    assert languages_of("Python lines wrap at 100 characters.") == {"python"}
    assert languages_of("Lines wrap at 100 characters.") == set()


def test_a_tool_named_in_a_rule_gives_it_the_languages_of_its_ecosystem() -> None:
    from pi_lsp.lint.conflicts import find_conflicts

    root = "# Style\n\nPython lines wrap at 100 characters.\n"
    web = "# Style\n\n- Prettier with `printWidth: 80`, single quotes.\n"
    plain = "# Style\n\n- Wrap lines at 80 characters.\n"
    for later, expected in ((web, 0), (plain, 1)):
        findings = find_conflicts([("/r/AGENTS.md", root), ("/r/web/AGENTS.md", later)])
        conflicts = [f for f in findings if f.rule == "conflicting-instructions"]
        assert len(conflicts) == expected, (later, findings)
