"""Tools stated as facts about the project: "type checking in `workers/` is done by pyright"
in ``workers/``, "tests run under Vitest", a quality-gate table ("| Check | Tool |"), a
``Python env: uv`` row; and a condition that ends a bracketed aside of its own, which limits
the aside, not the sentence."""

from __future__ import annotations

import re

import pytest

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.scopes import scope_for
from pi_lsp.lint.vocabulary import CODE_MASK


def picks(clause: str, folder: str = "") -> set[tuple[str, str]]:
    masked = re.sub(r"`[^`]*`", lambda m: CODE_MASK * len(m.group(0)), clause)
    return {
        (c.dimension, c.value)
        for c in read_choices(clause.replace("`", " "), masked, folder)
        if c.stance == "prefer"
    }


def conflict_dimensions(root: str, child: str, child_path: str = "svc/AGENTS.md") -> list[str]:
    findings = find_conflicts([("AGENTS.md", root + "\n"), (child_path, child + "\n")])
    return [str(f.data.get("dimension")) for f in findings if "conflicting" in f.rule]


def test_a_subject_naming_the_files_own_folder_in_code_states_the_tool() -> None:
    clause = "Type checking in `workers/` is done by pyright in strict mode."
    assert ("python-type-checker", "pyright") in picks(clause, "workers")
    assert ("python-type-checker", "pyright") in picks(
        "Type checking for `workers` is done by pyright.", "workers"
    )


@pytest.mark.parametrize(
    ("clause", "folder"),
    [
        # another folder, or a part of the file's own folder: a scope, not the file's rule
        ("Type checking in `billing/` is done by pyright.", "workers"),
        ("Type checking in `workers/jobs` is done by pyright.", "workers"),
        ("Type checking in `workers/` is done by pyright.", ""),
        # code that is not a place
        ("Checking `config.py` is done by pyright.", "workers"),
    ],
)
def test_a_subject_naming_another_place_in_code_states_no_tool(clause: str, folder: str) -> None:
    assert ("python-type-checker", "pyright") not in picks(clause, folder)


def test_tests_that_run_under_a_runner_state_it() -> None:
    assert picks("Tests run under Vitest.") == {("test-runner", "vitest")}
    assert ("test-runner", "vitest") in picks(
        "This module's tests run under Vitest (`npx vitest run src/push`)."
    )


@pytest.mark.parametrize(
    "clause",
    [
        "The tests run under `src/`.",
        "Tests here used to run under Jest.",
        "Tests may run under Vitest if you like.",
    ],
)
def test_run_under_in_narrative_a_hedge_or_a_place_states_no_runner(clause: str) -> None:
    assert ("test-runner", "vitest") not in picks(clause)
    assert ("test-runner", "jest") not in picks(clause)


def test_labels_name_the_python_environment_and_the_type_checker() -> None:
    assert picks("Python env: uv") == {("python-env-tool", "uv")}
    assert picks("Types: mypy (strict)") == {("python-type-checker", "mypy")}
    assert picks("Use this plain venv + pip setup.") == {("python-env-tool", "pip + venv")}
    # a label that names the role, without a value of it, chooses nothing
    assert picks("Types: strict") == set()
    assert picks("Python env: see the Makefile") == set()


def test_a_quality_gate_table_names_the_tool_of_each_check() -> None:
    root = "| Check | Tool | Command |\n|---|---|---|\n| Types | mypy (strict) | `make types` |"
    child = "- Type checking in `workers/` is done by pyright (`pyright workers/`)."
    assert conflict_dimensions(root, child, "workers/AGENTS.md") == ["python-type-checker"]
    # pyright in another folder than the file's is that folder's, not the file's
    assert conflict_dimensions(root, child, "billing/AGENTS.md") == []


def test_a_plain_venv_setup_meets_the_root_environment_row() -> None:
    root = "| Area | Choice |\n|---|---|\n| Python env | uv |"
    child = "Use this plain venv + pip setup; uv's resolver picks a broken wheel here."
    assert conflict_dimensions(root, child) == ["python-env-tool"]


