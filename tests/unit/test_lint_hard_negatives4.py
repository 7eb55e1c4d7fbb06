"""Hard negatives for the conflict check, written for this module (no sentence comes from a
labelled set): pairs of context files that look like contradictions and are not. Tools that
work together (a build generator and its backend, a meta-linter and the linters it runs, a
task runner and a workspace manager), numbers for different layers or environments, a rule
whose own exception names the later value, legacy and migration narrative, examples and code
fences, tables, allowed alternatives. Every case must stay silent under the conflict rules; the
positives next to them check that each silence comes from the shape and not from a blind spot.
"""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import ACKNOWLEDGED_OVERRIDE, CONFLICT, CONFLICT_IN_FILE, find_conflicts

ROOT = "/repo/AGENTS.md"
PACKAGE = "/repo/packages/widget/AGENTS.md"


def conflicts(root: str, package: str = "") -> list[str]:
    """The conflict warnings of a root file and (when given) one package file below it."""
    chain = [(ROOT, root)] + ([(PACKAGE, package)] if package else [])
    return [
        finding.message
        for finding in find_conflicts(chain)
        if finding.rule in (CONFLICT, CONFLICT_IN_FILE)
    ]


# --- values that work together ---------------------------------------------------------------

COMPOSING = [
    # a generator and the backend it writes build files for
    (
        "## Build\n\n- The firmware builds with Meson (`meson setup out`).\n",
        "## Building this board\n\n1. `ninja -C out firmware.elf`\n",
    ),
    (
        "- Configure with CMake presets: `cmake --preset release`.\n",
        "- Build the library with `ninja -C build/release` once configured.\n",
    ),
    (
        "- We use CMake for every native target.\n",
        "- After configuring, run `make -j8` in `build/`.\n",
    ),
    # a meta-linter and the linters it runs
    (
        "- Lint Go code with golangci-lint (`make lint`).\n",
        "- Run `go vet ./...` after touching the generated structs.\n",
    ),
    (
        "- Go linting: golangci-lint with the repo config.\n",
        "- Keep `staticcheck ./...` clean in this module.\n",
    ),
    (
        "- Python code is linted with flake8.\n",
        "- Run `pyflakes` on the migration scripts before committing them.\n",
    ),
    (
        "- JavaScript is linted with ESLint (`pnpm lint`).\n",
        "- Run `oxlint` first for a fast pass; ESLint still gates CI.\n",
    ),
    (
        "- Ruby style: RuboCop with our shared config.\n",
        "- This gem uses StandardRB (`bundle exec standardrb`).\n",
    ),
    # a task runner over a workspace manager
    (
        "- The monorepo is a pnpm workspace (`pnpm-workspace.yaml`).\n",
        "- Run `pnpm turbo run build --filter=widget` before pushing.\n",
    ),
    (
        "- Packages are linked through yarn workspaces.\n",
        "- Use Nx to run the affected tests: `npx nx affected -t test`.\n",
    ),
    # a bundler and the compiler it drives
    (
        "- The app is bundled with Vite.\n",
        "- The library build uses Rollup directly (`rollup -c`).\n",
    ),
]


@pytest.mark.parametrize(("root", "package"), COMPOSING)
def test_tools_that_work_together_do_not_conflict(root: str, package: str) -> None:
    assert conflicts(root, package) == []


@pytest.mark.parametrize(
    ("root", "package"),
    [
        (
            "- The firmware builds with Meson.\n",
            "- This board builds with Bazel (`bazel build //:fw`).\n",
        ),
        ("- Lint Python with flake8.\n", "- Lint this package with pylint.\n"),
        (
            "- The monorepo uses Turborepo for tasks.\n",
            "- Tasks here run with Nx (`npx nx run widget:build`).\n",
        ),
    ],
)
def test_alternatives_in_the_same_role_still_conflict(root: str, package: str) -> None:
    assert conflicts(root, package)


# --- numbers for another layer or environment ------------------------------------------------

