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


# --- numbers with their units for one subject (pi_lsp/lint/numbers.py) ----------------------


def pair(root: str, child: str, path: str = "services/api/AGENTS.md") -> list[str]:
    """The dimensions of the conflicts between a root file and a folder's file."""
    return nested(root, child, path)


def test_a_number_is_normalised_to_its_base_unit_however_it_is_written() -> None:
    from pi_lsp.lint.numbers import numeric_value

    assert numeric_value("30_000", "ms", "duration") == "30 s"
    assert numeric_value("30,000", "ms", "duration") == "30 s"
    assert numeric_value("thirty", "seconds", "duration") == "30 s"
    assert numeric_value("1.5", "s", "duration") == "1500 ms"
    assert numeric_value("2m30", "s", "duration") == "150 s"
    assert numeric_value("1h30", "m", "duration") == "90 min"
    assert numeric_value("10k", "", "count") == "10000"
    assert numeric_value("two", "", "count") == "2"
    assert numeric_value("512", "MiB", "size") == "512 MB"
    assert numeric_value("ten", "parsecs", "duration") is None


def test_a_timeout_belongs_to_the_subject_its_words_are_about() -> None:
    assert picks("Outbound API calls get a 15 s timeout.") == {("15 s", "prefer")}
    assert picks("Every outbound `http.Client` gets a timeout of 20 seconds.") == {
        ("20 s", "prefer")
    }
    # a head nothing qualifies is nobody's setting
    assert picks("The timeout is 30 s.") == set()
    http = "Every outbound HTTP request has a 10 s timeout."
    assert pair(http, "Requests to the ledger time out after 25 seconds.") == ["http-timeout"]
    assert pair(http, "Calls to the pricing API use a client timeout of 45 seconds.") == [
        "http-timeout"
    ]
    # the same duration in other units, and code that states it, agree
    assert pair(http, "Configure the client with `timeoutMs: 10_000`.") == []
    assert pair(http, "HTTP calls here time out after 10000 ms.") == []
    assert pair(http, "Outbound requests time out after 10,000 milliseconds.") == []


def test_timeouts_of_different_subjects_stay_silent() -> None:
    http = "Outbound HTTP calls have a 10 s timeout."
    assert pair(http, "Database queries time out after 30 seconds.") == []
    assert pair(http, "Set the Postgres statement timeout to 5 s.") == []
    assert pair(http, "Every CI job has a timeout of 20 minutes.") == []
    assert pair(http, "Jest tests time out after 30 s.") == []
    # but the same subject on both sides conflicts, whoever words it
    # a hedge states no setting
    assert (
        pair("Every SQL query times out after 5 s.", "DB queries may run for a 60 s timeout.") == []
    )
    assert pair("Every SQL query times out after 5 s.", "The query timeout is 60 s.") == [
        "db-statement-timeout"
    ]


def test_a_task_timeout_in_code_compares_with_one_in_prose() -> None:
    root = "Every Airflow task must finish within 3 hours."
    child = "The backfill task sets `execution_timeout=timedelta(hours=8)`."
    assert pair(root, child, "dags/backfill/AGENTS.md") == ["job-timeout"]
    same = "The backfill task sets `execution_timeout=timedelta(minutes=180)`."
    assert pair(root, same, "dags/backfill/AGENTS.md") == []
    # a range is no setting ("takes 5–6 hours" describes a run)
    assert pair(root, "The backfill task takes 5–6 hours to run.", "dags/backfill/AGENTS.md") == []


def test_a_default_and_a_maximum_of_one_subject_are_two_settings() -> None:
    default = "The default page size is 25."
    assert pair(default, "Endpoints here return 40 items per page.") == ["page-size"]
    assert pair(default, "Clients may request up to 100 items per page.") == []
    assert pair(default, "The maximum page size is 100.") == []
    assert pair("The maximum page size is 100.", "The maximum page size is 500.") == [
        "max-page-size"
    ]
    table = "| Setting | Value |\n|---|---|\n| Default page size | 20 |\n| Max page size | 250 |\n"
    assert find_conflicts([("AGENTS.md", table)]) == []
    assert pair(table, "`PAGE_SIZE = 30` in the handlers.") == ["page-size"]


def test_required_approvals_are_counted_in_digits_or_words() -> None:
    root = "Every pull request needs two approvals before merge."
    assert pair(root, "One approval is enough to merge in this package.") == ["required-approvals"]
    assert pair(root, "PRs here need 2 approving reviews.") == []
    assert pair(root, "At least two reviewers must approve each merge.") == []


def test_retries_of_requests_and_of_jobs_are_different_subjects() -> None:
    root = "Retry failed HTTP calls at most 3 times."
    assert pair(root, "Outbound requests are retried up to 5 times.") == ["request-retries"]
    assert pair(root, "Celery tasks retry 5 times before they fail.") == []
    assert pair(root, "Set `max_retries=3` on the HTTP client.") == []
    assert picks("Retries: 3.") == set()  # retries of what?


