"""Choices read from sentences that do not say "use": a verb naming the work with the tool
after its preposition ("Log with winston", "Read the keys from Vault"), a statement whose
predicate is the value and whose subject names the role ("Config files are YAML"), and place
phrases of a nested file that name its own folder ("In the worker, …"), which are the file's
own scope and no condition."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.scopes import names_own_folder, opening_scope


def picks(clause: str) -> set[tuple[str, str, str]]:
    return {(c.dimension, c.value, c.stance) for c in read_choices(clause)}


@pytest.mark.parametrize(
    ("clause", "dimension", "value"),
    [
        ("Log with winston.", "logging-library", "winston"),
        ("Validate every request body with zod.", "validation-library", "zod"),
        ("Create the virtualenv with conda:", "python-env-tool", "conda"),
        ("Bundle the app with Vite.", "bundler", "Vite"),
        ("Deploy with Terraform.", "infra-as-code", "Terraform"),
        ("Read the API tokens from Vault.", "secrets-manager", "HashiCorp Vault"),
        ("Expose new queries through GraphQL.", "api-style", "GraphQL"),
        ("Always validate form data using `zod`.", "validation-library", "zod"),
    ],
)
def test_a_work_verb_chooses_the_tool_after_its_preposition(
    clause: str, dimension: str, value: str
) -> None:
    assert picks(clause) == {(dimension, value, "prefer")}


@pytest.mark.parametrize(
    "clause",
    [
        "Read more in the pnpm docs.",
        "Log in with GitHub.",
        "Check the Vite changelog before upgrading.",
        "Create a vitest config for each package.",
        "Log the npm version on startup.",
        "Check with the team before adding jest.",
        "Send questions to the Terraform team.",
        "Describe the bug with winston logs attached.",
    ],
)
def test_a_work_verb_without_a_tool_after_its_preposition_chooses_nothing(clause: str) -> None:
    assert picks(clause) == set()


def test_a_work_verb_with_two_tools_is_an_alternative() -> None:
    assert picks("Create the environment with conda or with uv.") == set()


def test_a_language_after_in_counts_where_the_role_names_what_it_is_for() -> None:
    assert picks("Write new services in Java.") == {("new-code-language", "Java", "prefer")}
    assert picks("Write the summary in Java.") == set()


@pytest.mark.parametrize(
    ("clause", "dimension", "value"),
    [
        ("Config files are YAML.", "config-format", "YAML"),
        ("All config files are TOML (`app.toml`).", "config-format", "TOML"),
        ("New endpoints are REST, versioned under `/v2/`.", "api-style", "REST"),
        ("The formatter is black.", "formatter", "black"),
    ],
)
def test_a_statement_whose_subject_names_the_role_chooses_its_predicate(
    clause: str, dimension: str, value: str
) -> None:
    assert picks(clause) == {(dimension, value, "prefer")}


@pytest.mark.parametrize(
    "clause",
    ["The button is black.", "The docs are YAML.", "This page is REST reference material."],
)
def test_a_statement_about_something_else_chooses_no_ordinary_word(clause: str) -> None:
    assert picks(clause) == set()


def test_test_classes_against_plain_test_functions() -> None:
    root = ("AGENTS.md", "- pytest style: plain functions and fixtures; no `unittest.TestCase`.\n")
    compat = ("src/compat/AGENTS.md", "Tests here are `unittest.TestCase` classes.\n")
    found = find_conflicts([root, compat])
    assert [f.rule for f in found] == ["conflicting-instructions"]
    assert "test style (Python)" in found[0].message


@pytest.mark.parametrize(
    ("phrase", "folder"),
    [
        ("in the worker", "project/services/worker"),
        ("for the extension", "apps/extension"),
        ("for the extension app", "apps/extension"),
        ("in the ingest-sftp service", "services/ingest-sftp"),
        ("in the docs site", "docs"),
        ("in `jbridge`", "src/pyquill/jbridge"),
    ],
)
def test_a_place_phrase_naming_the_files_own_folder(phrase: str, folder: str) -> None:
    assert names_own_folder(phrase, folder)


@pytest.mark.parametrize(
    ("phrase", "folder"),
    [
        ("in the worker", "project/services/api"),
        ("for the docs site", "project"),
        ("in the worker", ""),
        ("when the worker restarts", "services/worker"),
        ("in the service", "services/worker"),
    ],
)
def test_a_place_phrase_naming_another_part_stays_a_condition(phrase: str, folder: str) -> None:
    assert not names_own_folder(phrase, folder)


def test_an_opening_naming_the_files_folder_does_not_limit_the_clause() -> None:
    clause = "In the worker, log with winston."
    assert opening_scope(clause, "services/worker") == (frozenset(), "", len("In the worker, "))
    assert opening_scope(clause, "services/api") == (frozenset(), "in worker", 15)


def test_a_nested_file_naming_its_own_folder_contradicts_the_root_rule() -> None:
    root = ("AGENTS.md", "- Log with pino.\n")
    worker = ("services/worker/AGENTS.md", "- In the worker, log with winston.\n")
    [finding] = find_conflicts([root, worker])
    assert finding.rule == "conflicting-instructions"
    assert finding.where.path == "services/worker/AGENTS.md"
    # the same sentence in another package's file is a condition on another part: no conflict
    api = ("services/api/AGENTS.md", "- In the worker, log with winston.\n")
    assert [f.rule for f in find_conflicts([root, api])] == []


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("Pin exact versions in every manifest.", {("dependency-pinning", "exact pins", "prefer")}),
        (
            "Every source file starts with an SPDX header.",
            {("license-header", "license headers", "prefer")},
        ),
        (
            "Each commit message begins with a Conventional Commits type.",
            {("commit-convention", "Conventional Commits", "prefer")},
        ),
        ("The pipeline starts with npm ci.", set()),
        ("Pin the Node version in `.nvmrc`.", set()),
    ],
)
def test_pin_and_starts_with_state_a_choice(
    clause: str, expected: set[tuple[str, str, str]]
) -> None:
    assert picks(clause) == expected


def test_a_file_header_rule_against_a_folder_that_forbids_it() -> None:
    root = ("AGENTS.md", "Every source file starts with the SPDX header.\n")
    site = ("site/AGENTS.md", "Do not add license headers to these pages.\n")
    assert [f.rule for f in find_conflicts([root, site])] == ["conflicting-instructions"]


def test_a_subject_naming_the_files_own_folder_states_its_rule() -> None:
    root = ("AGENTS.md", "- Use pnpm.\n")
    docs = ("docs/AGENTS.md", "The docs site uses npm.\n")
    [finding] = find_conflicts([root, docs])
    assert finding.rule == "conflicting-instructions"
    assert finding.where.path == "docs/AGENTS.md"
    # the same sentence in another folder speaks of another part of the repo: no rule
    web = ("apps/web/AGENTS.md", "The docs site uses npm.\n")
    assert [f.rule for f in find_conflicts([root, web])] == []
    assert read_choices("The legacy app uses yarn.", None, "apps/legacy") != []
    assert read_choices("The legacy app uses yarn.", None, "apps/web") == []