PLACES = [
    (
        "## Caching\n\n- Default cache TTL is 10 minutes.\n"
        "- The CDN keeps static files for 7 days.\n",
        "",
    ),
    (
        "- Request timeout is 20 seconds.\n",
        "- The nginx reverse proxy times out requests after 60 seconds.\n",
    ),
    (
        "## Local development\n\n"
        "- The request timeout is 5 minutes so breakpoints don't trip it.\n\n"
        "## Production\n\n- Request timeout: 30 s.\n",
        "",
    ),
    (
        "- HTTP request timeout: 10 s in staging, so slow queries show up.\n",
        "- HTTP request timeout is 45 seconds in production.\n",
    ),
    (
        "- The maximum upload size is 25 MB.\n",
        "- The load balancer caps upload size at 100 MB.\n",
    ),
    (
        "- Cache TTL: 1 hour.\n",
        "- Browser caching of the bundle: a cache TTL of 1 year (hashed names).\n",
    ),
    (
        "- Session idle timeout is 30 minutes.\n",
        "- Locally the session timeout is 8 hours so you stay signed in.\n",
    ),
    (
        "- The request timeout is 15 seconds.\n",
        "- The API gateway applies a request timeout of 29 seconds.\n",
    ),
]


@pytest.mark.parametrize(("root", "package"), PLACES)
def test_numbers_for_another_layer_or_environment_do_not_conflict(root: str, package: str) -> None:
    assert conflicts(root, package) == []


@pytest.mark.parametrize(
    ("root", "package"),
    [
        (
            "- Request timeout is 20 seconds.\n",
            "- Request timeout is 5 seconds for every handler.\n",
        ),
        (
            "## Production\n\n- Request timeout: 30 s.\n",
            "## Production\n\n- The request timeout is 10 seconds.\n",
        ),
        ("- The CDN cache TTL is 1 day.\n", "- Set the CDN cache TTL to 1 hour.\n"),
    ],
)
def test_numbers_for_the_same_place_still_conflict(root: str, package: str) -> None:
    assert conflicts(root, package)


def test_a_layer_named_like_the_files_own_folder_is_the_files_subject() -> None:
    root = "- Outbound HTTP timeout is 30 s for every client.\n"
    gateway = "- Outbound requests from the gateway time out after 10 seconds.\n"
    found = find_conflicts([(ROOT, root), ("/repo/gateway/AGENTS.md", gateway)])
    assert [f.rule for f in found] == [CONFLICT]


# --- a rule whose own exception names the later value ---------------------------------------

EXCEPTIONS = [
    (
        "- PRs are squash-merged, except hotfix branches, which keep a merge commit.\n",
        "- Hotfix branches land with a merge commit (`gh pr merge --merge`).\n",
    ),
    (
        "- Every app builds with Vite, apart from the legacy admin, which stays on webpack.\n",
        "- Build this app with webpack (`pnpm webpack --mode production`).\n",
    ),
    (
        "- Use pnpm in every package other than the docs site, which uses npm.\n",
        "- Install with `npm ci` here.\n",
    ),
    (
        "- Tests run on Vitest unless a package is still on Jest.\n",
        "- This package runs its tests with Jest.\n",
    ),
]


@pytest.mark.parametrize(("root", "package"), EXCEPTIONS)
def test_a_value_inside_the_earlier_rules_exception_does_not_conflict(
    root: str, package: str
) -> None:
    assert conflicts(root, package) == []


def test_an_exception_that_names_another_value_still_conflicts() -> None:
    root = "- PRs are squash-merged, except hotfix branches, which keep a merge commit.\n"
    assert conflicts(root, "- Merge PRs here with rebase and merge.\n")


# --- narrative, examples, allowed alternatives, tables ---------------------------------------