def test_more_numeric_subjects_are_compared() -> None:
    assert pair("Run at most 4 workers per queue.", "Worker concurrency is 16.") == [
        "worker-concurrency"
    ]
    assert pair("Cache TTL: 5 minutes.", "Redis cache entries expire after 300 seconds.") == []
    assert pair("Cache TTL: 5 minutes.", "Cached responses expire after 1 h.") == ["cache-ttl"]
    assert pair("Access tokens expire after 15 minutes.", "Tokens are valid for 60 minutes.") == [
        "session-lifetime"
    ]
    assert pair("The memory limit is 512 MB.", "Give the pods `memory: 1Gi`.") == ["memory-limit"]
    assert pair("The memory limit is 512 MB.", "Give the pods `memory: 512Mi`.") == []
    assert pair("Insert rows in batches of 500 rows.", "The batch size is 1000.") == ["batch-size"]
    assert pair("Keep logs for 30 days.", "Log retention is 90 days.") == ["log-retention"]
    assert pair("Log retention is 30 days.", "Backups are retained for 90 days.") == []
    assert pair("The p99 latency budget is 200 ms.", "p99 latency must stay under 500 ms.") == [
        "latency-budget"
    ]
    assert pair("The maximum upload size is 25 MB.", "Attachments over 5 MB are linked.") == []


def test_numbers_that_are_no_settings_stay_silent() -> None:
    root = "Outbound HTTP calls have a 10 s timeout."
    # a range, a code block, a version, a date, a list ordinal
    assert pair(root, "HTTP calls take between 2 and 8 seconds on a cold cache.") == []
    fenced = "```ts\nconst client = createClient({ timeoutMs: 90_000 });\n```\n"
    assert pair(root, fenced) == []
    assert pair(root, "Requires axios 1.6 or newer for the HTTP client.") == []
    assert pair(root, "The HTTP client was rewritten on 2024-03-05.") == []
    assert pair(root, "1. Open the HTTP client.\n2. Set a timeout.\n3. Run the tests.") == []
    assert picks("The HTTP timeout doubled in 2023 after 3 incidents.") == set()


def test_a_labelled_value_and_a_comparative_read_by_their_verb() -> None:
    assert pair("- **Default page size** — 20", "Pagination defaults to 30 items per page.") == [
        "page-size"
    ]
    # "below" and "under" say nothing of the kind by themselves: the verb does
    assert pair("CI fails below 85% line coverage.", "Coverage must be at least 70%.") == [
        "coverage-threshold"
    ]
    assert pair("CI fails below 85% line coverage.", "`coverage.thresholds.lines: 85`") == []
    assert pair("Keep PRs under 300 lines.", "PRs may be up to 300 lines.") == []
    assert pair("Keep PRs under 300 lines.", "Pull requests stay under 800 changed lines.") == [
        "pr-size-limit"
    ]


def test_a_key_counts_in_code_or_when_written_as_code() -> None:
    assert picks("Set `maxRetries: 4` on the HTTP client.") == {("4", "prefer")}
    assert picks("Set `WEB_CONCURRENCY=4` on the dynos.") == {("4", "prefer")}
    assert picks("Retries: 4.") == set()  # retries of what?
    assert picks("HTTP retries are described in step 4.") == set()
    # a bare duration in code: milliseconds when it is that large, seconds otherwise
    http = "Outbound HTTP requests time out after 30 seconds."
    assert pair(http, "Pass `timeout: 30000` to the HTTP client.") == []
    assert pair(http, "Pass `timeout=30` to the HTTP client.") == []
    assert pair(http, "Pass `timeout=45` to the HTTP client.") == ["http-timeout"]


def test_a_number_described_or_judged_is_no_setting() -> None:
    http = "Outbound HTTP calls have a 10 s timeout."
    assert pair(http, "The HTTP client timeout used to be 60 s.") == []
    assert pair(http, "HTTP calls to the vendor take about 20 s to answer.") == []
    assert pair(http, "A 45 s timeout is too long for outbound HTTP calls.") == []
    assert (
        pair("Every CI job must finish within 30 minutes.", "CI jobs usually run 12 minutes.") == []
    )
    assert pair("The p99 latency budget is 300 ms.", "Our p99 latency is 120 ms today.") == []
    # a bound stays a rule however it is phrased
    assert pair(
        "Every CI job must finish within 30 minutes.", "Every CI job takes at most 45 minutes."
    ) == ["job-timeout"]


def test_a_default_and_a_bound_of_one_subject_conflict_only_when_the_default_breaks_it() -> None:
    bound = "Outbound HTTP calls time out after at most 60 s."
    assert pair(bound, "HTTP requests default to a 30 s timeout.") == []
    assert pair(bound, "HTTP requests default to a 90 s timeout.") == ["http-timeout"]
    assert pair(bound, "Outbound HTTP calls time out after 90 s.") == ["http-timeout"]
    floor = "Coverage must be at least 80%."
    assert pair(floor, "The coverage threshold defaults to 90%.") == []
    assert pair(floor, "The coverage threshold defaults to 60%.") == ["coverage-threshold"]


def test_a_status_code_or_a_test_runner_s_key_is_no_request_retry() -> None:
    assert picks("HTTP clients retry on 503 with backoff.") == set()
    assert picks("Vitest runs with `retry: 2` for the e2e suite.") == set()
    # a bound written as a sign states its kind: a minimum is no timeout
    assert picks("Give CI jobs a generous timeout (>= 20 minutes).") == set()


def test_a_tool_s_own_default_is_a_fact_not_the_project_s_setting() -> None:
    text = (
        "- Queue jobs set `retry: 4` in their worker options.\n"
        "- Out of the box the queue library retries a failed job 20 times, which is too many.\n"
    )
    assert find_conflicts([("AGENTS.md", text)]) == []
    assert pair("Queue jobs retry at most 4 times.", "Failed jobs are retried 10 times.") == [
        "job-retries"
    ]