@pytest.mark.parametrize(
    ("sentence", "condition"),
    [
        # the aside has its own statement: its "in CI" is where that statement holds
        ("Jest is our test runner (`npm test` runs `jest --runInBand` in CI).", ""),
        ("Use Jest (we run it in CI).", ""),
        # a condition of the sentence, bare or in a bare aside
        ("Run the e2e suite in CI.", "in ci"),
        ("Run the e2e suite (only in CI).", "in ci"),
    ],
)
def test_a_condition_ending_an_aside_of_its_own_does_not_limit_the_sentence(
    sentence: str, condition: str
) -> None:
    assert scope_for("AGENTS.md", (), sentence, None).condition == condition


def test_a_runner_stated_in_a_module_meets_the_root_runner_with_an_aside() -> None:
    root = "- Jest is our test runner (`npm test` runs `jest --runInBand` in CI)."
    child = "- This module's tests run under Vitest (`npx vitest run src/push`)."
    assert conflict_dimensions(root, child, "src/push/AGENTS.md") == ["test-runner"]


def test_the_languages_of_named_tools_do_not_limit_a_choice_for_any_language() -> None:
    # a metrics backend and a migration tool hold in every language of the project: the
    # ecosystem of the client or the command named beside them is no scope of the choice
    root = "- Metrics go to Datadog through the DogStatsD agent (`statsd.internal:8125`)."
    child = "- Expose metrics in Prometheus format (Micrometer `PrometheusMeterRegistry`)."
    assert conflict_dimensions(root, child, "services/payments/AGENTS.md") == ["observability"]
    root = "- Schema changes go through Alembic: `uv run alembic revision -m x`."
    child = "- Write each migration as a plain SQL file, applied by `dbmate up`."
    assert conflict_dimensions(root, child, "billing/AGENTS.md") == ["migration-tool"]
    assert scope_for("AGENTS.md", (), "Use Black.", None, ["python"]).languages_from_tools
    assert not scope_for("AGENTS.md", ("Python",), "Use Black.", None).languages_from_tools


@pytest.mark.parametrize(
    ("root", "child"),
    [
        # languages stated by the headings or the words stay a scope
        (
            "## Python services\n\n- Metrics go to Datadog.",
            "## Java services\n\n- Expose metrics in Prometheus format.",
        ),
        (
            "- Python code: schema changes go through Alembic.",
            "- Ruby code: migrations are written with ActiveRecord.",
        ),
    ],
)
def test_languages_stated_in_words_still_keep_choices_apart(root: str, child: str) -> None:
    assert conflict_dimensions(root, child, "billing/AGENTS.md") == []


def test_values_used_together_are_both_chosen() -> None:
    clause = "Formatting in this module is done with Spotless + ktfmt (`./gradlew spotlessApply`)."
    assert {("formatter", "spotless"), ("formatter", "ktfmt")} <= picks(clause)
    root = "- Format Kotlin with ktlint (`./gradlew ktlintFormat`); CI runs `ktlintCheck`."
    assert conflict_dimensions(root, "- " + clause, "android/AGENTS.md") == ["formatter"]


@pytest.mark.parametrize(
    "clause",
    [
        "Format with Prettier or Biome.",
        "Format Kotlin with ktfmt or ktlint.",
    ],
)
def test_alternatives_that_are_not_used_together_choose_nothing(clause: str) -> None:
    assert not {v for d, v in picks(clause) if d == "formatter"}


def test_a_line_opened_by_a_tool_and_its_version_states_the_tool() -> None:
    line = "CMake 3.28+ with the Ninja generator: `cmake --preset release`."
    assert ("build-system", "CMake") in picks(line)
    assert picks("pnpm 9+ with the workspace protocol.") == {("package-manager", "pnpm")}
    root = "- dspcore is built with Bazel (`bazel build //libs/dspcore/...`)."
    assert "build-system" in conflict_dimensions(root, "- " + line, "libs/dspcore/AGENTS.md")


@pytest.mark.parametrize(
    "clause",
    [
        "Postgres 16 in production, SQLite in tests.",
        "Jest 29 was dropped last year.",
        "Jest 29 is no longer used.",
        "Maven 3.9 if you must.",
        "Gradle 8.7 or Maven 3.9.",
        "Vite 5 for the docs and webpack 5 for the app.",
        # a bare tool and version may be an item of a changelog
        "pnpm 9",
        "Vitest 1.6 with browser mode.",
    ],
)
def test_a_versioned_tool_beside_another_a_clause_or_narrative_states_no_tool(
    clause: str,
) -> None:
    assert picks(clause) == set()