NARRATIVE_AND_EXAMPLES = [
    ("- Use pnpm.\n", "## History\n\nWe used to install with yarn, until 2023.\n"),
    ("- Tests use Vitest.\n", "We migrated this package from Jest to Vitest last spring.\n"),
    (
        "- Use Poetry for dependencies.\n",
        "## Legacy\n\nThe old `setup.py` flow is gone; nobody runs pip-tools any more.\n",
    ),
    (
        "- Format Python with ruff format.\n",
        "Example of a hook config:\n\n```yaml\n- id: black\n  entry: black .\n```\n",
    ),
    (
        "- Use pnpm for every install.\n",
        '- Quote errors verbatim, e.g. "npm ERR! code ERESOLVE", when you report them.\n',
    ),
    ("- Deploy with Fly.io.\n", "- Prefer Fly.io; Render is fine for throwaway previews.\n"),
    ("- Use Postgres for application data.\n", "- Tests may use SQLite in memory if you like.\n"),
    (
        "- Use pnpm.\n",
        "| Tool | Used for |\n|---|---|\n| pnpm | installs |\n| Turborepo | task graph |\n",
    ),
    (
        "- Indent with 2 spaces.\n",
        "- Makefiles are the one place where tabs are required.\n",
    ),
    (
        "- Coverage must stay at or above 80%.\n",
        "- The flaky-test quarantine list holds at most 5 tests.\n",
    ),
    ("- Keep PRs under 400 changed lines.\n", "- Keep functions under 60 lines.\n"),
    (
        "- Use Jest for unit tests.\n",
        "- Playwright covers the end-to-end flows; Jest stays for units.\n",
    ),
    (
        "- Python 3.12 for all services.\n",
        "- The Lambda layer is built for the runtime AWS supports; see `layer/README.md`.\n",
    ),
    (
        "- Use Black for Python formatting.\n",
        "- Format the TypeScript client with Prettier.\n",
    ),
    (
        "- Commits follow Conventional Commits.\n",
        "- If a reviewer asks for a fixup commit, squash it before merging.\n",
    ),
    (
        "- Use Vitest for tests.\n",
        "- For Jest users: `vitest` accepts most Jest flags, so `--watch` works as before.\n",
    ),
    (
        "- Use npm for installs.\n",
        "Migration notes (yarn to npm, done):\n\n- `yarn.lock` was deleted in March.\n",
    ),
    (
        "- Deploy with `fly deploy`.\n",
        "- Do not run `vercel deploy`: the Vercel project is archived and only kept for "
        "redirects.\n",
    ),
    (
        "- The default page size is 50.\n",
        "- Admin exports may request up to 500 rows per page.\n",
    ),
    (
        "- Retry failed jobs 3 times.\n",
        "- The HTTP client retries idempotent GETs twice; jobs keep the root's retry rule.\n",
    ),
    (
        "- Use Prettier for formatting.\n",
        "- Markdown tables are aligned by hand; Prettier leaves them alone with "
        "`proseWrap: preserve`.\n",
    ),
    (
        "- Squash-merge every PR.\n",
        "- Reviewers: read the commits one by one before the PR is squashed.\n",
    ),
    (
        "- Use GitHub Actions for CI.\n",
        "- The nightly Jenkins job belongs to the data team; don't edit its config.\n",
    ),
]


@pytest.mark.parametrize(("root", "package"), NARRATIVE_AND_EXAMPLES)
def test_narrative_examples_and_allowed_alternatives_stay_silent(root: str, package: str) -> None:
    assert conflicts(root, package) == []


# --- scopes a sentence gives itself, hedges, sections not followed -------------------------

SCOPED_AND_HEDGED = [
    ("- Python line length is 100.\n", "- TypeScript line length is 120.\n"),
    ("- Indent Go files with tabs (gofmt).\n", "- YAML is indented with 2 spaces.\n"),
    ("- Kotlin strings use double quotes.\n", "- JavaScript strings use single quotes.\n"),
    ("- Use Docker.\n", "- Use Podman or Docker, whichever you have installed.\n"),
    ("- Use pnpm.\n", "## Legacy (do not follow)\n\n- Use yarn.\n"),
    ("- Use pnpm.\n", "# widget\n\n## Tooling history\n\n- Install with yarn.\n"),
    ("- Use Vitest.\n", "## Old setup (outdated)\n\n- Tests run with Jest.\n"),
    (
        "- Use React Testing Library.\n",
        "- Use Enzyme only to read the old snapshot tests, never for new ones.\n",
    ),
    ("- Use Postgres.\n", "- Use SQLite only for the offline demo build.\n"),
    # a full stop inside inline code ends no sentence: the hedge after it still counts
    ("- Use uv for Python dependencies.\n", "- `pip install -e .` also works in a plain venv.\n"),
    (
        "- Access tokens expire after 15 minutes.\n",
        "- Refresh tokens expire after 14 days.\n",
    ),
    (
        "- Access tokens expire after 1 hour.\n",
        "- Password reset links expire after 30 minutes.\n",
    ),
]


