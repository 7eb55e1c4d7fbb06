"""The catalogue compiled into one pass over a clause: what each kind of role finds, what
coexists, how numbers compare with their units, which commands imply a tool, and that the
matcher stays linear on hostile text."""

from __future__ import annotations

import time

from pi_lsp.lint.catalogue import load_catalogue, merge, parse_roles
from pi_lsp.lint.choices import Choice, contradicts, read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.numbers import numeric_value
from pi_lsp.lint.vocabulary import Vocabulary, current, using
from tests.clauses import masked_clause


def choices(text: str) -> list[Choice]:
    return read_choices(*masked_clause(text))


def picks(text: str) -> set[tuple[str, str, str]]:
    return {(c.dimension, c.value, c.stance) for c in choices(text)}


def conflict(a: str, b: str) -> bool:
    return any(contradicts(x, y) for x in choices(a) for y in choices(b))


def test_an_exclusive_choice_conflicts_within_one_role() -> None:
    assert conflict("Use zod for validation.", "Use yup for validation.")
    assert conflict("Use Unleash for feature flags.", "Feature flags: LaunchDarkly.")
    assert conflict("Use winston for logging.", "Use pino for logs.")
    assert not conflict("Use zod for validation.", "Use zod schemas everywhere.")


def test_values_in_different_groups_coexist() -> None:
    assert picks("Use pytest.") == {("test-runner", "pytest", "prefer")}
    assert not conflict("Use pytest.", "Use vitest.")
    assert not conflict("Use pydantic for validation.", "Use zod for validation.")
    assert conflict("Use pytest.", "Use unittest.")


def test_numbers_are_compared_with_their_units() -> None:
    assert numeric_value("30000", "ms", "duration") == "30 s"
    assert numeric_value("1.5", "min", "duration") == "90 s"
    assert numeric_value("10", "MB", "size") == "10 MB"
    assert numeric_value("10240", "kb", "size") == "10 MB"
    assert not conflict("HTTP timeout: 30 s.", "Set the request timeout to 30000 ms.")
    assert conflict("HTTP timeout: 30 s.", "HTTP timeout: 15 s.")
    # a different subject with the same number and unit is another role
    assert not conflict("Database statement timeout: 5 s.", "Outbound HTTP timeout: 15 s.")


def test_maximum_minimum_and_default_numbers() -> None:
    assert picks("The maximum upload size is 10 MB per file.") == {
        ("upload-limit", "10 MB", "prefer")
    }
    assert conflict("The maximum upload size is 10 MB.", "Uploads up to 25 MB are accepted.")
    assert conflict("Minimum coverage is 80% lines.", "The coverage threshold is 60%.")
    assert not conflict("Minimum coverage is 80%.", "Coverage must stay at 80 percent.")
    assert conflict("Default page size: 50 items.", "Use a page size of 100 items.")
    assert load_catalogue().by_name["page-size"].kind == "default"
    assert load_catalogue().by_name["coverage-threshold"].kind == "minimum"


def test_two_different_version_floors_conflict() -> None:
    assert picks("Use Go 1.21.") == {("go-version", "Go 1.21", "prefer")}
    assert conflict("Use Go 1.21.", "Use Go 1.23.")
    assert not conflict("Use Go 1.21.", "Target Go 1.21 everywhere.")
    assert conflict("Use Java 17.", "Use JDK 21.")
    assert load_catalogue().by_name["go-version"].kind == "floor"


def test_commands_imply_their_tool() -> None:
    assert ("jvm-build-tool", "Gradle", "prefer") in picks("Run `./gradlew build` first.")
    assert ("jvm-build-tool", "Maven", "prefer") in picks("Run `mvn verify` before pushing.")
    assert ("test-runner", "nextest", "prefer") in picks("Run `cargo nextest run`.")
    assert ("python-env-tool", "uv", "prefer") in picks("Run `uv run pytest`.")
    assert ("python-env-tool", "poetry", "prefer") in picks("Run `poetry run mypy`.")
    assert ("package-manager", "bun", "prefer") in picks("Run `bunx tsc --noEmit`.")
    assert ("package-manager", "pnpm", "prefer") in picks("Run `pnpm lint`.")
    assert conflict("Run `./gradlew test`.", "Build with Maven.")
    # avoiding one command is not a rule against the tool
    assert picks("Avoid `make test` between edits.") == set()


