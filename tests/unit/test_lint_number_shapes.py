"""Numbers and process values in the shapes a plain reading misses: a number wrapped onto the
next line of its paragraph, a bound stated by negating a comparison, a count written as "a
single", a kind of limit its unit names, a rate bounded by its unit alone."""

from __future__ import annotations

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts


def picks(clause: str) -> set[tuple[str, str, str]]:
    return {(c.dimension, c.value, c.stance) for c in read_choices(clause)}


def pair(root: str, child: str, path: str = "services/api/AGENTS.md") -> list[str]:
    """The dimensions of the conflicts between a root file and a folder's file."""
    findings = find_conflicts([("AGENTS.md", root + "\n"), (path, child + "\n")])
    return [str(f.data.get("dimension")) for f in findings if f.rule == "conflicting-instructions"]


def test_a_number_wrapped_onto_the_next_line_of_its_paragraph_is_read() -> None:
    wrapped = "Outbound requests to the providers time out after\n10 seconds; slower is an outage."
    assert picks(wrapped) == {("http-timeout", "10 s", "prefer")}
    assert pair("Outbound HTTP requests time out after 30 s.", wrapped) == ["http-timeout"]
    # the same value in another unit, wrapped, is no conflict
    assert pair("Outbound HTTP requests time out after 10000 ms.", wrapped) == []
    # a wrapped description stays one
    assert picks("Outbound requests usually time out after\n10 seconds.") == set()


def test_a_negated_comparison_states_a_bound_it_rejects_nothing() -> None:
    assert picks("Tasks must not run longer than 30 minutes.") == {
        ("job-timeout", "30 min", "prefer")
    }
    assert picks("Never let a CI job run longer than 20 minutes.") == {
        ("job-timeout", "20 min", "prefer")
    }
    assert picks("Don't retry requests more than 3 times.") == {("request-retries", "3", "prefer")}
    assert picks("Never merge with fewer than two approvals.") == {
        ("required-approvals", "2", "prefer")
    }
    # "may" after a subject opened by "no" forbids, it does not hedge
    assert picks("No task may run longer than 30 minutes; split long work instead.") == {
        ("job-timeout", "30 min", "prefer")
    }
    assert pair(
        "No CI job may run longer than 30 minutes.", "CI jobs take at most 45 minutes."
    ) == ["job-timeout"]
    # a comparison the other way round bounds nothing of the role, and a hedge stays one
    assert picks("Never merge with more than two approvals.") == set()
    assert picks("Tasks must not run shorter than 30 minutes.") == set()
    assert picks("Jobs may run longer than 30 minutes.") == set()
    assert (
        pair("No CI job may run longer than 30 minutes.", "CI jobs take at most 30 minutes.") == []
    )


def test_a_keyed_number_takes_its_unit_in_words() -> None:
    row = "| setting | value |\n|---|---|\n| execution_timeout | 30 minutes |\n"
    prose = "No task may run longer than 30 minutes.\n"
    findings = find_conflicts([("AGENTS.md", row + "\n" + prose)])
    assert findings == []
    assert picks("Set `execution_timeout: 30 minutes` for every task.") == {
        ("job-timeout", "30 min", "prefer")
    }


def test_a_single_counted_thing_is_a_count_of_one() -> None:
    assert picks("A single approval from anyone on the team is enough to merge changes.") == {
        ("required-approvals", "1", "prefer")
    }
    assert pair(
        "Every PR needs two approving reviews.", "A single approval is enough to merge."
    ) == ["required-approvals"]
    # one approval said twice is no conflict; "single" before no counted noun counts nothing
    assert (
        pair("Every PR needs one approving review.", "A single approval is enough to merge.") == []
    )
    assert picks("Keep each import on a single line.") == set()
    assert picks("Squash the PR into a single commit before you merge.") == set()
    assert picks("Merge single-approval PRs only in the sandbox.") == set()


def test_a_bound_on_a_rate_unit_is_a_rate_limit_without_a_subject() -> None:
    polled = "Poll carrier APIs at no more than 200 req/s; the carriers raised our quota."
    assert picks(polled) == {("rate-limit-per-second", "200", "prefer")}
    root = "Calls to partner APIs are rate limited to 50 requests per second per partner."
    assert pair(root, polled) == ["rate-limit-per-second"]
    assert pair("Partner API calls are rate limited to 200 requests per second.", polled) == []
    # a rate without a bound, a measurement, or a range states no limit
    assert picks("We serve 2000 requests per second.") == set()
    assert picks("The crawler usually sends up to 5 req/s.") == set()
    assert picks("Send between 10 and 20 req/s during the load test.") == set()
    # a bound on another unit is no rate limit
    assert picks("Poll carrier APIs at no more than 200 times a day.") == set()


