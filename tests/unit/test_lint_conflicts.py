"""find_conflicts: rules, locations, related information, severities and duplicates."""

from __future__ import annotations

import threading
import time

from pi_lsp.lint.conflicts import (
    ACKNOWLEDGED_OVERRIDE,
    CONFLICT,
    CONFLICT_IN_FILE,
    DUPLICATE,
    OUT_OF_TIME,
    find_conflicts,
)
from pi_lsp.resources.model import Finding
from tests.prose import context_prose


def test_cross_file_conflict_sits_on_the_later_instruction() -> None:
    chain = [
        ("/agent/AGENTS.md", "# Global\n\n- Use npm for packages.\n"),
        ("/repo/AGENTS.md", "# Repo\n\nIntro.\n\n- Always use pnpm.\n"),
    ]
    (finding,) = find_conflicts(chain)
    assert finding.rule == CONFLICT
    assert finding.severity == "warning"
    assert (finding.where.path, finding.where.start_line, finding.where.start_column) == (
        "/repo/AGENTS.md",
        4,
        2,
    )
    (related,) = finding.related
    assert (related.where.path, related.where.start_line) == ("/agent/AGENTS.md", 2)
    assert "use pnpm" in finding.message and "use npm" in finding.message
    assert "later in the prompt" in finding.message
    assert finding.data["dimension"] == "package-manager"


def test_conflict_in_one_file() -> None:
    text = "- Indent with tabs.\n- Something else.\n- Use 4 spaces for indentation.\n"
    (finding,) = find_conflicts([("/repo/AGENTS.md", text)])
    assert finding.rule == CONFLICT_IN_FILE
    assert finding.where.start_line == 2
    assert finding.related[0].where.start_line == 0
    assert "line 1" in finding.message


def test_order_decides_which_is_later() -> None:
    chain = [("/a/AGENTS.md", "Use pnpm.\n"), ("/a/b/AGENTS.md", "Use yarn.\n")]
    (finding,) = find_conflicts(chain)
    assert finding.where.path == "/a/b/AGENTS.md"
    (swapped,) = find_conflicts(list(reversed(chain)))
    assert swapped.where.path == "/a/AGENTS.md"


def test_explicit_override_is_information() -> None:
    chain = [
        ("/a/AGENTS.md", "- Use pnpm.\n"),
        ("/a/legacy/AGENTS.md", "This package overrides the root rule: use npm.\n"),
    ]
    (finding,) = find_conflicts(chain)
    assert finding.severity == "information"
    assert finding.rule == ACKNOWLEDGED_OVERRIDE
    assert finding.message.startswith("Overrides the package manager of ../AGENTS.md")
    assert "\u201cThis package overrides the root rule: use npm.\u201d" in finding.message
    assert "\u201cUse pnpm.\u201d" in finding.message
    assert finding.data["override"] is True


def test_always_never_polarity() -> None:
    chain = [
        ("/g/AGENTS.md", "- Always run tests before committing.\n"),
        ("/r/AGENTS.md", "- Never run the tests before committing.\n"),
    ]
    (finding,) = find_conflicts(chain)
    assert finding.rule == CONFLICT
    assert "run tests before committing" in finding.message
    assert find_conflicts([("/g/AGENTS.md", "- Always run tests before committing.\n")] * 1) == []


def test_one_finding_per_later_instruction_and_dimension() -> None:
    chain = [
        ("/a/AGENTS.md", "- Use npm.\n- Use `npm run build`.\n"),
        ("/a/b/AGENTS.md", "- Use pnpm.\n"),
    ]
    findings = find_conflicts(chain)
    assert len(findings) == 1
    assert findings[0].related[0].where.start_line == 0


def test_compatible_and_near_miss_statements() -> None:
    chain = [
        ("/a/AGENTS.md", "- Use pnpm.\n- Never use npm.\n"),
        ("/a/b/AGENTS.md", "- `pnpm install` runs in CI.\n```\nnpm install\n```\n"),
    ]
    assert find_conflicts(chain) == []


def test_duplicate_instruction_across_files() -> None:
    chain = [
        ("/a/AGENTS.md", "- Run the full test suite before pushing.\n"),
        ("/a/b/AGENTS.md", "# B\n\n* Run the **full** test suite before pushing\n"),
    ]
    (finding,) = find_conflicts(chain)
    assert finding.rule == DUPLICATE
    assert finding.severity == "information"
    assert finding.where.path == "/a/b/AGENTS.md" and finding.where.start_line == 2
    assert finding.related[0].where.path == "/a/AGENTS.md"


