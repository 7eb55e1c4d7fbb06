"""Numbers read with their subject and the condition they hold under (issue 15): a count of
any noun per page is the page size, "exactly one replica" is a value with no owner, a count
of what runs is kept per environment unless stated for every one, and a number under a
narrower condition than the other side's meets it only when that side speaks of all."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import find_conflicts


def chain_findings(root: str, nested: str) -> list[str]:
    findings = find_conflicts([("AGENTS.md", root + "\n"), ("pkg/AGENTS.md", nested + "\n")])
    return [f.message for f in findings if f.rule == "conflicting-instructions"]


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        # whatever a page holds is counted per page: the page size
        (
            "Default page size: 50 items; maximum page size: 200.",
            "The loans list endpoints return 20 loans per page by default.",
        ),
        ("The default page size is 25.", "Return 40 invoices per page."),
        # a bare number after a key whose last word is its unit is in that unit
        (
            "Timeouts: every job sets `timeout-minutes`, 30 at most.",
            "Release jobs may take up to 90 minutes (`timeout-minutes: 90`).",
        ),
        # "exactly" states the value, it names no owner; "every environment" holds in each
        (
            "Production runs at least 2 replicas of every Deployment, spread across zones.",
            "Runs as exactly one replica in every environment: there is no leader election.",
        ),
    ],
)
def test_numbers_of_one_subject_conflict(root: str, nested: str) -> None:
    assert chain_findings(root, nested)


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        # a page's count only when the page is the noun counted per
        ("The default page size is 25.", "Each job runs 3 retries per page fetch."),
        ("The default page size is 25.", "Print 60 lines per page-break."),
        # the same value in the key's unit, and a key that names a thing
        (
            "Timeouts: every job sets `timeout-minutes`, 30 at most.",
            "Release jobs may take up to 30 minutes (`timeout-minutes: 30`).",
        ),
        ("Every job sets `timeout-minutes`, 30 at most.", "Pass `--port-seconds`, 8080."),
        ("Every job sets `timeout-minutes`, 30 at most.", "Set `cache-ttl-seconds`, 600."),
        # the same count in another environment, or one stated for no environment
        (
            "Production runs at least 2 replicas of every Deployment.",
            "Staging runs exactly one replica.",
        ),
        ("Production runs at least 2 replicas.", "The service runs exactly one replica."),
        ("Staging runs a single replica.", "Production runs at least 3 replicas."),
        # the same value in two forms
        ("Return 20 orders per page.", "The default page size is 20."),
    ],
)
def test_numbers_of_other_subjects_or_places_stay_silent(root: str, nested: str) -> None:
    assert not chain_findings(root, nested)
