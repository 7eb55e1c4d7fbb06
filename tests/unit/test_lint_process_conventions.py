"""Conventions and process rules for the agent and the repository that the catalogue alone
does not read: emoji used as emoji, free-form commit messages, SQL keyword case, action
pinning, key types. Sentences are made up."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import find_conflicts


def _agent_conflicts(global_text: str, project: str) -> list[str]:
    chain = [
        ("/home/u/.pi/agent/AGENTS.md", f"# Global\n\n- {global_text}\n"),
        ("/work/app/AGENTS.md", f"# App\n\n- {project}\n"),
    ]
    return [f.data["dimension"] for f in find_conflicts(chain) if f.rule.startswith("conflict")]


def _conflicts(root: str, nested: str) -> list[str]:
    chain = [
        ("/r/AGENTS.md", f"# Root\n\n- {root}\n"),
        ("/r/pkg/AGENTS.md", f"# Pkg\n\n- {nested}\n"),
    ]
    return [f.data["dimension"] for f in find_conflicts(chain) if f.rule.startswith("conflict")]


# --- emoji ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("global_text", "project"),
    [
        ("Never use emoji.", "Tick off each completed step with ✅ in your progress notes."),
        ("Don't use emoji at all.", "Mark every finished step with 🎉."),
        (
            "No emoji in answers or code comments.",
            "Progress updates can use emoji so I can scan them: ✅ done, ❌ failed.",
        ),
        ("No emoji, anywhere.", "Replies may include emoji for status."),
    ],
)
def test_an_emoji_character_or_a_permission_meets_a_rule_against_emoji(
    global_text: str, project: str
) -> None:
    assert _agent_conflicts(global_text, project) == ["emoji-policy"]


@pytest.mark.parametrize(
    ("global_text", "project"),
    [
        ("Never use emoji.", "Emoji are fine in the changelog."),
        ("Never use emoji.", "Mark each finished step in `ROADMAP.md` with ✅."),
        ("Never use emoji.", 'Label the step button "✅ Done" in the summary screen.'),
        ("Never use emoji.", "Mark each finished step with `✅` in your progress notes."),
        ("No emoji in replies.", "Commit messages may use emoji."),
        ("Never use emoji in code comments.", "Mark each finished step with ✅."),
        ("Avoid emoji in the docs.", "Status updates may use emoji."),
        ("Never use emoji.", "Status updates used emoji until last year."),
        ("No emoji in replies.", "Status updates may use emoji only in the weekly report."),
    ],
)
def test_emoji_elsewhere_quoted_or_in_code_do_not_conflict(global_text: str, project: str) -> None:
    assert _agent_conflicts(global_text, project) == []


# --- commit message mood --------------------------------------------------------------------


def _section_conflicts(root: str, nested: str) -> list[str]:
    chain = [("/r/AGENTS.md", root), ("/r/pkg/AGENTS.md", nested)]
    return [f.data["dimension"] for f in find_conflicts(chain) if f.rule.startswith("conflict")]


def test_what_was_done_is_the_content_of_a_commit_not_narrative() -> None:
    assert _conflicts(
        "Write commit subjects in the imperative mood.",
        'Commit subjects say what was done, in the past tense: "Fixed login".',
    ) == ["commit-tense"]
    assert (
        _conflicts(
            "Write commit subjects in the imperative mood.",
            "Commit subjects were written in the past tense until 2023.",
        )
        == []
    )


def test_a_commit_section_title_names_the_subject_of_a_mood_rule() -> None:
    root = "# R\n\n## Commit messages\n\n- Subject line in the imperative mood, no period.\n"
    nested = (
        "# P\n\n## Committing here\n\n"
        "- Say what was done in the past tense so the release notes read well.\n"
    )
    assert _section_conflicts(root, nested) == ["commit-tense"]


@pytest.mark.parametrize(
    "nested",
    [
        "# P\n\n## Releases\n\n- Release notes in the past tense.\n",
        "# P\n\n## Releases\n\n- Say what was done in the past tense so users follow.\n",
    ],
)
def test_a_mood_rule_outside_a_commit_section_is_no_commit_rule(nested: str) -> None:
    root = "# R\n\n## Commit messages\n\n- Subject line in the imperative mood, no period.\n"
    assert _section_conflicts(root, nested) == []


# --- free-form commit messages --------------------------------------------------------------


def test_free_form_commit_messages_contradict_a_commit_convention() -> None:
    assert _conflicts(
        "Commit messages follow Conventional Commits.",
        "Commit messages here are free-form; just say what changed.",
    ) == ["commit-convention"]


@pytest.mark.parametrize(
    "nested",
    [
        "The commit body is free-form text after the header.",
        "PR descriptions are free-form.",
        "Use free-form notes in the changelog.",
        "Commit messages are free-form in the body, but the header follows the convention.",
        "Free-form search queries go through `search.parse()`.",
    ],
)
def test_free_form_of_another_text_or_of_a_commit_body_is_silent(nested: str) -> None:
    assert _conflicts("Commit messages follow Conventional Commits.", nested) == []


# --- SQL keyword case -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        ("SQL keywords in upper case.", "Write SQL in lowercase."),
        ("SQL keywords in uppercase: `SELECT id FROM t`.", "SQL is written in lower case."),
    ],
)
def test_the_case_sql_is_written_in_is_its_keyword_case(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == ["sql-keyword-case"]


@pytest.mark.parametrize(
    "nested",
    [
        "SQL files are named in lower case.",
        "Write SQL table names in lower case.",
        "Column names in SQL are lower case.",
        "SQL identifiers in lower case.",
    ],
)
def test_other_parts_of_sql_in_lower_case_are_silent(nested: str) -> None:
    assert _conflicts("SQL keywords in upper case.", nested) == []


# --- how CI refers to actions ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        (
            "Pin every third-party action to a full commit SHA.",
            "Reference actions by their major tag (`actions/setup-go@v5`).",
        ),
        ("Pin actions to a full commit SHA.", "Refer to actions by major tags."),
    ],
)
def test_a_sha_pin_and_a_tag_for_actions_conflict(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == ["action-pinning"]


@pytest.mark.parametrize(
    "nested",
    [
        "Docker images use major tags, never latest.",
        "Release actions run on version tags.",
        "Do not reference actions by their major tag.",
        "Pin every action to a full commit SHA, with the tag in a comment.",
    ],
)
def test_tags_of_other_things_or_agreeing_pins_are_silent(nested: str) -> None:
    assert _conflicts("Pin actions to a full commit SHA.", nested) == []


# --- primary key type -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("root", "nested"),
    [
        ("Primary keys are UUIDv7, generated in the application.", "Primary keys are `bigserial`."),
        (
            "Primary keys are UUIDv4.",
            "Tables use `bigint GENERATED ALWAYS AS IDENTITY` primary keys.",
        ),
        ("Use UUIDv7 primary keys.", "Primary keys are identity columns."),
    ],
)
def test_a_uuid_key_and_an_identity_key_conflict(root: str, nested: str) -> None:
    assert _conflicts(root, nested) == ["id-format"]


@pytest.mark.parametrize(
    "nested",
    [
        "Primary keys are UUIDv7 here too.",
        "Invoice numbers come from a database sequence.",
        "A UUIDv7 library is vendored in `third_party/`.",
    ],
)
def test_agreeing_keys_or_other_numbers_are_silent(nested: str) -> None:
    assert _conflicts("Primary keys are UUIDv7.", nested) == []


# --- timestamp column type ------------------------------------------------------------------


def test_a_zoned_and_a_zoneless_timestamp_column_conflict() -> None:
    assert _conflicts(
        "Every timestamp column is `timestamptz`.",
        "Times are stored as `timestamp without time zone`, always in UTC.",
    ) == ["timestamp-column-type"]


@pytest.mark.parametrize(
    "nested",
    [
        "Never use `timestamp without time zone`.",
        "Times are stored as `timestamp with time zone`.",
        "Log lines carry a timestamp with the time zone offset.",
    ],
)
def test_agreeing_timestamp_columns_are_silent(nested: str) -> None:
    assert _conflicts("Every timestamp column is `timestamptz`.", nested) == []


# --- verbs of ending ------------------------------------------------------------------------


def test_terminating_statements_with_a_semicolon_chooses_semicolons() -> None:
    assert _conflicts(
        "No semicolons; Prettier runs with `semi: false`.",
        "Always terminate statements with a semicolon.",
    ) == ["semicolons"]
    assert _conflicts("No semicolons.", "Terminate the worker process with SIGTERM.") == []
    assert _conflicts("No semicolons.", "Terminate every statement with a semicolon, too.") != []


# --- a table at the end of every turn -------------------------------------------------------


def test_a_table_closing_every_task_meets_a_rule_against_tables_in_replies() -> None:
    assert _agent_conflicts(
        "Write answers as prose; do not use tables in replies.",
        "End every task with a Markdown table: file, change, reason.",
    ) == ["response-format"]


@pytest.mark.parametrize(
    "project",
    [
        "End each PR description with a table of changes.",
        "Finish every task with a table in `CHANGES.md`.",
        "Finish every task with a table in the docs.",
        "End every task without a table.",
        "API responses are cached in Postgres tables.",
    ],
)
def test_tables_elsewhere_or_refused_are_silent(project: str) -> None:
    assert _agent_conflicts("Do not use tables in replies.", project) == []


# --- a permission for the way the agent answers ---------------------------------------------


@pytest.mark.parametrize(
    ("global_text", "project", "dimension"),
    [
        (
            "Use a neutral, professional tone; no jokes.",
            "Feel free to be chatty and use jokes in your replies here.",
            "response-tone",
        ),
        ("No emoji in replies.", "Feel free to use emoji in replies.", "emoji-policy"),
    ],
)
def test_an_allowance_meets_a_rule_against_it(
    global_text: str, project: str, dimension: str
) -> None:
    assert _agent_conflicts(global_text, project) == [dimension]


@pytest.mark.parametrize(
    "project",
    [
        "Feel free to skip the jokes in replies.",
        "You may tell jokes in the release notes.",
        "You can make the reply casual only for internal chats.",
        "Feel free to use a formal tone in replies.",
        "Feel free to ask before you start.",
    ],
)
def test_allowances_that_leave_out_agree_or_limit_are_silent(project: str) -> None:
    assert _agent_conflicts("Use a formal tone in replies.", project) == []


# --- a commit convention by its title or its parts ------------------------------------------


def test_a_convention_titling_its_examples_and_a_bracketed_component_conflict() -> None:
    root = "# R\n\n## Commit messages\n\n- Conventional Commits: `feat(cli): add x`, `fix: y`.\n"
    nested = (
        "# P\n\n## Commits here\n\n"
        "- Prefix the subject with the component in square brackets: `[cli] Added x`.\n"
    )
    assert _section_conflicts(root, nested) == ["commit-convention"]


@pytest.mark.parametrize(
    "nested",
    [
        "Gitmoji: not used here, see `docs/commits.md`.",
        "Conventional Commits: `feat(cli): add x` is the shape.",
        "Tag the component in square brackets in the PR title: `[cli] Fix x`.",
    ],
)
def test_a_title_before_other_words_or_a_pr_title_is_silent(nested: str) -> None:
    assert _conflicts("Follow Conventional Commits.", nested) == []


# --- Go error wrapping by its import path ---------------------------------------------------


def test_pkg_errors_named_by_its_import_path_or_its_call_is_pkg_errors() -> None:
    assert _conflicts(
        "Wrap errors with `fmt.Errorf` and `%w`.",
        "Wrap errors with `errors.Wrap(err, ctx)` from `github.com/pkg/errors`.",
    ) == ["go-error-wrapping"]
    assert (
        _conflicts(
            "Wrap errors with `fmt.Errorf` and `%w`.",
            "`github.com/pkg/errors` is archived upstream.",
        )
        == []
    )
    assert (
        _conflicts(
            "Wrap errors with `fmt.Errorf` and `%w`.", "Do not import `github.com/pkg/errors`."
        )
        == []
    )
