"""What the agent itself may do, said in other words on the two sides: "the whole suite" and
"the complete test suite", a prohibition on the agent's machine against a requirement that
names no other place; and the near misses of each, which stay silent."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import CONFLICT, find_conflicts
from pi_lsp.lint.frames import frames_of


def _chain(earlier: str, later: str) -> list[tuple[str, str]]:
    return [("/w/AGENTS.md", f"# Rules\n\n- {earlier}\n"), ("/w/pkg/AGENTS.md", f"{later}\n")]


def _conflicts(earlier: str, later: str) -> list[str]:
    return [f.message for f in find_conflicts(_chain(earlier, later)) if f.rule == CONFLICT]


MEETING = [
    # whole / complete / full / entire say one thing, and a test suite is a suite
    (
        "Do not run the whole suite on your machine: it takes ~50 minutes.",
        "Always run the complete test suite before every commit, not only the tests you touched.",
    ),
    ("Never run the entire test suite.", "Run the full suite before you push."),
    ("Never run the full test suite locally.", "Always run the whole suite before committing."),
]


@pytest.mark.parametrize(("earlier", "later"), MEETING)
def test_other_words_for_one_agent_action_meet(earlier: str, later: str) -> None:
    (message,) = _conflicts(earlier, later)
    assert f"\u201c{later}\u201d here" in message


NEAR_MISSES = [
    # the requirement names another place than the agent's machine
    ("Do not run the whole suite on your machine.", "Run the complete test suite in CI."),
    ("Do not run the whole suite on your machine.", "Run the full suite on the CI runners."),
    ("Never run the full test suite locally.", "The full suite runs on the build server."),
    # a part of the suite is not the whole of it, nor another suite
    ("Never run the whole suite.", "Run the tests of the module you changed."),
    ("Never run the whole suite.", "Run the smoke suite before you push."),
    # a prohibition elsewhere than the agent's machine
    ("Never run the full suite in CI.", "Run the whole suite before committing."),
]


@pytest.mark.parametrize(("earlier", "later"), NEAR_MISSES)
def test_near_misses_of_one_agent_action_stay_silent(earlier: str, later: str) -> None:
    assert _conflicts(earlier, later) == []


def test_what_comes_after_comma_not_is_no_qualifier() -> None:
    (frame,) = frames_of("Always run the complete test suite, not only the tests you touched.")
    assert (frame.verb, frame.object, frame.modifiers) == ("run", "suite", frozenset({"whole"}))
    assert frame.qualifiers == frozenset()
