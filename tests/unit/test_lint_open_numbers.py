"""Open settings: a number with its unit whose subject no catalogue role names, compared with
another by subject, unit dimension and kind (issue 15: "numbers are compared with their units
for the same subject"). Strict: a pair is reported only when both sides are confidently of
one subject and their values exclude each other."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.open_numbers import MAXIMUM, VALUE, open_settings, settings_conflict


def clash(a: str, b: str) -> bool:
    return any(
        settings_conflict(x, y)
        for x in open_settings(a, directive=True)
        for y in open_settings(b, directive=True)
    )


def chain_findings(root: str, nested: str) -> list[str]:
    findings = find_conflicts([("AGENTS.md", root + "\n"), ("pkg/AGENTS.md", nested + "\n")])
    return [f.message for f in findings if f.rule == "conflicting-instructions"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # memory, with a bound stated by a word ("under") or by the noun ("budget", "limit")
        ("The gateway keeps its heap under 96 KB.", "The heap budget is 64 KiB."),
        (
            "The trainer may use up to 24 GB of GPU memory.",
            "Keep peak GPU memory under 16 GB per process.",
        ),
        # a count of a counted noun, the verb naming what is counted
        (
            "A failed webhook is retried 4 times before it is dropped.",
            "Workers retry a failed webhook up to 8 attempts.",
        ),
        # a parameter named in code
        ("Search allows `per_page` up to 250.", "Endpoints accept `per_page` up to 50."),
        # a count per page: an exact number against a default
        ("Orders are listed 25 to a page.", "Return 30 orders per page by default."),
        # a timeout said with a verb, and one said with its noun in other units
        ("Webhook deliveries time out after 5 seconds.", "Webhook deliveries time out after 20 s."),
        ("Timeout — `15_000` ms per call.", "The timeout is 5 seconds."),
        # a key in code
        ("Its config sets `maxLineLength = 140`.", "The root config has `maxLineLength = 110`."),
        # a value above a maximum
        ("The thumbnail cache is 500 MB.", "Keep the thumbnail cache under 200 MB."),
    ],
)
def test_two_numbers_of_one_subject_that_exclude_each_other_conflict(a: str, b: str) -> None:
    assert clash(a, b)
    assert clash(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # different subjects with the same unit
        ("Use a retry delay of 5 s.", "The poke interval is 300 s."),
        ("The connect timeout is 2 s.", "The read timeout is 30 s."),
        ("The cache TTL is 60 s.", "The session TTL is 30 min."),
        ("Requests time out after 10 s.", "The connect timeout is 2 s."),
        # a timeout said with a verb is its owner's: one side that names none may be another's
        ("Batch jobs time out after 60 minutes.", "Inference requests time out after 60 ms."),
        ("Requests to the billing API time out after 10 s.", "The timeout is 30 s."),
        ("Keep PRs under 400 lines.", "Keep functions under 50 lines."),
        ("An order can have at most 100 line items.", "Functions stay under 30 lines."),
        # qualifiers that name different things
        (
            "Keep GPU memory under 20 GB per process.",
            "Keep GPU memory under 60 GB per node.",
        ),
        # an imperative's verb is no subject
        ("Wait 5 seconds between retries.", "Wait 10 seconds before polling again."),
        # a range sets nothing
        ("Back off between 10 and 30 seconds.", "Back off for 20 seconds."),
        ("Each backoff is 4–5 seconds.", "Each backoff is 10 seconds."),
        # examples and narrative
        ("We once raised the timeout to 5 seconds.", "The timeout is 30 seconds."),
        ("For example, a timeout of 5 seconds.", "The timeout is 30 seconds."),
        ("The timeout used to be 60 s.", "The timeout is 30 s."),
        # versions, ports, dates
        ("Use Python 3.12.", "Use Python 3.11."),
        ("The dev server listens on port 3000.", "The API listens on port 8080."),
        ("Set `port = 3000` in the dev config.", "Set `port = 8080` in the prod config."),
        ("Released on 2026-03-04.", "Released on 2026-04-04."),
        # counts of unrelated things
        ("PRs need two reviewers.", "Stale branches are deleted after two weeks."),
        # the same value in two units
        ("The timeout is 30 s.", "The timeout is 30000 ms."),
        # a number without a unit or a counted noun
        ("We have 3 services.", "We have 5 services."),
        # a condition is no setting
        ("If a build takes 20 minutes, split it.", "The build timeout is 10 minutes."),
        # a maximum and a value within it
        ("Keep the heap under 64 KB.", "The heap is 48 KB."),
        # a loose comparison states no kind
        ("Jobs that take more than 5 minutes are slow.", "Jobs time out after 30 minutes."),
    ],
)
def test_numbers_of_different_subjects_or_no_setting_stay_silent(a: str, b: str) -> None:
    assert not clash(a, b)
    assert not clash(b, a)


def test_what_an_open_setting_reads() -> None:
    (heap,) = open_settings("The heap budget is 48 KiB.")
    assert (heap.dimension, heap.amount, heap.kind, heap.head) == (
        "size",
        48 * 1024,
        MAXIMUM,
        "heap",
    )
    (page,) = open_settings("Return 24 results per page by default.", directive=True)
    assert (page.dimension, page.amount, page.kind) == ("count per page", 24, VALUE)
    (memory,) = open_settings("Give each pod a 512 MiB memory limit.", directive=True)
    assert (memory.head, memory.kind, memory.shown()) == ("memori", MAXIMUM, "at most 512 MB")


def test_a_conflicting_number_across_files_is_reported_with_both_values() -> None:
    messages = chain_findings(
        "- Training jobs may use up to 36 GB of GPU memory.",
        "- Keep peak GPU memory under 20 GB.",
    )
    assert len(messages) == 1
    assert "at most 20 GB" in messages[0] and "at most 36 GB" in messages[0]


def test_two_numbers_of_different_subjects_across_files_stay_silent() -> None:
    assert chain_findings("- The connect timeout is 2 s.", "- The read timeout is 30 s.") == []
    assert chain_findings("- The timeout is 30 s.", "- The timeout is 30000 ms.") == []
    assert chain_findings("- Keep PRs under 400 lines.", "- Keep functions under 40 lines.") == []


def test_where_a_catalogue_role_reads_both_numbers_the_role_decides() -> None:
    # the request-timeout role reads both: one finding (the role's), not a second one
    messages = chain_findings(
        "- The HTTP client timeout is 10 seconds.", "- The HTTP client timeout is 30 seconds."
    )
    assert len(messages) == 1
    assert "numbers for one setting" not in messages[0]


def test_two_numbers_in_one_file_are_left_to_its_sections() -> None:
    # one file often states the numbers of several related settings; only files that load
    # together are compared
    text = (
        "- Training jobs may use up to 36 GB of GPU memory.\n- Keep peak GPU memory under 20 GB.\n"
    )
    findings = find_conflicts([("AGENTS.md", text)])
    assert not any("numbers for one setting" in f.message for f in findings)


def test_a_number_pair_that_is_not_sure_goes_to_the_judge() -> None:
    from pi_lsp.lint.conflicts import number_pairs

    unsure = [
        ("AGENTS.md", "- Requests to the billing API time out after 10 s.\n"),
        ("pkg/AGENTS.md", "- The timeout is 30 s.\n"),
    ]
    assert not any("numbers for one setting" in f.message for f in find_conflicts(unsure))
    (pair,) = number_pairs(unsure)
    assert pair.later.text.startswith("The timeout") and "billing" in pair.earlier.text
    # two settings of other subjects are no candidate, nor a pair tier 1 reported
    apart = [
        ("AGENTS.md", "- The connect timeout is 2 s.\n"),
        ("pkg/AGENTS.md", "- The read timeout is 30 s.\n"),
    ]
    assert number_pairs(apart) == []
    sure = [
        ("AGENTS.md", "- Training jobs may use up to 36 GB of GPU memory.\n"),
        ("pkg/AGENTS.md", "- Keep peak GPU memory under 20 GB.\n"),
    ]
    assert number_pairs(sure) == []


def test_a_bound_enforced_in_ci_holds_everywhere() -> None:
    """'… and is checked by a script in CI' says where the bound is enforced, not that it
    holds in CI only: it still meets a bound stated for a package."""
    messages = chain_findings(
        "- The heap budget is 48 KiB and is checked by `tools/mem_report.py` in CI.",
        "- The sensor node keeps its heap under 64 KB, because the radio stack needs it.",
    )
    assert len(messages) == 1