@pytest.mark.parametrize(("root", "package"), SCOPED_AND_HEDGED)
def test_scoped_hedged_and_retired_sentences_stay_silent(root: str, package: str) -> None:
    assert conflicts(root, package) == []


@pytest.mark.parametrize(
    ("root", "package"),
    [
        ("- Line length is 100.\n", "- Line length is 120.\n"),
        ("- Use pnpm.\n", "## History matters here\n\n- Install with yarn.\n"),
        ("- Use Postgres.\n", "- Use SQLite for the data.\n"),
        ("- Access tokens expire after 15 minutes.\n", "- Access tokens expire after 1 hour.\n"),
        ("- Refresh tokens live for 14 days.\n", "- Tokens expire after 30 days.\n"),
        (
            "- Strings use single quotes; template literals only when you interpolate.\n",
            "- Strings use double quotes.\n",
        ),
    ],
)
def test_the_same_subjects_unscoped_still_conflict(root: str, package: str) -> None:
    assert conflicts(root, package)


def test_there_are_enough_hard_negatives() -> None:
    total = (
        len(COMPOSING)
        + len(PLACES)
        + len(EXCEPTIONS)
        + len(NARRATIVE_AND_EXAMPLES)
        + len(SCOPED_AND_HEDGED)
    )
    assert total >= 40


# --- acknowledged overrides -----------------------------------------------------------------


def rules(root: str, package: str) -> list[tuple[str, str]]:
    return [
        (finding.rule, finding.severity)
        for finding in find_conflicts([(ROOT, root), (PACKAGE, package)])
        if finding.rule in (CONFLICT, CONFLICT_IN_FILE, ACKNOWLEDGED_OVERRIDE)
    ]


OVERRIDES = [
    (
        "- Unit tests run on Vitest in every package.\n",
        "This package overrides the root test rule: it stays on Jest until the port is done.\n",
    ),
    (
        "- Format PHP with Laravel Pint.\n",
        "This library deviates from the root: it is formatted with PHP-CS-Fixer.\n",
    ),
    (
        "- Dates: Luxon. No Moment.js in new code.\n",
        "This app overrides the root date rule and keeps Moment.js: it has hundreds of call "
        "sites.\n",
    ),
    (
        "- Coverage gate: 90%.\n",
        "This package is a documented exception to the repo-wide coverage gate: the threshold\n"
        "here is 40%.\n",
    ),
    (
        "- All screens are built with Jetpack Compose.\n",
        "Unlike the rest of the app, the settings module keeps XML layouts.\n",
    ),
    ("- Install with pnpm.\n", "Here we install with npm, not pnpm as elsewhere.\n"),
    (
        "- Squash-merge PRs.\n",
        "- The root merge rule does not apply here: rebase-merge PRs in this package.\n",
    ),
]


@pytest.mark.parametrize(("root", "package"), OVERRIDES)
def test_an_acknowledged_override_is_information_never_a_conflict(root: str, package: str) -> None:
    assert rules(root, package) == [(ACKNOWLEDGED_OVERRIDE, "information")]


@pytest.mark.parametrize(
    ("root", "package"),
    [
        # the acknowledgement alone, with nothing that contradicts the root
        ("- Unit tests run on Vitest.\n", "This package overrides the root test rule.\n"),
        ("- Install with pnpm.\n", "Unlike the rest of the repo, this package has no tests.\n"),
        # the override names the root's value only as the rule it sets aside
        ("- Format PHP with Laravel Pint.\n", "This package overrides the root's Pint rule.\n"),
        # it drops the other value
        (
            "- Dates: Luxon.\n",
            "This app overrides the root date rule: it drops Moment.js for Luxon.\n",
        ),
    ],
)
def test_an_override_with_nothing_to_contradict_is_silent(root: str, package: str) -> None:
    assert rules(root, package) == []


def test_values_an_override_reads_never_set_a_rule_of_their_own() -> None:
    root = "This repo overrides the global test rule and keeps Jest.\n"
    assert rules(root, "- Unit tests run on Vitest.\n") == []