def test_short_or_same_file_repeats_are_not_duplicates() -> None:
    assert find_conflicts([("/a/AGENTS.md", "- Run the full test suite.\n" * 2)]) == []
    chain = [("/a/AGENTS.md", "- Be brief.\n"), ("/a/b/AGENTS.md", "- Be brief.\n")]
    assert find_conflicts(chain) == []


def test_empty_chain() -> None:
    assert find_conflicts([]) == []
    assert find_conflicts([("/a/AGENTS.md", "")]) == []


def test_one_finding_when_a_choice_and_its_polarity_both_contradict() -> None:
    # "never use tabs" after "always use tabs": an indentation choice and a never/always pair
    # at once; the reader gets one warning for the pair of lines, not two
    findings = find_conflicts(
        [
            ("/w/AGENTS.md", "# Style\n\n- Always use tabs for indentation.\n"),
            ("/w/sub/AGENTS.md", "# Style\n\n- Never use tabs for indentation.\n"),
        ]
    )
    conflicts = [f for f in findings if f.rule == CONFLICT]
    assert len(conflicts) == 1, [f.message for f in conflicts]
    assert conflicts[0].where.path == "/w/sub/AGENTS.md"
    assert conflicts[0].where.start_line == 2
    assert conflicts[0].related[0].where.path == "/w/AGENTS.md"


# --- the time budget per file ------------------------------------------------------------------


def _out_of_time(findings: list[Finding]) -> bool:
    return any(f.rule == OUT_OF_TIME for f in findings)


def test_running_out_of_time_once_is_not_remembered() -> None:
    """A file that ran out of time is read again the next time; one read to the end is not
    reported out of time again, whatever budget a later pass has."""
    chain = [("/budget-once/AGENTS.md", "# Style\n\n- Indent with tabs.\n- Use 2 spaces.\n" * 20)]
    assert _out_of_time(find_conflicts(chain, seconds=1e-9))
    read = find_conflicts(chain)
    assert not _out_of_time(read) and any(f.rule == CONFLICT_IN_FILE for f in read)
    assert find_conflicts(chain, seconds=1e-9) == read


def test_the_time_budget_counts_the_threads_cpu_time_not_the_wall_clock() -> None:
    """Four threads competing for the interpreter make a reading take several times its CPU
    time on the wall clock; a budget of 3 times the CPU time the same check takes alone is
    still enough (switching threads costs the reading thread some CPU time of its own)."""
    text = context_prose(40 * 1024)
    alone = float("inf")
    for attempt in range(3):
        start = time.thread_time()
        find_conflicts([(f"/budget-alone-{attempt}/AGENTS.md", text)])
        alone = min(alone, time.thread_time() - start)
    budget = 3 * alone
    stop = threading.Event()

    def compete() -> None:
        while not stop.is_set():
            sum(range(1000))

    competitors = [threading.Thread(target=compete) for _ in range(4)]
    for thread in competitors:
        thread.start()
    try:
        wall = time.monotonic()
        findings = find_conflicts([("/budget-shared/AGENTS.md", text)], seconds=budget)
        wall = time.monotonic() - wall
    finally:
        stop.set()
        for thread in competitors:
            thread.join()
    assert wall > budget  # the wall clock alone would have stopped the reading
    assert not _out_of_time(findings)


def test_a_root_that_makes_room_for_a_folder_is_not_contradicted_by_it() -> None:
    root = (
        "# Testing\n\nRSpec is the test framework for the app. The legacy `engines/billing_v1`"
        " keeps its Minitest suite until it is rewritten; don't add RSpec files there.\n"
    )
    engine = "# Billing v1\n\nTests here are Minitest, run from the host app.\n"
    findings = find_conflicts(
        [("/repo/AGENTS.md", root), ("/repo/engines/billing_v1/AGENTS.md", engine)]
    )
    assert [f for f in findings if "conflicting" in f.rule] == []
    # the same engine text under a folder the root does not name still conflicts
    findings = find_conflicts(
        [("/repo/AGENTS.md", root), ("/repo/engines/search/AGENTS.md", engine)]
    )
    conflicts = [f for f in findings if f.rule == "conflicting-instructions"]
    assert len(conflicts) == 1 and "minitest" in conflicts[0].message.lower()


def test_fewer_words_counts_words_as_split_does() -> None:
    from pi_lsp.lint.conflicts import _fewer_words

    for text in ("", "  ", "run", "run the", "run  the\ttests", " run the tests now ", "a\nb c d"):
        for count in (1, 2, 3, 4, 5):
            assert _fewer_words(text, count) is (len(text.split()) < count), (text, count)