def test_ordinary_words_count_only_as_a_tool() -> None:
    assert picks("The sky is black.") == set()
    assert ("formatter", "black", "prefer") in picks("Use black to format Python.")
    assert picks("Click the button to deploy.") == set()
    assert ("cli-framework", "Click", "prefer") in picks("Use click for the CLI.")
    assert picks("Express your intent clearly.") == set()
    assert ("web-framework-js", "Express", "prefer") in picks("Use Express for the API.")
    # a name inside a longer name of another role is that other role
    assert ("frontend-framework", "React", "reject") not in picks(
        "Prefer Zustand selectors over React Context."
    )
    assert picks("Do not install `react@canary`.") == set()
    # words that are also commands, folders named as files, a bundler that is not Bundler
    assert picks("Every change should serve all users, not just one.") == set()
    assert ("task-runner", "make", "prefer") in picks("Use make for the build.")
    assert picks("Update SUPPORTED in tests/test_settings.py first.") == set()
    assert ("test-location", "separate tests/ folder", "prefer") in picks("Write tests in tests/.")
    assert picks("Use external modules so the bundler can skip them.") == set()
    assert picks("Use `Intl.NumberFormat('en-US')` for prices.") == set()


def test_a_user_role_extends_the_catalogue() -> None:
    roles, errors = parse_roles(
        [
            {"name": "queue", "label": "message queue", "values": ["Zephyrbus", "Quokkamq"]},
            {"name": "bundler", "values": [{"name": "Farm", "aka": ["farm"]}]},
        ]
    )
    assert errors == []
    mine = Vocabulary(merge(load_catalogue(), roles), "mine")
    chain = [
        ("/ws/AGENTS.md", "# Rules\n\n- Use Zephyrbus for events.\n"),
        ("/ws/svc/AGENTS.md", "# Service\n\n- Use Quokkamq for events.\n"),
    ]
    assert find_conflicts(chain) == []  # read, and remembered, with the shipped catalogue
    with using(mine):
        assert conflict("Use Zephyrbus for events.", "Use Quokkamq for events.")
        assert conflict("Use Vite for bundling.", "Use Farm as the bundler.")
        assert [f.rule for f in find_conflicts(chain)] == ["conflicting-instructions"]
    assert current() is not mine


def _seconds(call: object, text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        current().find(text)
        best = min(best, time.process_time() - start)
    return best


def test_the_matcher_is_linear_on_hostile_text() -> None:
    """Runs of alias words, half-aliases and separators: ten times the text costs about ten
    times the time (a quadratic matcher would cost a hundred)."""
    fillers = [
        "uv run ",
        "react native react ",
        "the fetch the fetch ",
        "./gradlew./gradlew",
        "a-b.c/d@e ",
        "timeout 1 timeout ",
        "python 3.1 python 3.",
        "coverage coverage 8",
        "in tests/ in tests",
        "use use use ",
    ]
    for filler in fillers:
        small = filler * (2_000 // len(filler))
        large = filler * (20_000 // len(filler))
        ratio = _seconds(None, large) / max(_seconds(None, small), 1e-6)
        assert ratio < 30, (filler, ratio)


def test_the_case_of_a_git_flag_tells_signing_from_sign_off() -> None:
    """`git commit -S` signs the commit, `git commit -s` adds a sign-off trailer: the text is
    matched without case, but these flags are not."""

    def values(text: str) -> set[tuple[str, str]]:
        return {(f.dimension.name, f.value) for f in current().find(text)}

    signed = values("Sign every commit with my GPG key (`git commit -S`).")
    assert ("commit-signing", "GPG-signed commits") in signed
    assert all(dimension != "dco" for dimension, _ in signed)
    signed_off = values("Every commit needs a sign-off (`git commit -s -m 'fix: x'`).")
    assert ("dco", "DCO sign-off") in signed_off
    assert all(dimension != "commit-signing" for dimension, _ in signed_off)
