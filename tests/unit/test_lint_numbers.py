"""Numbers as choices: a numeric setting stated as a fact, and the words around a value that
make it no choice (a value modifying a noun, a subject that is a spec or a third party)."""

from __future__ import annotations

from pi_lsp.lint.choices import contradicts, read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.instructions import extract_instructions


def picks(clause: str) -> set[tuple[str, str]]:
    return {(c.value, c.stance) for c in read_choices(clause)}


def conflict(a: str, b: str) -> bool:
    return any(contradicts(x, y) for x in read_choices(a) for y in read_choices(b))


def test_a_numeric_setting_stated_as_a_fact_is_a_choice() -> None:
    assert picks("The maximum upload size is 10 MB per file.") == {("10 MB", "prefer")}
    assert picks("Our coverage threshold is 75%.") == {("75 %", "prefer")}
    assert conflict("The coverage threshold is 90%.", "Minimum coverage is 70% lines.")
    # the same number in other units is no conflict
    assert not conflict("The maximum upload size is 10 MB.", "The maximum upload size is 10240 KB.")


def test_a_value_that_modifies_a_noun_is_no_choice() -> None:
    assert picks("Keep the Vite plugin thin.") == set()
    assert picks("Read the React docs before adding hooks.") == set()
    assert picks("Follow the Jest team's advice on fake timers.") == set()
    assert picks("Update the Prettier plugins with the rest.") == set()
    # the value itself, or with a noun that is not about the tool, still chooses
    assert picks("Use Vite.") == {("Vite", "prefer")}
    assert picks("Use the Vite dev server.") == {("Vite", "prefer")}


def test_a_statement_about_a_spec_or_a_third_party_is_no_rule() -> None:
    assert picks("The HTML spec requires `fetch()` for this.") == set()
    assert picks("Browsers use `fetch()` under the hood.") == set()
    assert picks("Upstream uses Jest.") == set()
    assert picks("The project uses Jest.") == {("jest", "prefer")}


def test_a_value_that_labels_a_description_under_a_heading_is_no_choice() -> None:
    def chosen(text: str) -> list[str]:
        found = extract_instructions("AGENTS.md", text)
        return [c.value for i in found for c in i.choices]

    assert chosen("## Build\n\n- tsup: two entry points, both ESM.\n") == []
    assert chosen("## Build\n\n- tsup with two entry points.\n") == ["tsup"]


def test_the_plugin_of_one_tool_does_not_conflict_with_another_tool() -> None:
    root = "Keep the integration layers in Wrangler and the Vite plugin thin.\n"
    nested = "- Use tsup for the bundle.\n"
    findings = find_conflicts([("AGENTS.md", root), ("pkg/AGENTS.md", nested)])
    assert findings == []
    chosen = find_conflicts(
        [("AGENTS.md", "Keep layers thin; use Vite.\n"), ("pkg/AGENTS.md", nested)]
    )
    assert len(chosen) == 1
