"""Conventions whose values are ways of doing things: commit message format, version pinning,
yes/no labels ("Trailing commas: none"), file headers stated as facts. Sentences are made up."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts


def _conflicts(root: str, nested: str) -> list[str]:
    chain = [
        ("/r/AGENTS.md", f"# Root\n\n- {root}\n"),
        ("/r/pkg/AGENTS.md", f"# Pkg\n\n- {nested}\n"),
    ]
    return [f.data["dimension"] for f in find_conflicts(chain) if f.rule.startswith("conflict")]


def _read(clause: str) -> set[tuple[str, str, str]]:
    return {(c.dimension, c.value, c.stance) for c in read_choices(clause)}


@pytest.mark.parametrize(
    ("root", "nested", "dimension"),
    [
        (
            "Trailing commas: none.",
            "Always add trailing commas to multiline objects.",
            "trailing-commas",
        ),
        ("Semicolons: never (ASI handles them).", "Use semicolons everywhere.", "semicolons"),
        ("Trailing commas: always.", "Never use trailing commas.", "trailing-commas"),
        (
            "Write commit subjects in the imperative mood.",
            "Commit messages are written in the past tense.",
            "commit-tense",
        ),
        (
            "Pin exact versions for every dependency.",
            "Use caret ranges in this package.",
            "dependency-pinning",
        ),
        (
            "Follow Conventional Commits for every commit.",
            "Commit messages follow the `[component] Summary` form.",
            "commit-convention",
        ),
        (
            "Each source file begins with an SPDX header.",
            "Do not add license headers here.",
            "license-header",
        ),
    ],
)
def test_conventions_stated_both_ways_conflict(root: str, nested: str, dimension: str) -> None:
    assert _conflicts(root, nested) == [dimension]


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        ("Trailing commas: none.", "Never use trailing commas."),
        ("Semicolons: always.", "Use semicolons."),
        ("Pin exact versions for every dependency.", "Pin exact versions here too."),
        ("Commits follow Conventional Commits.", "Write commit subjects in the imperative mood."),
        # a label answered by a sentence is not a yes/no answer
        ("Trailing commas: none of the linters complain about them.", "Use trailing commas."),
        # narrative about the past is still no choice
        ("In the past we used caret ranges.", "Pin exact versions for every dependency."),
    ],
)
def test_agreeing_or_non_choices_do_not_conflict(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == []


def test_yes_no_label_reads_the_value_in_the_label() -> None:
    assert _read("Trailing commas: none") == {("trailing-commas", "trailing commas", "reject")}
    assert _read("Semicolons: required") == {("semicolons", "semicolons", "prefer")}
    assert _read("Trailing commas: no, the formatter strips them") == {
        ("trailing-commas", "trailing commas", "reject")
    }
    # the label names no value: nothing to answer
    assert _read("Linting: none") == set()
    # an answer that goes on as a sentence is not a bare yes/no
    assert _read("Semicolons: on every statement that needs one") == set()


def test_past_tense_as_a_value_is_not_narrative() -> None:
    assert _read("Commit messages are written in the past tense") == {
        ("commit-tense", "past tense", "prefer")
    }
    assert _read("In the past, commit messages were in the past tense") == set()


@pytest.mark.parametrize(
    ("root", "nested", "dimension"),
    [
        (
            "camelCase for functions and locals.",
            "Functions here are snake_case.",
            "naming-identifiers",
        ),
        (
            "Use snake_case for Ruby method names.",
            "Ruby methods use camelCase in this gem.",
            "naming-identifiers",
        ),
        ("Config keys are snake_case.", "Use camelCase for config keys.", "naming-json-fields"),
        ("Use kebab-case for file names.", "Vue component files are PascalCase.", "naming-files"),
    ],
)
def test_the_subject_of_a_naming_case_decides_its_role(
    root: str, nested: str, dimension: str
) -> None:
    assert _conflicts(root, nested) == [dimension]


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        # different subjects: no conflict
        ("Use PascalCase for classes.", "Use camelCase for variables."),
        ("Use camelCase for variables.", "Use snake_case for database columns."),
        ("Use snake_case for variables.", "Use kebab-case for file names."),
        ("JSON fields are camelCase.", "Use snake_case for functions."),
        # a case named in passing, not stated for anything
        ("snake_case, mostly.", "Use camelCase for variables."),
    ],
)
def test_naming_cases_of_different_subjects_do_not_conflict(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == []


def test_terse_naming_line_reads_each_case_for_its_own_subject() -> None:
    assert _read("snake_case for functions and variables") == {
        ("naming-identifiers", "snake_case", "prefer")
    }
    # the second case is for classes, which no role reads
    assert _read("snake_case for functions, PascalCase for classes") == {
        ("naming-identifiers", "snake_case", "prefer")
    }
    assert _read("camelCase for example") == set()


def _agent_conflicts(global_text: str, project: str) -> list[str]:
    chain = [
        ("/home/u/.pi/agent/AGENTS.md", f"# Global\n\n- {global_text}\n"),
        ("/work/app/AGENTS.md", f"# App\n\n{project}\n"),
    ]
    return [f.data["dimension"] for f in find_conflicts(chain) if f.rule.startswith("conflict")]


@pytest.mark.parametrize(
    ("global_text", "project", "dimension"),
    [
        (
            "No preamble, and give no closing summary; I read the diff.",
            "End each reply with a final summary of the changes.",
            "response-summary",
        ),
        (
            "Keep replies brief: short answers only.",
            "Give detailed explanations in every answer, with the reasoning.",
            "response-tone",
        ),
    ],
)
def test_agent_response_conventions_conflict_across_files(
    global_text: str, project: str, dimension: str
) -> None:
    assert _agent_conflicts(global_text, project) == [dimension]


@pytest.mark.parametrize(
    ("global_text", "project"),
    [
        ("Give no closing summary.", "Never end with a closing recap."),
        # "end" as a noun, and "end-to-end", are not the imperative
        ("Give no closing summary.", "End-to-end tests print a final summary to the console."),
        ("Keep replies brief: short answers only.", "Give each test a descriptive name."),
    ],
)
def test_agent_response_conventions_that_agree_or_do_not_choose(
    global_text: str, project: str
) -> None:
    assert _agent_conflicts(global_text, project) == []


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        (
            "Test style: plain test functions with fixtures.",
            "Tests here are `unittest.TestCase` classes.",
        ),
        (
            "Write tests as plain functions; no `unittest.TestCase`.",
            "Write tests as TestCase subclasses.",
        ),
    ],
)
def test_python_test_style_conflicts(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == ["python-test-style"]


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        # plain functions that are not tests are no test style
        (
            "Prefer plain functions over classes for helpers.",
            "Tests here are `unittest.TestCase` classes.",
        ),
        # the runner is another role: pytest runs TestCase classes too
        ("Use pytest.", "Tests here are `unittest.TestCase` classes."),
    ],
)
def test_python_test_style_negatives(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == []


def test_tests_beside_a_module_named_in_between() -> None:
    assert _conflicts(
        "Tests live under the top-level `tests/` folder.",
        "Keep tests beside the parser module as `test_parser.py`.",
    ) == ["test-location"]
    assert _read("Keep tests alongside their source files") == {
        ("test-location", "next to the code", "prefer")
    }
    # next to the code, but not about tests: no test location
    assert _read("Keep the changelog next to the code") == set()


def test_a_closing_summary_forbidden_by_its_verb() -> None:
    assert _agent_conflicts(
        "Do not end with a final summary.", "End each reply with a closing summary."
    ) == ["response-summary"]
