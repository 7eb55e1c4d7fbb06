"""Instructions read as normative statements: conventions stated as facts, labelled values,
settings tables with their scope column, subordinate clauses and hedges, and example material
excluded by its structure rather than by a word in its heading."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import is_directive, read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.instructions import covers_whole_repo, extract_instructions


def picks(clause: str) -> set[tuple[str, str]]:
    return {(c.value, c.stance) for c in read_choices(clause)}


def values(text: str) -> list[set[tuple[str, str]]]:
    """The choices of each instruction that makes any, in file order."""
    found = extract_instructions("AGENTS.md", text)
    return [{(c.value, c.stance) for c in i.choices} for i in found if i.choices]


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("Strings use single quotes.", {("single quotes", "prefer")}),
        ("The app uses pnpm.", {("pnpm", "prefer")}),
        ("We're on pnpm.", {("pnpm", "prefer")}),
        ("Our formatter is Prettier.", {("prettier", "prefer")}),
        ("The package manager is `pnpm`.", {("pnpm", "prefer")}),
        ("The minimum supported version is Python 3.11.", {("Python 3.11", "prefer")}),
        ("Indentation is 4 spaces.", {("4 spaces", "prefer")}),
        ("Code is indented with tabs.", {("tabs", "prefer")}),
        ("Tests are run with pytest.", {("pytest", "prefer")}),
        ("Node 20 is required.", {("Node.js 20", "prefer")}),
    ],
)
def test_conventions_stated_as_facts_make_choices(
    clause: str, expected: set[tuple[str, str]]
) -> None:
    assert picks(clause) == expected


@pytest.mark.parametrize(
    "clause",
    [
        "We migrated from Jest to Vitest last year.",
        "This used to use yarn.",
        "Some packages use Jest.",
        "You may use yarn.",
        "You can use yarn for one-off scripts.",
        "Scripts can be run with yarn.",
        "Use yarn if you like.",
        "Optionally use yarn.",
        "Do we use yarn here?",
        "This is an npm workspaces monorepo with TypeScript packages.",
        "Each server is a package published to npm.",
        "`apps/web` uses npm.",
        "pnpm is fast.",
        "`pnpm install` runs in CI.",
        "The legacy app uses yarn.",
        "The docs site uses npm.",
        "The Dockerfile uses npm ci because the base image lacks pnpm.",
        "Renovate opens PRs that use yarn resolutions.",
        "Jest tests are slow.",
    ],
)
def test_narrative_hedges_questions_and_descriptions_make_none(clause: str) -> None:
    assert picks(clause) == set()


def test_stated_conventions_are_directives_but_hedged_and_past_ones_are_not() -> None:
    assert is_directive("Commits follow Conventional Commits")
    assert is_directive("The project builds with Gradle")
    assert is_directive("Tests live in `tests/`")
    assert is_directive("PRs are squash-merged")
    assert is_directive("You must use pnpm") and is_directive("The build has to pass")
    for hedged in ("You may use yarn", "You can run it with Gradle", "This used to use yarn"):
        assert not is_directive(hedged), hedged
    # a bare "X is Y" is a directive only where it names a value (see read_choices)
    assert not is_directive("Jest tests are slow")


def test_a_value_in_a_subordinate_clause_makes_no_choice() -> None:
    assert picks("Use pnpm, even when a README says npm") == {("pnpm", "prefer")}
    assert picks("Use Vitest unless the package already has Jest") == {("vitest", "prefer")}
    assert picks("Use npm except in the docs, where yarn is set up") == {("npm", "prefer")}
    assert picks("Use pnpm (we moved off yarn in 2023)") == {("pnpm", "prefer")}
    # a negated clause keeps what its subordinate clause asks for
    assert picks("Never commit without running `pnpm test`") == {("pnpm", "prefer")}
    assert picks("Don't use npm unless told otherwise") == {("npm", "reject")}
    # alternatives in the main clause are still no choice
    assert picks("Use npm or pnpm") == set()


def test_labelled_values_with_bold_and_dashes() -> None:
    assert values("- **Package manager**: pnpm\n") == [{("pnpm", "prefer")}]
    assert values("- Formatter — Prettier\n") == [{("prettier", "prefer")}]
    assert values("- Indentation – 2 spaces\n") == [{("2 spaces", "prefer")}]
    # a dash after a whole clause still separates clauses
    assert values("- Use pnpm — never npm.\n") == [{("pnpm", "prefer"), ("npm", "reject")}]


SETTINGS = (
    "# Tools\n\n"
    "| Setting | Value |\n"
    "|---------|-------|\n"
    "| Package manager | `pnpm` |\n"
    "| Formatter | Prettier |\n"
)


def test_a_settings_table_gives_one_instruction_per_row_at_the_row() -> None:
    rows = [i for i in extract_instructions("AGENTS.md", SETTINGS) if i.choices]
    assert [{(c.value, c.stance) for c in i.choices} for i in rows] == [
        {("pnpm", "prefer")},
        {("prettier", "prefer")},
    ]
    first = rows[0]
    line = SETTINGS.split("\n")[first.where.start_line]
    assert first.where.start_line == 4
    assert line[first.where.start_column : first.where.end_column] == first.text
    assert first.text == "Package manager | `pnpm`"
    assert first.scope_hint == ""


SCOPED = (
    "| Package | Package manager | Test runner |\n"
    "|---|---|---|\n"
    "| `apps/web` | npm | Jest |\n"
    "| all | pnpm | Vitest |\n"
)


def test_a_scope_column_becomes_the_rows_scope() -> None:
    rows = [i for i in extract_instructions("AGENTS.md", SCOPED) if i.choices]
    assert [(i.scope_hint, sorted(c.value for c in i.choices)) for i in rows] == [
        ("apps/web", ["npm"]),
        ("apps/web", ["jest"]),
        ("all", ["pnpm"]),
        ("all", ["vitest"]),
    ]
    web_npm = rows[0]
    assert (web_npm.where.start_line, web_npm.where.start_column) == (2, 15)
    assert covers_whole_repo("all") and covers_whole_repo("") and covers_whole_repo("`*`")
    assert not covers_whole_repo("apps/web") and not covers_whole_repo("TypeScript")


def test_a_row_scoped_to_one_package_makes_no_conflict_with_the_root_rule() -> None:
    root = ("AGENTS.md", "- Use pnpm.\n- Use Vitest.\n")
    later = ("pkg/AGENTS.md", SCOPED)
    found = find_conflicts([root, later])
    assert [f.rule for f in found] == []
    whole = ("pkg/AGENTS.md", "| Package | Package manager |\n|---|---|\n| all | npm |\n")
    [finding] = find_conflicts([root, whole])
    assert finding.rule == "conflicting-instructions"
    assert (finding.where.start_line, finding.where.start_column) == (2, 8)


def test_tables_that_state_no_settings_are_not_read() -> None:
    text = "| tool | use |\n| --- | --- |\n| npm | Use npm to publish |\n"
    assert values(text) == []
    text = "| Command | Description |\n|---|---|\n| `npm test` | Run the tests |\n"
    assert values(text) == []


def test_an_examples_package_is_read_but_an_examples_section_is_not() -> None:
    package = "# Examples\n\nUse npm in every example.\n\n## Examples package\n\nUse yarn.\n"
    assert values(package) == [{("npm", "prefer")}, {("yarn", "prefer")}]
    place = "# Guide\n\n## Working in `examples/`\n\nUse yarn.\n"
    assert values(place) == [{("yarn", "prefer")}]
    section = "# Guide\n\nUse pnpm.\n\n## Examples\n\nUse npm to install the package.\n"
    assert values(section) == [{("pnpm", "prefer")}]


def test_example_material_is_excluded_by_its_form() -> None:
    text = (
        "# Examples package\n\n"
        "Use pnpm.\n\n"
        "Output:\n\n> I installed it with npm.\n\n"
        "Good:\n\n- use yarn\n\n"
        "- \u2705 `yarn add x`\n- \u274c `bun add x`\n\n"
        '"Use npm for this."\n\n'
        "```sh\nnpm install\n```\n"
    )
    assert values(text) == [{("pnpm", "prefer")}]


def test_a_fragment_under_a_heading_that_names_the_dimension_is_its_value() -> None:
    text = "## Tests\n\nJest with `jest-chrome` for the mocks: `pnpm --filter app\njest`.\n"
    assert values(text) == [{("jest", "prefer")}]
    # a sentence with its own verb, or a heading that names no dimension, is no label
    assert values("## Tests\n\nJest is slow on this machine.\n") == []
    assert values("## History\n\nJest with jsdom, once.\n") == []


def test_a_label_whose_value_wraps_onto_the_next_line() -> None:
    assert values("- Package manager: only\n  pnpm, everywhere.\n") == [{("pnpm", "prefer")}]


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("Our CI runs on Buildkite.", {("Buildkite", "prefer")}),
        ("Background jobs are processed by Sidekiq.", {("Sidekiq", "prefer")}),
        ("Errors are reported to Sentry.", {("Sentry", "prefer")}),
        ("Secrets are stored in Vault.", {("HashiCorp Vault", "prefer")}),
        ("We host on Fly.io.", {("Fly.io", "prefer")}),
        ("Data lives in MySQL.", {("MySQL", "prefer")}),
        ("Docker is our container runtime.", {("Docker", "prefer")}),
        ("Redis is the cache.", {("Redis", "prefer")}),
        ("Postgres is the primary database.", {("PostgreSQL", "prefer")}),
        ("Database: MySQL 8", {("MySQL", "prefer")}),
    ],
)
def test_how_the_project_works_stated_with_any_verb_makes_a_choice(
    clause: str, expected: set[tuple[str, str]]
) -> None:
    assert picks(clause) == expected


@pytest.mark.parametrize(
    "clause",
    [
        "Black is the color of the logo.",
        "React is the reason we picked this stack.",
        "Some jobs are processed by Sidekiq.",
        "The legacy worker is hosted on Heroku.",
        "Jobs were processed by Sidekiq until last year.",
        "Errors may be reported to Sentry.",
        "Follow these patterns for cleaner React Native code.",
    ],
)
def test_a_fact_about_part_of_the_project_or_its_past_chooses_nothing(clause: str) -> None:
    assert picks(clause) == set()


def test_a_fact_with_any_verb_meets_an_imperative_in_another_file() -> None:
    findings = find_conflicts(
        [
            ("/repo/AGENTS.md", "# Ops\n\nBackground jobs are processed by Sidekiq.\n"),
            ("/repo/api/AGENTS.md", "# API\n\n- Use GoodJob for background jobs.\n"),
        ]
    )
    conflicts = [f for f in findings if f.rule == "conflicting-instructions"]
    assert len(conflicts) == 1, findings
    assert "Sidekiq" in conflicts[0].message and "GoodJob" in conflicts[0].message


def test_a_clause_that_refers_back_to_a_place_chooses_nothing_everywhere() -> None:
    assert picks("Don't add RSpec files there.") == set()
    assert picks("Never use Jest in that package.") == set()
    assert picks("Don't use Jest.") == {("jest", "reject")}


def _choices_of(text: str) -> list[tuple[str, str]]:
    found = extract_instructions("/repo/AGENTS.md", text + "\n", whole=True)
    return [(c.dimension, c.value) for i in found for c in i.choices if c.stance == "prefer"]


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Background jobs (all of them) use Celery.", "Celery"),
        ("Tests (unit and integration) run with pytest.", "pytest"),
        ("Formatting (every language we ship) is done by Prettier.", "prettier"),
        ("Outbound calls (to the payment provider) go through HTTPoison.", "HTTPoison"),
    ],
)
def test_a_descriptive_aside_in_the_subject_keeps_the_statement(sentence: str, value: str) -> None:
    assert value in [v for _, v in _choices_of(sentence)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Tests (except the e2e suite) use Jest.",
        "Tests (only the legacy ones) use Jest.",
        "Jobs (when they touch billing) go through Celery.",
        "Tests (in packages/api) use Jest.",
    ],
)
def test_an_aside_that_narrows_the_subject_makes_no_choice(sentence: str) -> None:
    assert _choices_of(sentence) == []


def test_a_statement_with_an_aside_meets_the_rule_it_contradicts() -> None:
    root = "# Rules\n\n- Background jobs run on RQ workers; use python-rq.\n"
    child = "# Billing\n\n- Background jobs (all of them, billing too) use Celery.\n"
    findings = find_conflicts([("/r/AGENTS.md", root), ("/r/billing/AGENTS.md", child)])
    assert any("Celery" in f.message for f in findings)


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Dependencies come in through Swift Package Manager only.", "Swift Package Manager"),
        ("Outbound HTTP goes via HTTPoison.", "HTTPoison"),
        ("Packages come via pnpm.", "pnpm"),
    ],
)
def test_what_things_come_in_or_go_through_is_the_choice(sentence: str, value: str) -> None:
    assert value in [v for _, v in _choices_of(sentence)]


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Billing enqueues its jobs with Exq.", "Exq"),
        ("Runs log metrics and artifacts to Weights & Biases.", "Weights & Biases"),
        ("The app sends transactional email through Postmark.", "Postmark"),
        ("Manifests are plain YAML composed with Kustomize.", "Kustomize"),
        ("The worker is a small service deployed with Kamal.", "Kamal"),
        ("Enqueue it with RQ.", "RQ"),
    ],
)
def test_a_verb_with_its_object_before_the_tool_chooses_the_tool(sentence: str, value: str) -> None:
    assert value in [v for _, v in _choices_of(sentence)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Billing never sends emails with SendGrid.",
        "Some services send email through Postmark.",
        "Old jobs were sent with Celery.",
        "The Fetch spec requires implementations to set the mode from the request.",
        "Jobs could send reports to Sentry.",
        "We track RQ numbers in the sheet.",
        "The team ships legacy builds with Webpack.",
        "The platform team deploys the docs site to Netlify.",
    ],
)
def test_a_negated_partial_or_nominal_fact_chooses_no_tool(sentence: str) -> None:
    assert _choices_of(sentence) == []


def test_a_fact_with_its_object_meets_the_rule_it_contradicts() -> None:
    root = "# Rules\n\n- Background jobs run on Oban (Postgres-backed).\n"
    child = "# Billing\n\n- Billing enqueues its jobs with Exq, because it needs Redis.\n"
    findings = find_conflicts([("/r/AGENTS.md", root), ("/r/apps/billing/AGENTS.md", child)])
    assert any("Exq" in f.message and "Oban" in f.message for f in findings), findings


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("After changing dependencies, run `pod install` from the repo root.", "CocoaPods"),
        ("Before each release, run `bundle exec rspec` in this engine.", "rspec"),
        ("After pulling, install the dependencies with `pnpm install`.", "pnpm"),
    ],
)
def test_a_step_that_says_when_keeps_the_instruction_after_it(sentence: str, value: str) -> None:
    assert value in [v for _, v in _choices_of(sentence)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Before using yarn, ask the team.",
        "After a while, we moved to yarn.",
        "After switching to pnpm, the install got faster.",
        "Before the move, some packages used Jest.",
    ],
)
def test_a_step_whose_rest_is_no_instruction_chooses_nothing(sentence: str) -> None:
    assert _choices_of(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Sign-in, sign-up and organisation switching use Clerk.", "Clerk"),
        ("Lint, format and test scripts use pnpm.", "pnpm"),
    ],
)
def test_a_subject_that_lists_its_items_keeps_the_statement(sentence: str, value: str) -> None:
    assert value in [v for _, v in _choices_of(sentence)]


@pytest.mark.parametrize(
    "sentence",
    ["Locally, tests use Jest.", "Honestly, some packages use Jest.", "Today, tests use Jest."],
)
def test_a_comma_that_is_no_list_leaves_the_subject_unread(sentence: str) -> None:
    assert _choices_of(sentence) == []


def test_past_tense_inside_a_quoted_message_is_no_narrative() -> None:
    sentence = 'Host alerts ("your listing was removed") are emails we send with SendGrid.'
    assert "SendGrid" in [v for _, v in _choices_of(sentence)]
    assert _choices_of('Alerts were sent with SendGrid ("legacy").') == []
    assert _choices_of('We moved alerts to SendGrid ("faster").') == []
