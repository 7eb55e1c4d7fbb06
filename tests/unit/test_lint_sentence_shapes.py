"""Values a sentence's shape used to hide from the reader: a rule before a colon (not a
label), a how-to step whose command names the tool, a command entry ("`cmd` — what it
does"), the owner of a value between the preposition and the value, a verbless
"<value> <role> (in <place>)" rule, a bare name before "is the <role>"; and the hard
negatives each shape must leave silent. The sentences are made up for these tests."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts
from tests.clauses import masked_clause


def picks(text: str) -> set[tuple[str, str, str]]:
    plain, masked = masked_clause(text)
    return {(c.dimension, c.value, c.stance) for c in read_choices(plain, masked)}


def conflicts(root: str, nested: str) -> list[str]:
    """The conflict findings of a root file and a nested one, as "rule: line"."""
    chain = [("AGENTS.md", root), ("pkg/AGENTS.md", nested)]
    return [
        f"{f.rule}: {f.where.start_line}"
        for f in find_conflicts(chain)
        if f.rule.startswith("conflicting-instructions")
    ]


# --- a rule before a colon is no label ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Unit tests are Vitest: `pnpm vitest run` from this folder.", ("test-runner", "vitest")),
        ("Local services are run with Podman: one per service.", ("container-runtime", "Podman")),
        ("Log through winston: `const log = createLogger()`.", ("logging-library", "winston")),
        ("Our bundler is Rollup: see `rollup.config.mjs`.", ("bundler", "Rollup")),
        ("Specs are written with RSpec: `bundle exec rspec`.", ("test-runner", "rspec")),
    ],
)
def test_a_rule_before_a_colon_chooses_its_value(text: str, expected: tuple[str, str]) -> None:
    assert (*expected, "prefer") in picks(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Package manager: pnpm", ("package-manager", "pnpm")),
        ("Formatter — Prettier, with the repo's config.", ("formatter", "prettier")),
    ],
)
def test_a_label_without_a_verb_stays_a_label(text: str, expected: tuple[str, str]) -> None:
    assert (*expected, "prefer") in picks(text)


@pytest.mark.parametrize(
    "text",
    [
        "Some packages are tested with Jest: the older ones.",
        "Tests were Jest: we moved on last year.",
        "Specs could be Vitest: nobody decided yet.",
        "Upstream specs are written with Jest.",
        "The Fetch spec requires CORS headers: see the MDN page.",
    ],
)
def test_a_head_that_is_no_rule_chooses_nothing(text: str) -> None:
    assert picks(text) == set()


def test_a_rule_before_a_colon_contradicts_the_root() -> None:
    root = "# Repo\n\n- Tests use Jest.\n"
    nested = "# Package\n\n- Unit tests are Vitest: `pnpm vitest run` from this folder.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- a how-to step names the tool by its command --------------------------------------------


def test_a_how_to_step_chooses_the_tool_its_command_names() -> None:
    assert ("container-runtime", "Podman", "prefer") in picks(
        "Spin the services up with `podman run --rm api`."
    )
    root = "# Repo\n\nWe use Podman for every local container.\n"
    nested = "# Setup\n\n1. Bring the database up with `docker run -d postgres:16`.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


@pytest.mark.parametrize(
    "text",
    [
        "If you have Docker, bring it up with `docker compose up`.",
        "Check with the team before adding jest.",
        "Bring the stack up with the script in `bin/`.",
    ],
)
def test_a_how_to_step_without_a_tool_command_chooses_nothing(text: str) -> None:
    assert picks(text) == set()


# --- a command entry ------------------------------------------------------------------------


def test_a_numbered_command_step_contradicts_the_build_tool() -> None:
    root = "# Repo\n\nThe project builds with Maven.\n"
    nested = (
        "# Service\n\n## Before you push\n\n"
        "1. `./gradlew check` — compiles and runs every test.\n"
        "2. Update the changelog.\n"
    )
    assert conflicts(root, nested) == ["conflicting-instructions: 4"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("`./gradlew check` — compiles and runs every test.", ("jvm-build-tool", "Gradle")),
        ("`yarn test` for the unit tests", ("package-manager", "yarn")),
        ("`npm ci`", ("package-manager", "npm")),
    ],
)
def test_a_command_entry_chooses_its_tool(text: str, expected: tuple[str, str]) -> None:
    assert picks(text) == {(*expected, "prefer")}


@pytest.mark.parametrize(
    "text",
    [
        "`npm install` — never, this repo is on pnpm",
        "`yarn dev` — optional, if you like it",
        "`yarn start` used to boot the server",
        "`npm run build` fails on Node 16",
        "`yarn dev` — only when you work on the old dashboard",
    ],
)
def test_a_command_entry_that_negates_hedges_or_narrates_chooses_nothing(text: str) -> None:
    assert {v for _, v, s in picks(text) if s == "prefer"} <= {"pnpm"}
    assert not any(v in ("npm", "yarn") for _, v, _ in picks(text))


def test_a_file_that_repeats_the_contradicting_tool_is_reported_once() -> None:
    root = "# Repo\n\n- Use pnpm for every package.\n"
    nested = "# App\n\nRun `npm install` first.\n\n## Checks\n\n- `npm run lint`\n- `npm test`\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- the owner of a value after the preposition ---------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We log with the standard library's `log/slog`.",
        "Log through Go's `log/slog` everywhere.",
    ],
)
def test_a_value_after_its_owner_is_the_tool(text: str) -> None:
    assert picks(text) == {("logging-library", "slog", "prefer")}


def test_an_owner_before_a_value_contradicts_the_root() -> None:
    root = "# Repo\n\n- Log through zerolog in every service.\n"
    nested = "# Ingest\n\nWe log with the standard library's `log/slog` here.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


def test_an_owner_without_a_value_chooses_nothing() -> None:
    assert picks("Log in with the admin's GitHub account.") == set()


# --- a verbless "<value> <role>" rule -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Four-space indentation in Python files.", ("indentation", "4 spaces")),
        ("Prettier formatting across the repository.", ("formatter", "prettier")),
        ("Vitest test runner for the web app.", ("test-runner", "vitest")),
    ],
)
def test_a_value_and_its_role_without_a_verb_is_a_rule(
    text: str, expected: tuple[str, str]
) -> None:
    assert (*expected, "prefer") in picks(text)


@pytest.mark.parametrize(
    "text",
    [
        "Four-space indentation is what the old linter wanted.",
        "Four-space indentation in files that predate the formatter.",
        "Prettier formatting breaks our Markdown tables.",
        "Jest tests are slow.",
        "PostgreSQL database in production, SQLite in tests.",
    ],
)
def test_a_value_and_its_role_in_a_description_chooses_nothing(text: str) -> None:
    assert picks(text) == set()


def test_a_verbless_indentation_rule_contradicts_the_root() -> None:
    root = "# Repo\n\n- Indent with 2 spaces.\n"
    nested = "# Tools\n\nFour-space indentation in Python files here.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- "<value> is the <role>" --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("`develop` is the base branch for every PR.", ("pr-base-branch", "develop")),
        ("`trunk` is our base branch.", ("pr-base-branch", "trunk")),
        ("Biome is the formatter we use.", ("formatter", "biome")),
    ],
)
def test_a_value_before_its_role_is_chosen(text: str, expected: tuple[str, str]) -> None:
    assert picks(text) == {(*expected, "prefer")}


@pytest.mark.parametrize(
    "text",
    [
        "Black is the formatter our dependency uses.",
        "Prettier is the formatter that the vendored SDK expects.",
        "`develop` is the integration branch.",
        "main is the default.",
    ],
)
def test_a_value_before_another_projects_role_chooses_nothing(text: str) -> None:
    assert picks(text) == set()


def test_a_bare_branch_name_contradicts_the_root_base_branch() -> None:
    root = "# Repo\n\n- Open pull requests against `main`.\n"
    nested = "# Docs\n\n`develop` is the base branch for every docs PR.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- alternatives, examples and other languages stay silent ---------------------------------


@pytest.mark.parametrize(
    "nested",
    [
        "# Package\n\nUse a formatter such as Biome or dprint if Prettier is too slow.\n",
        "# Package\n\n- **Formatter** — `<your formatter>` (fill in when you fork).\n",
        "# Package\n\n## Examples\n\n- Biome is the formatter for this package.\n",
        "# Package\n\nWe used to run Biome here.\n",
        "# Package\n\nBlack is the formatter for the Python scripts in this package.\n",
    ],
)
def test_alternatives_examples_placeholders_and_other_ecosystems_stay_silent(
    nested: str,
) -> None:
    root = "# Repo\n\n- **Formatter** — Prettier (`npx prettier --write .`).\n"
    assert conflicts(root, nested) == []


# --- one definition of the negation cues for both readers -----------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Shouldn\u2019t use yarn in this repo.", ("package-manager", "yarn")),
        ("We never squash-merge pull requests.", ("merge-strategy", "squash merge")),
        ("Stop squash-merging PRs.", ("merge-strategy", "squash merge")),
    ],
)
def test_both_readers_reject_after_the_same_negation_cues(
    text: str, expected: tuple[str, str]
) -> None:
    assert picks(text) == {(*expected, "reject")}


def test_disabling_a_tool_in_a_prohibition_rejects_no_tool() -> None:
    assert picks("Never cast with `as any` or disable ESLint.") == set()


# --- "<role> via <value>", "<value> only" ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Formatting via Prettier.", ("formatter", "prettier")),
        ("Unit tests with Vitest, snapshots next to the file.", ("test-runner", "vitest")),
        ("Logging through structlog.", ("logging-library", "structlog")),
        ("yarn only.", ("package-manager", "yarn")),
    ],
)
def test_a_terse_rule_names_its_value(text: str, expected: tuple[str, str]) -> None:
    assert picks(text) == {(*expected, "prefer")}


@pytest.mark.parametrize(
    "text",
    [
        "Testing with Jest is slow on CI.",
        "Logging with winston was dropped last year.",
        "Questions via Slack.",
        "Testing with Jest and Vitest.",
        "Formatting with Prettier, but not for Markdown.",
    ],
)
def test_a_terse_phrase_that_describes_chooses_nothing(text: str) -> None:
    assert {(d, v) for d, v, s in picks(text) if s == "prefer"} == set()


def test_a_terse_rule_contradicts_the_root() -> None:
    root = "# Repo\n\n- Log with winston.\n"
    nested = "# Worker\n\n- Logging through pino, one logger per job.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- a role named without its ecosystem word ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Maven is the build tool for this module.", ("jvm-build-tool", "Maven")),
        ("Build tool: Gradle.", ("jvm-build-tool", "Gradle")),
    ],
)
def test_a_role_is_named_without_the_ecosystem_its_value_says(
    text: str, expected: tuple[str, str]
) -> None:
    assert picks(text) == {(*expected, "prefer")}


# --- a table of tools and what each is for --------------------------------------------------


def test_a_tool_and_purpose_table_chooses_the_tool_its_purpose_names() -> None:
    root = "# Repo\n\n| Tool | Purpose |\n|---|---|\n| Jest | tests |\n| tsup | bundling |\n"
    nested = "# Package\n\n- Unit tests are Vitest here.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


def test_a_tool_table_whose_purpose_names_another_role_chooses_nothing() -> None:
    root = "# Repo\n\n| Tool | Purpose |\n|---|---|\n| Jest | snapshot diffs in the docs |\n"
    nested = "# Package\n\n- Unit tests are Vitest here.\n"
    assert conflicts(root, nested) == []


def test_a_tool_run_through_a_runner_is_chosen_too() -> None:
    assert ("test-runner", "rspec", "prefer") in picks("Run them with `bundle exec rspec`.")
    root = "# Repo\n\n- We write tests with Minitest.\n"
    nested = "# Engine\n\nRun the suite with `bundle exec rspec` from this folder.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


def test_a_repeated_value_does_not_hide_a_contradiction_on_another_role() -> None:
    root = "# Repo\n\n- Use pnpm for every package.\n- Indent with 2 spaces.\n"
    nested = "# App\n\n- Run `npm ci`.\n- `npm test`\n- Indent with 4 spaces.\n"
    assert conflicts(root, nested) == [
        "conflicting-instructions: 2",
        "conflicting-instructions: 4",
    ]


def test_a_bold_label_with_a_dash_contradicts_a_value_named_before_its_role() -> None:
    root = "# Repo\n\n- **Formatter** — Prettier (`npx prettier --write .`), default preset.\n"
    nested = "# Package\n\nBiome is the formatter for this package.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


def test_an_imperative_after_so_is_a_clause_of_its_own() -> None:
    """ ", so <imperative>" opens a new clause: the instruction after it is read as one."""
    found = conflicts(
        "- New services use Gradle.\n",
        "- The release tooling only understands Maven, so use Maven in this module.\n",
    )
    assert found == ["conflicting-instructions: 0"]


def test_so_before_a_description_opens_no_instruction() -> None:
    assert (
        conflicts(
            "- New services use Gradle.\n",
            "- The old importer was built with Maven, so it still has a `pom.xml`.\n",
        )
        == []
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Name new files in PascalCase.", ("naming-files", "PascalCase files", "prefer")),
        (
            "File names are kebab-case (`content-type.resolver.ts`).",
            ("naming-files", "kebab-case files", "prefer"),
        ),
    ],
)
def test_a_naming_case_for_files_is_read_from_the_words_outside_code(
    text: str, expected: tuple[str, str, str]
) -> None:
    """'Name' is a verb that chooses; a word inside code ('type' of `content-type`) is no
    subject the case is said for."""
    assert expected in picks(text)


def test_two_file_naming_cases_conflict() -> None:
    assert conflicts(
        "- File names are kebab-case (`content-type.resolver.ts`).\n",
        "- Name new files in PascalCase (`AssetUploader.ts`) to match the class inside.\n",
    ) == ["conflicting-instructions: 0"]


def test_a_role_context_word_may_stand_in_the_section_heading() -> None:
    """Commit tense needs the word "commit" to be about commits; under a "Commits" heading
    the sentence need not repeat it."""
    root = "# Project\n\n- Describe what the commit did in past tense.\n"
    nested = "# Package\n\n## Commits\n\n- Write the subject in the imperative mood.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 4"]


def test_a_heading_without_the_context_word_gives_no_context() -> None:
    root = "# Project\n\n- Describe what the commit did in past tense.\n"
    nested = "# Package\n\n## Docs\n\n- Write the summary in the imperative mood.\n"
    assert conflicts(root, nested) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Prettier formats every TS/JS/JSON/MD file.", ("formatter", "prettier", "prefer")),
        ("Vite bundles the app.", ("bundler", "Vite", "prefer")),
    ],
)
def test_a_tool_that_does_its_roles_work_as_the_subject_is_chosen(
    text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in picks(text)


@pytest.mark.parametrize(
    "text",
    [
        "Prettier does not format the generated files.",
        "Webpack built the old bundle.",
        "Vite bundles are cached between runs.",
    ],
)
def test_a_tool_named_with_a_negated_past_or_other_subject_work_is_no_choice(text: str) -> None:
    # no tool chosen at all: a check by value name would miss a catalogue name's own casing
    assert not any(stance == "prefer" for _, _, stance in picks(text))


def test_a_tool_doing_the_work_contradicts_another_tool_of_its_role() -> None:
    assert conflicts(
        "- Prettier formats every TS/JS file (`pnpm format`).\n",
        "- Biome is the formatter and linter for this app.\n",
    ) == ["conflicting-instructions: 0"]


# --- the PR base branch, and where another branch is merged ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The mobile team works on a release train: base your PRs on `develop`, which is merged "
        "into `main` at each store release.",
        "Target your PRs at `develop`, which is merged into `main` before a release.",
        "Base all pull requests on develop.",
    ],
)
def test_the_branch_prs_are_based_on_is_chosen_not_where_it_is_merged(text: str) -> None:
    chosen = {pick for pick in picks(text) if pick[0] == "pr-base-branch"}
    assert chosen == {("pr-base-branch", "develop", "prefer")}


@pytest.mark.parametrize(
    "text",
    [
        "Release branches are merged back into `main` after the tag.",
        "The base of the lamp is painted.",
        "`develop`, which is merged into `main` weekly, holds the integration builds.",
    ],
)
def test_where_another_branch_is_merged_chooses_no_base_branch(text: str) -> None:
    assert ("pr-base-branch", "main", "prefer") not in picks(text)


def test_a_release_train_base_branch_contradicts_the_root() -> None:
    root = "# Repo\n\n- Open every PR against `main`.\n"
    nested = (
        "# Mobile\n\nWe ship on a store train: base your PRs on `develop`, which is merged into "
        "`main` at each release.\n"
    )
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- the shape of log lines; a work verb that opens a subject --------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Log lines are human-readable text: `%(asctime)s %(message)s`.", "plain-text logs"),
        ("Logs are one JSON object per line.", "JSON logs"),
        ("Our log format is logfmt.", "logfmt"),
    ],
)
def test_the_shape_of_log_lines_is_chosen(text: str, expected: str) -> None:
    assert picks(text) == {("log-format", expected, "prefer")}


@pytest.mark.parametrize(
    "text",
    [
        "The export endpoint writes one JSON object per line.",  # no log: a file format
        "Build output is ignored by git.",
        "Test files are named after the module.",
    ],
)
def test_a_subject_opened_by_a_work_verb_or_a_file_format_chooses_no_log_format(
    text: str,
) -> None:
    assert not {pick for pick in picks(text) if pick[0] == "log-format"}


def test_a_work_verb_before_what_is_stays_an_imperative() -> None:
    assert ("js-linter", "ESLint", "prefer") in picks("Lint what is staged with ESLint.")


def test_a_plain_text_log_contradicts_json_logs_under_a_logging_heading() -> None:
    root = "# Repo\n\n## Logging\n\n- Output format: one JSON object per line, always.\n"
    nested = "# Ingest\n\n## Logging\n\n- Log lines are human-readable text: `%(message)s`.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 4"]


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        ("The app's logger starts at info level.", "The SDK's logger starts at warning level."),
        ("Default log level is warn.", "The request logger middleware starts at info level."),
    ],
)
def test_the_level_another_component_starts_at_is_no_default_of_the_project(
    root: str, nested: str
) -> None:
    assert conflicts(f"# Repo\n\n- {root}\n", f"# Pkg\n\n- {nested}\n") == []


def test_the_rule_after_which_is_why_is_read_for_itself() -> None:
    root = "# Repo\n\n- Write commit subjects in the imperative mood.\n"
    nested = (
        "# Docs\n\nRelease notes are cut from the log, which is why we word commit subjects "
        "in the past tense.\n"
    )
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


# --- signing commits; a negated copula -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Sign every commit with my GPG key (`git commit -S`).",
            ("commit-signing", "GPG-signed commits", "prefer"),
        ),
        (
            "Commits made by the coding agent are not GPG-signed: the bot has no key.",
            ("commit-signing", "GPG-signed commits", "reject"),
        ),
        ("Our formatter is not Prettier.", ("formatter", "prettier", "reject")),
    ],
)
def test_signing_with_a_key_and_a_negated_copula_are_read(
    text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in picks(text)


@pytest.mark.parametrize(
    "text",
    [
        "The signing key is not loaded in CI.",
        "Sign in with your GitHub account.",
        "The answer is not the formatter's business.",
    ],
)
def test_a_negated_copula_or_sign_in_without_a_value_chooses_nothing(text: str) -> None:
    assert picks(text) == set()


def test_an_unsigned_bot_contradicts_a_global_signing_rule() -> None:
    root = "# Me\n\n- Sign every commit with my GPG key (`git commit -S`).\n"
    nested = "# Repo\n\nCommits made by the coding agent are not GPG-signed.\n"
    assert conflicts(root, nested) == ["conflicting-instructions: 2"]


@pytest.mark.parametrize(
    "nested",
    [
        "Dependabot's PRs are merged into `develop` first and reach `main` with the next release.",
        "Crowdin opens its own PRs against `main`; do not retarget them.",
        "Design tokens come from the `acme/tokens` repo, whose PRs target `main`.",
        "Docs live in the `acme/docs` repo; open your PRs there against `main`.",
    ],
)
def test_prs_of_a_bot_or_another_repository_choose_no_base_branch(nested: str) -> None:
    root = "# Repo\n\n- Target your PRs at `develop`.\n"
    assert conflicts(root, f"# Pkg\n\n{nested}\n") == []
