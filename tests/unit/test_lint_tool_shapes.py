"""Tools named in more shapes of English: a tool forbidden by a negated verb of running it,
tools whose bare names are ordinary words, and the folder an earlier file names as a folder.
Written in words of their own, not those of the dev workspaces; each reading comes with the
sentences that must stay silent."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.instructions import extract_instructions


def choices_of(text: str, path: str = "/r/pkg/AGENTS.md") -> set[tuple[str, str, str]]:
    return {
        (c.dimension, c.value, c.stance)
        for i in extract_instructions(path, text + "\n")
        for c in i.choices
    }


def conflicting(root: str, nested: str, folder: str = "pkg") -> list[str]:
    files = [("/r/AGENTS.md", root + "\n"), (f"/r/{folder}/AGENTS.md", nested + "\n")]
    return [f.message for f in find_conflicts(files) if f.rule == "conflicting-instructions"]


# --- a negated verb of running the tool itself -----------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "dimension", "value"),
    [
        (
            "Never run fastlane for Android; the Gradle tasks replaced it.",
            "mobile-release-tool",
            "fastlane",
        ),
        ("Do not run gofumpt on this package.", "formatter", "gofumpt"),
        ("Don't run prettier.", "formatter", "prettier"),
        ("Please don't invoke `eslint` at all.", "js-linter", "ESLint"),
    ],
)
def test_a_negated_run_of_the_tool_alone_rejects_the_tool(
    sentence: str, dimension: str, value: str
) -> None:
    assert (dimension, value, "reject") in choices_of(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Never run `npm publish`.",  # a command of the tool: the action is forbidden
        "never run npm publish from a laptop",
        "Don't run `prettier --write` on generated files.",
        "Never call `docker compose` directly; the Makefile wraps it.",  # make still runs it
        "Don't run gofumpt by hand, `make fmt` does that.",
        "We don't run gofumpt in CI, only locally.",  # where, not whether
        "Do not run gofumpt in CI.",
        "Do not run the Helm chart's hooks by hand.",  # something of the tool
        "Don't run eslint on the vendored files.",  # a part of the project
        "Never run prettier for the whole repo; format only the files you touched.",  # extent
        "Never run jest for every commit.",  # how often
    ],
)
def test_a_negated_run_of_an_action_or_in_a_place_rejects_no_tool(sentence: str) -> None:
    assert not {c for c in choices_of(sentence) if c[2] == "reject"}


def test_a_negated_run_of_the_tool_meets_the_tool_chosen_in_the_root() -> None:
    root = "Format all Go code with `gofumpt -l -w .`."
    assert conflicting(root, "Do not run gofumpt on this module; it rewrites generated code.")
    assert not conflicting(root, "We don't run gofumpt in CI, only locally.")
    assert not conflicting(root, "Never run `gofumpt -w` on the vendored tree by hand.")


# --- bare names that are ordinary words --------------------------------------------------------


def test_a_host_named_by_its_bare_name_is_read_where_the_clause_speaks_of_hosting() -> None:
    assert ("hosting-platform", "Render", "prefer") in choices_of(
        "The marketing site's production deploy runs on Render."
    )
    assert ("hosting-platform", "Render", "prefer") in choices_of("Deploy the API to Render.")
    # the ordinary word
    assert not choices_of("The effect runs on render, so keep it cheap.")
    assert not choices_of("Components re-render on every render.")


def test_an_elixir_http_client_named_in_code_after_use() -> None:
    assert ("http-client-elixir", "Req", "prefer") in choices_of("Outbound HTTP: use `Req`.")
    assert not choices_of("Send a req to the server and log the response.")


# --- the folder an earlier file names ----------------------------------------------------------


def test_a_folder_name_inside_a_command_is_no_carve_out_for_that_folder() -> None:
    root = "Our mobile builds go through Fastlane: `bundle exec fastlane android beta`."
    assert conflicting(root, "Never run fastlane for Android.", folder="android")
    # the root names the folder as a folder, with the value: room made for it
    root = "Builds go through Fastlane; the `android` app keeps its own Gradle tasks."
    assert not conflicting(root, "Never run fastlane for Android.", folder="android")
    root = "Builds go through Fastlane, except in android/ where Gradle publishes."
    assert not conflicting(root, "Never run fastlane for Android.", folder="android")


# --- a tool named as the kind of thing a rule makes or forbids -------------------------------


@pytest.mark.parametrize(
    ("sentence", "dimension", "value", "stance"),
    [
        ("Don't add Helm charts to the platform repo.", "k8s-packaging", "Helm", "reject"),
        ("Ship the worker as a Helm chart.", "k8s-packaging", "Helm", "prefer"),
        (
            "Never add Retrofit services to the shared module.",
            "http-client-jvm",
            "Retrofit",
            "reject",
        ),
        ("Declare a Retrofit interface for each backend.", "http-client-jvm", "Retrofit", "prefer"),
        ("Define a Zod schema for every form.", "validation-library", "zod", "prefer"),
        ("Do not add REST endpoints for internal tools.", "api-style", "REST", "reject"),
        ("Our public APIs are REST.", "api-style", "REST", "prefer"),
    ],
)
def test_a_tool_that_names_the_kind_of_thing_made_is_chosen_or_rejected(
    sentence: str, dimension: str, value: str, stance: str
) -> None:
    assert (dimension, value, stance) in choices_of(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Check the Buildkite build before merging.",  # looking at a thing, not making it
        "Create the Stripe customer before the first charge.",  # the thing exists already
        "Don't edit the Helm chart by hand.",
        "Read the Vite docs before changing the config.",
        "Take the rest endpoints from the list below.",  # the ordinary word
        "Add a black border to the focused input.",
        "Write the rest as plain functions.",
    ],
)
def test_a_tool_named_by_a_thing_looked_at_or_an_ordinary_word_chooses_nothing(
    sentence: str,
) -> None:
    assert not choices_of(sentence)


def test_a_forbidden_kind_of_thing_meets_the_tool_chosen_in_the_root() -> None:
    assert conflicting("Package each service as a Helm chart.", "Do not add Helm charts here.")
    assert conflicting("Public APIs are REST.", "Do not add REST endpoints; use GraphQL.")
    assert not conflicting("Package each service as a Helm chart.", "Don't edit the Helm chart.")


# --- verbs and labels that name a tool's use ---------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "dimension", "value"),
    [
        # what a function returns is the error library's type
        ("Return `anyhow::Result` from the binary's commands.", "error-handling-rust", "anyhow"),
        # bumping a part of a version scheme uses that scheme
        ("Bump the semver patch for every fix.", "versioning-scheme", "SemVer"),
        # a label that names the role by its work
        ("Type checking: `uvx pyright` over `src/`.", "python-type-checker", "pyright"),
        # a participle with its reverse in brackets
        (
            "Events are (de)serialized with kotlinx.serialization.",
            "json-library-jvm",
            "kotlinx.serialization",
        ),
        ("Payloads are (un)marshalled with encoding/json.", "json-library-go", "encoding/json"),
    ],
)
def test_a_verb_or_label_of_the_work_chooses_the_tool(
    sentence: str, dimension: str, value: str
) -> None:
    assert (dimension, value, "prefer") in choices_of(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Return early from handlers.",
        "Return `Result<T, E>` from public functions.",
        "Don't bump the semver major without a migration note.",
        "Bump the version when you release.",
        "JSON is never (de)serialized with Gson.",
        "Type checking: ask the team before changing it.",
    ],
)
def test_a_verb_or_label_of_the_work_without_a_chosen_tool_chooses_nothing(sentence: str) -> None:
    assert not {c for c in choices_of(sentence) if c[2] == "prefer"}


# --- a statement that the project does without a tool ----------------------------------------


@pytest.mark.parametrize(
    ("sentence", "rejected"),
    [
        ("Redux is not used anywhere.", {("state-management", "Redux")}),
        ("Redux isn't used in this package.", {("state-management", "Redux")}),
        (
            "CSS-in-JS libraries (Emotion, styled-components) are not used in product code.",
            {("css-approach", "Emotion"), ("css-approach", "styled-components")},
        ),
        ("structlog is not a dependency of the worker image.", {("logging-library", "structlog")}),
    ],
)
def test_a_tool_the_project_does_without_is_rejected(
    sentence: str, rejected: set[tuple[str, str]]
) -> None:
    assert {(d, v) for d, v, s in choices_of(sentence) if s == "reject"} >= rejected


@pytest.mark.parametrize(
    "sentence",
    [
        "Terraform is not used for DNS.",  # a purpose: it is used for the rest
        "Jest mocks are not used in e2e tests.",  # the tool modifies another subject
        "The `--watch` flag is not used by Vite.",
        "Redux was not used in the old app.",  # history
        "Some packages are not installed with pnpm.",
        "Redux is not used in the admin panel.",  # a place
        "Docker is not installed on the CI runners.",
        "Redux isn't used in the admin app.",  # a part of the project
    ],
)
def test_a_tool_not_used_somewhere_or_for_something_is_not_rejected(sentence: str) -> None:
    assert not {c for c in choices_of(sentence) if c[2] == "reject"}


def test_the_standard_library_logging_module_is_the_stdlib_logger() -> None:
    assert ("logging-library", "stdlib logging", "prefer") in choices_of(
        "Use the standard library `logging` module for every service."
    )


def test_a_call_of_the_tools_api_shown_after_the_rules_colon_chooses_the_tool() -> None:
    text = "Stick to the standard library: `log = logging.getLogger(__name__)`."
    assert ("logging-library", "stdlib logging", "prefer") in choices_of(text)
    # not a command nor a call shown as the way to follow a rule
    assert not choices_of("Don't do this: `log = logging.getLogger(__name__)`.")
    assert not choices_of("Example: `log = logging.getLogger(__name__)`.")
    assert not choices_of('Import helpers like this: `import { expect } from "vitest"`.')


def test_a_tool_not_used_for_the_files_own_package_is_rejected() -> None:
    text = "nextest is not used for this crate: its tests share one global cache."
    assert ("test-runner", "nextest", "reject") in choices_of(text)


def test_a_commands_table_row_chooses_the_tool_its_task_names() -> None:
    table = (
        "| Task | Command |\n|---|---|\n"
        "| Build | `cargo build --workspace` |\n"
        "| Test | `cargo nextest run --workspace` |\n"
    )
    assert ("test-runner", "nextest", "prefer") in choices_of(table)
    # a row whose command names no tool of its task's role chooses nothing
    table = "| Task | Command |\n|---|---|\n| Serve | `make serve` |\n"
    assert not {c for c in choices_of(table) if c[0] == "test-runner"}
    assert conflicting(
        "| Task | Command |\n|---|---|\n| Test | `cargo nextest run --workspace` |",
        "Run `cargo test -p tiles`. nextest is not used for this crate.",
    )


# --- a rule of the work without a subject, and the value set against it ---------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Deployed with Kustomize overlays, not Helm.",
            {("k8s-packaging", "Kustomize", "prefer"), ("k8s-packaging", "Helm", "reject")},
        ),
        ("Bundled with esbuild.", {("bundler", "esbuild", "prefer")}),
        (
            "Validate payloads with zod, not yup.",
            {("validation-library", "zod", "prefer"), ("validation-library", "yup", "reject")},
        ),
        # the owner before the tool's thing: "its Helm chart"
        ("Each service is deployed with its Helm chart.", {("k8s-packaging", "Helm", "prefer")}),
    ],
)
def test_a_participle_rule_and_a_contrasted_value_are_read(
    sentence: str, expected: set[tuple[str, str, str]]
) -> None:
    assert choices_of(sentence) >= expected


@pytest.mark.parametrize(
    "sentence",
    [
        "Based on React Native's navigation guide.",  # no verb of the work
        "Deployed with care; ask first.",
        "Do not use its Helm chart's hooks.",
        "Validate payloads with the schema, not by hand.",
        "Parse the response as a JSON object.",  # a form of data, not a tool of the work
    ],
)
def test_a_participle_or_contrast_without_a_tool_chooses_nothing(sentence: str) -> None:
    assert not {c for c in choices_of(sentence) if c[2] == "prefer"}


def test_a_dash_or_semicolon_inside_inline_code_breaks_no_clause() -> None:
    text = "Write each migration as a SQL file with `-- migrate:up` parts, applied by `dbmate up`."
    assert ("migration-tool", "dbmate", "prefer") in choices_of(text)
    # a real break still splits: the second clause's value is its own
    assert ("test-runner", "pytest", "prefer") in choices_of("Tests use pytest; see below.")


# --- more verbs that bring a tool in or move off it ---------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Do not introduce Redux.", {("state-management", "Redux", "reject")}),
        ("Never introduce a Redux store.", {("state-management", "Redux", "reject")}),
        ("Don't pull in Moment.js.", {("date-library", "Moment.js", "reject")}),
        ("Do not reintroduce Jest.", {("test-runner", "jest", "reject")}),
        (
            "Switch from npm to pnpm.",
            {("package-manager", "npm", "reject"), ("package-manager", "pnpm", "prefer")},
        ),
        (
            "Migrate the tests from Jest to Vitest.",
            {("test-runner", "jest", "reject"), ("test-runner", "vitest", "prefer")},
        ),
        (
            "Replace Moment.js with date-fns.",
            {("date-library", "Moment.js", "reject"), ("date-library", "date-fns", "prefer")},
        ),
    ],
)
def test_a_verb_that_brings_a_tool_in_or_moves_off_it_reads_its_stance(
    sentence: str, expected: set[tuple[str, str, str]]
) -> None:
    assert choices_of(sentence) >= expected


@pytest.mark.parametrize(
    "sentence",
    [
        "Don't replace Jest with Vitest.",  # keeps Jest: no rejection of it
        "Don't switch from pnpm to npm.",
        "Never migrate the tests from Jest.",
    ],
)
def test_a_negated_move_off_a_tool_rejects_nothing(sentence: str) -> None:
    assert not {c for c in choices_of(sentence) if c[2] == "reject"}


def test_a_banned_or_deprecated_tool_is_rejected() -> None:
    assert ("k8s-packaging", "Helm", "reject") in choices_of("No Helm charts.")
    assert ("state-management", "Redux", "reject") in choices_of("Redux is deprecated here.")
    assert ("component-test-library", "Enzyme", "reject") in choices_of(
        "Enzyme is deprecated; use Testing Library."
    )
    # an ordinary word, a flag of the tool, a purpose: no ban of the tool
    assert not choices_of("No black borders on inputs.")
    assert not choices_of("The `--legacy` flag is deprecated in Vite 5.")
    assert not choices_of("Redux is deprecated for new screens.")


def test_a_file_name_shown_after_a_colon_is_no_call_of_an_api() -> None:
    assert not {
        c for c in choices_of("Add the case to: `stream.test.ts`.") if c[0] == "test-naming"
    }


def test_a_preference_meets_the_rejection_of_its_value_before_another_preference() -> None:
    root = (
        "- Components are styled with CSS Modules.\n"
        "- Utility-class frameworks (Tailwind, UnoCSS) are not used in product code."
    )
    found = conflicting(root, "Style new screens with Tailwind utility classes.")
    assert len(found) == 1
    assert "do not use Tailwind CSS" in found[0]


def test_an_endpoint_written_as_method_and_path_is_a_rest_route() -> None:
    text = "Expose image uploads as `POST /api/images` (an Express router), returning JSON."
    assert ("api-style", "REST", "prefer") in choices_of(text)
    assert conflicting("Don't add REST routes for product features.", text)
    # GraphQL's single endpoint, a verb of English, a path alone: no REST
    assert not choices_of("Send every query as `POST /graphql`.")
    assert not choices_of("Post the update to the channel.")
    assert not choices_of("Delete /tmp files after the run.")


@pytest.mark.parametrize(
    ("sentence", "preferred", "rejected"),
    [
        ("Prefer pnpm to npm.", "pnpm", "npm"),
        ("Prefer `pnpm` to `npm` in scripts.", "pnpm", "npm"),
        ("Favour pnpm over npm.", "pnpm", "npm"),
        ("Opt for pnpm instead of npm.", "pnpm", "npm"),
    ],
)
def test_preferring_one_tool_to_another_rejects_the_other(
    sentence: str, preferred: str, rejected: str
) -> None:
    found = choices_of(sentence)
    assert ("package-manager", preferred, "prefer") in found
    assert ("package-manager", rejected, "reject") in found


def test_prefer_to_with_a_purpose_rejects_nothing() -> None:
    assert not {c for c in choices_of("Prefer pnpm to keep installs fast.") if c[2] == "reject"}
    assert not choices_of("Favor composition over inheritance.")