def test_a_size_limit_of_a_container_is_its_memory_limit() -> None:
    tiles = "Run the renderer with `-Xmx2g`; the container limit for tiles is 2 GiB."
    assert picks(tiles) == {("memory-limit", "2 GB", "prefer")}
    assert pair(
        "Each service container gets a 512 MiB memory limit.", tiles, "tiles/AGENTS.md"
    ) == ["memory-limit"]
    assert pair("Each container gets a 2048 MiB memory limit.", tiles, "tiles/AGENTS.md") == []
    # the unit says what kind of limit it is; a limit of another thing is not the memory's
    assert picks("The container limit is 2 CPUs.") == set()
    assert picks("The task limit is 30 minutes.") == set()
    assert picks("The log limit per container is 10 MB.") == set()
    assert picks("Keep the container image under 200 MB.") == set()


def test_the_language_commit_messages_are_written_in_is_a_choice() -> None:
    german = "Commit messages are written in German (Team-Sprache), e.g. `Rezeptimport: fix`."
    assert picks(german) == {("commit-message-language", "German", "prefer")}
    assert pair("Write commit messages in English.", german) == ["commit-message-language"]
    assert pair("Write commit messages in English.", "Commit messages are in English.") == []
    # the reply language, or a language named near commits for something else, is another
    assert picks("Reply in German.") == {("response-language", "German", "prefer")}
    assert pair("Write commit messages in English.", "Reply in German.") == []
    assert picks("The commit log in German is hard to read.") == set()
    assert picks("Commit messages follow Conventional Commits; write docs in English.") == {
        ("commit-convention", "Conventional Commits", "prefer")
    }


def test_emoji_banned_in_german_or_written_into_the_output_are_the_emoji_policy() -> None:
    assert picks("Keine Emojis in Antworten.") == {("emoji-policy", "emoji", "reject")}
    status = "End every task with a status list using ✅ for done and ❌ for blocked."
    assert picks(status) == {("emoji-policy", "emoji", "prefer")}
    assert pair("Never use emoji in replies.", status) == ["emoji-policy"]
    assert pair(
        "Keine Emojis in Antworten.", "Start every reply with a status emoji: ✅ done."
    ) == ["emoji-policy"]
    # emoji in commits, docs or a description of the product, a ban, or "keine" elsewhere
    assert picks("Prefix commit subjects with ✨ for features.") == set()
    assert picks("Mark finished tasks with ✅ in the tracker docs.") == set()
    assert picks("The status page shows ✅ for healthy regions.") == set()
    assert picks("Never start replies with ✅.") == set()
    assert picks("Keine Emojis in Commit-Nachrichten.") == set()
    assert pair("Never use emoji in replies.", "Start every reply with a plain status line.") == []


def test_a_date_written_by_example_states_its_format() -> None:
    named = '"Available since" dates are written like March 4, 2026.'
    assert picks(named) == {("timestamp-format", "month-name dates", "prefer")}
    assert picks("Write dates like 4 March 2026 in the docs.") == {
        ("timestamp-format", "month-name dates", "prefer")
    }
    assert picks("Format dates as `2026-03-04`.") == {("timestamp-format", "ISO 8601", "prefer")}
    assert pair("Write dates as ISO 8601 (`2026-03-04`) everywhere.", named) == ["timestamp-format"]
    assert pair("Write dates as ISO 8601 everywhere.", "Format dates as `2026-03-04`.") == []
    # a date in a story, an example of a problem, or a ban states no format
    assert picks("The release happened on March 4, 2026.") == set()
    assert picks("Dates such as March 4, 2026 confuse the parser.") == set()
    assert picks("The changelog was written on March 4, 2026.") == set()
    assert picks("Don't write dates like March 4, 2026.") == set()


def test_a_requirement_on_every_one_of_a_kind_is_a_rule() -> None:
    dco = "Every commit needs a DCO sign-off (`git commit -s`); the DCO app blocks PRs without it."
    assert ("dco", "DCO sign-off", "prefer") in picks(dco)
    assert pair(dco, "Don't add `Signed-off-by` trailers to commits here.") == ["dco"]
    assert picks("All PRs need a changeset.") == {("changelog-tool", "Changesets", "prefer")}
    # a need that is not a rule of every one, or a waived step, chooses nothing
    assert picks("Some commits need a DCO sign-off.") == set()
    assert picks("No changeset is needed for docs-only PRs.") == set()
