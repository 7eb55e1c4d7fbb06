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


def nested(root: str, child: str, path: str = "crates/engine/AGENTS.md") -> list[str]:
    """The dimensions of the conflicts between a root file and a nested package's file."""
    findings = find_conflicts([("AGENTS.md", root + "\n"), (path, child + "\n")])
    return [str(f.data.get("dimension")) for f in findings if f.rule == "conflicting-instructions"]


def test_a_value_found_with_its_subject_across_the_verb_is_the_statement_s_value() -> None:
    assert picks("The minimum Go version for exporters is 1.22.") == {("Go 1.22+", "prefer")}
    assert nested("Requires Go 1.20 or newer.", "The minimum Go version here is 1.22.") == [
        "go-version"
    ]
    assert nested("Requires Go 1.22 or newer.", "The minimum Go version here is 1.22.") == []


def test_two_floors_of_one_runtime_conflict_but_a_floor_and_a_pin_do_not() -> None:
    assert picks("Requires Python 3.10+.") == {("Python 3.10+", "prefer")}
    assert picks('Set `requires-python = ">=3.9"` in pyproject.') == {("Python 3.9+", "prefer")}
    assert picks("The minimum Node.js version is 18.") == {("Node.js 18+", "prefer")}
    assert conflict("Requires Python 3.10+.", "Python 3.13 or newer is required.")
    assert conflict("Use Node 18 or later.", "The minimum Node version is 22.")
    assert not conflict("Requires Python 3.10+.", "Target Python 3.10 or later.")
    # a floor and an exact version can both hold; a test matrix is no rule at all
    assert not conflict("Requires Python 3.10+.", "Use Python 3.13 for local work.")
    assert picks("Tested on Python 3.13.") == set()
    assert conflict("Requires Java 17+.", "The minimum Java version is 21.")
    assert not conflict("Requires JDK 17 or later.", "Use Java 21.")


def test_a_settings_label_that_names_its_unit_takes_a_bare_number() -> None:
    assert picks("Requests per minute per API key: 250") == {("250", "prefer")}
    assert picks("Pool size: 15") == {("15", "prefer")}
    # a one-word subject names a thing ("PRs"), and a label with more after it is no setting
    assert picks("PRs: 3") == set()
    assert picks("Pool size: 15 in staging, more elsewhere") == set()
    table = "| Limit | Value |\n|---|---|\n| Requests per minute per API key | 250 |\n"
    assert nested(table, "Each client is limited to 40 requests per minute per API key.") == [
        "rate-limit"
    ]


def test_a_formatter_setting_in_code_is_the_line_length() -> None:
    assert picks("`rustfmt.toml` sets `max_width = 90`.") == {("90 characters", "prefer")}
    assert picks("Prettier runs with `printWidth: 110`.") == {("110 characters", "prefer")}
    assert picks("The `max_width` key is documented upstream.") == set()


def test_a_place_phrase_naming_the_file_s_own_package_keeps_the_rule_comparable() -> None:
    root = "`ruff.toml` sets `line-length = 88`."
    assert nested(root, "Keep lines within 120 columns in this crate.") == ["line-length"]
    assert nested(root, "In this module, keep lines within 120 columns.") == ["line-length"]
    assert nested(
        "The maximum upload size is 8 MB per file.",
        "Uploads up to 20 MB are accepted for ticket attachments.",
        "services/tickets/AGENTS.md",
    ) == ["upload-limit"]
    # the same limit in other units is no conflict
    assert nested("The maximum upload size is 8 MB.", "The max upload size is 8192 KB.") == []
