"""Numbers read with their subject and the condition they hold under (issue 15): a count of
any noun per page is the page size, "exactly one replica" is a value with no owner, a count
of what runs is kept per environment unless stated for every one, and a number under a
narrower condition than the other side's meets it only when that side speaks of all."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.open_numbers import narrowing, open_settings


def chain_findings(root: str, nested: str) -> list[str]:
    findings = find_conflicts([("AGENTS.md", root + "\n"), ("pkg/AGENTS.md", nested + "\n")])
    return [f.message for f in findings if f.rule == "conflicting-instructions"]


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        # the items a list holds, counted per page: the page size
        (
            "Default page size: 50 items; maximum page size: 200.",
            "The loans list endpoints return 20 records per page by default.",
        ),
        ("The default page size is 25.", "Return 40 results per page."),
        # a bare number after a key whose last word is its unit is in that unit
        (
            "Timeouts: every job sets `timeout-minutes`, 30 at most.",
            "Release jobs may take up to 90 minutes (`timeout-minutes: 90`).",
        ),
        # a range's lower end above the other side's maximum, of a reply said in other words;
        # the narrower side meets the other because that one speaks of every reply
        (
            "Keep every reply under 150 words.",
            "Give a full write-up for each change; a detailed answer of 300–500 words is "
            "expected for anything touching the ingestion path.",
        ),
        ("Keep every reply under 150 words.", "A detailed answer of 300–500 words is expected."),
        ("Keep every reply under 150 words.", "A detailed answer of 300-500 words is expected."),
        ("Keep every reply under 150 words.", "Keep answers between 300 and 500 words."),
        ("Every reply stays under 150 words.", "A response of 200 words is expected."),
        # a default and a maximum after it, each with its own number
        (
            "List endpoints: default page size 50, maximum 200, cursor pagination.",
            "Provider list APIs are read with a page size of 25 by default.",
        ),
        # a seed is a bare number, one per project whatever qualifies it; a comma after a
        # number ends it
        (
            "Global random seed is 42, set through `lumen.utils.seed_everything()`.",
            "Seed: 1234 for every run, so results stay comparable with the published baselines.",
        ),
        ("The random seed is 7.", "Seed: 1234."),
        # a place named in an aside is no narrower condition
        (
            "Return 30 orders per page by default.",
            "Orders are listed 25 to a page (clients in branches run on slow kiosks).",
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
        # ranges that overlap the other side's bound, or the same bound
        (
            "Keep every reply under 150 words.",
            "A detailed answer of 100–200 words is expected for anything touching ingestion.",
        ),
        ("Keep every reply under 600 words.", "A detailed answer of 300–500 words is expected."),
        ("Keep every reply under 600 words.", "A detailed answer of 300-500 words is expected."),
        ("Each backoff is 10 seconds.", "Each backoff is 4-5 seconds."),
        ("Keep every reply under 600 words.", "Keep answers between 300 and 500 words."),
        ("Keep every reply under 150 words.", "The 2026-11-02 release notes run 300 words."),
        ("Every reply stays under 150 words.", "Every reply stays under 150 words."),
        # a narrower condition against a side that does not speak of every one
        (
            "Keep replies under 150 words.",
            "A detailed answer of 300–500 words is expected for anything touching ingestion.",
        ),
        ("Keep GPU memory under 20 GB.", "Keep GPU memory under 60 GB for nightly runs."),
        ("The heap budget is 64 KB.", "The heap budget is 96 KB in the nightly pipeline."),
        ("The heap budget is 64 KB.", "In the nightly pipeline, the heap budget is 96 KB."),
        ("Keep PRs under 400 lines.", "For docs-only PRs, keep PRs under 1000 lines."),
        # the same for a number of a catalogue role
        ("Keep PRs under 400 lines.", "Keep PRs under 1000 lines for docs-only PRs."),
        ("The default page size is 25.", "Return 40 invoices per page in the nightly pipeline."),
        # different owners with the same unit, an example, a story
        ("Keep every reply under 150 words.", "Commit message bodies stay under 300 words."),
        ("Keep every reply under 150 words.", "For example, an answer of 300–500 words."),
        ("Keep every reply under 150 words.", "A summary of 300–500 words is expected."),
        # "maximum" after a number opens the next one
        (
            "List endpoints: default page size 50, maximum 200.",
            "Clients may ask for up to 200 items per page.",
        ),
        # a seed of the same value, seeding data, a count of seeds, a story, code
        ("Global random seed is 1234, set in code.", "Seed: 1234 for every run."),
        ("Seed: 1234 for every run.", "Seed the database with 50 fixtures."),
        ("Seed: 1234 for every run.", "Run 3 seeds per experiment."),
        ("Seed: 1234 for every run.", "We once used seed 7."),
        ("The random seed is 42.", "Pass the seed to `torch.manual_seed(7)`."),
        # the same count in another environment, or one stated for no environment
        (
            "Production runs at least 2 replicas of every Deployment.",
            "Staging runs exactly one replica.",
        ),
        ("Production runs at least 2 replicas.", "The service runs exactly one replica."),
        ("Staging runs a single replica.", "Production runs at least 3 replicas."),
        # the same value in two forms
        ("Return 20 orders per page.", "The default page size is 20."),
        # a named thing per page is another surface's page (found by a review)
        ("List endpoints return 20 results per page.", "The docs site shows 10 posts per page."),
        (
            "Search results are paginated at 10 hits per page.",
            "The log viewer loads 500 lines per page.",
        ),
        ("API list endpoints return 50 items per page.", "The PDF report fits 40 lines per page."),
        ("Return 30 items per page.", "The issue view shows 10 comments per page."),
    ],
)
def test_numbers_of_other_subjects_or_places_stay_silent(root: str, nested: str) -> None:
    assert not chain_findings(root, nested)


@pytest.mark.parametrize(
    ("sentence", "condition"),
    [
        ("Keep PRs under 1000 lines for docs-only PRs.", "for docs-only prs"),
        ("Jobs may take 90 minutes in the nightly pipeline.", "in the nightly pipeline"),
        ("Bump the minor on release branches.", "on release branches"),
        ("Allow 500 words for anything touching the ingestion path.", "for anything touch"),
        # a count of one, every one, a place in an aside, a condition clause (a scope's)
        ("Updates may run to 2,000 lines in one PR.", ""),
        ("Seed: 1234 for every run.", ""),
        ("Return 20 loans per page (clients in branches run on slow kiosks).", ""),
        ("Use 4 workers when running locally.", ""),
    ],
)
def test_a_narrower_condition_is_read_after_the_verb(sentence: str, condition: str) -> None:
    assert narrowing(sentence) == condition


@pytest.mark.parametrize(
    "text",
    [
        "Timeouts: every job sets `timeout-minutes`, 30 at most.",  # a key that ends in its unit
        "Seed: 1234 for every run.",  # a setting whose value is a bare number
    ],
)
def test_a_bare_number_setting_for_every_one_of_its_subject_is_universal(text: str) -> None:
    [setting] = open_settings(text, True)
    assert setting.universal
