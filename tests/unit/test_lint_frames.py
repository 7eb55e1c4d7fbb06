"""Action frames: always/never paraphrases meet, near misses stay apart, weak pairs become
candidates for the judge, and reading frames costs time in proportion to the text."""

from __future__ import annotations

import gc
import time

import pytest

from pi_lsp.lint.conflicts import CONFLICT, find_conflicts, polarity_candidates
from pi_lsp.lint.frames import GATED, PERMIT, PROHIBIT, REQUIRE, Frame, frames_of, lemma
from pi_lsp.lint.instructions import extract_instructions


def _chain(earlier: str, later: str) -> list[tuple[str, str]]:
    return [("/w/AGENTS.md", f"# Rules\n\n- {earlier}\n"), ("/w/pkg/AGENTS.md", f"{later}\n")]


def _conflicts(earlier: str, later: str) -> list[str]:
    return [f.message for f in find_conflicts(_chain(earlier, later)) if f.rule == CONFLICT]


PARAPHRASES = [
    ("Never commit directly to `main`.", "Always push your commits straight to the main branch."),
    (
        "Do not add comments to generated code.",
        "You must comment every function in generated files.",
    ),
    ("Avoid mocking the database in tests.", "Tests should mock the DB."),
    ("Pushing to the master branch is not allowed.", "Always push your work to main."),
    ("Generated files must not be edited.", "Edit the generated files to fix lint errors."),
    ("No direct commits to main.", "Merge into the main branch yourself."),
    ("Don't stub the repository layer in tests.", "In tests, always mock the repository layer."),
    ("Never edit or delete existing migrations.", "Always modify existing migrations in place."),
]


@pytest.mark.parametrize(("earlier", "later"), PARAPHRASES)
def test_always_never_paraphrases_meet(earlier: str, later: str) -> None:
    (message,) = _conflicts(earlier, later)
    # the message quotes both sides, so the reader sees the two wordings
    assert f"\u201c{later}\u201d here" in message
    assert earlier.rstrip(".") in message


NEAR_MISSES = [
    # another object: a feature branch is not main
    ("Never push to main.", "Always push to your feature branch."),
    # another action on the same object
    ("Never edit generated files by hand.", "Always regenerate generated files."),
    # the never side is narrower: generated files can be edited another way
    ("Never edit generated files by hand.", "Always edit the generated files."),
    # a different kind of object
    ("Never depend on data from other tests.", "Use unique test data with `TEST_PREFIX`."),
    # an exception for one place: a candidate for the judge
    ("Never use tabs.", "Use tabs in Makefiles."),
    ("Never push to main.", "For the docs site, always push to main."),
    # "only" restricts the way, it does not ask for the action
    ("Never push to main.", "Push to main only through the merge queue."),
    # a description, not a rule
    ("Mock the database in unit tests.", "We never had to mock the database before 2024."),
    ("Always push to main.", "CI never pushes to main."),
    # a question
    ("Never push to main.", "Should you push to main after a release?"),
    # a condition on the prohibition, or a place or a request on the other side: a candidate
    # for the judge, not a finding
    ("Never edit the migrations.", "When working in `legacy/`, edit the migrations."),
    ("Always push to main.", "Never push to main when the build is red."),
    ("Never commit.", "If the user asks for it, commit your work."),
    # an inline code span is one token: two different commands
    ("Never run `pnpm test:e2e` locally.", "Always run `pnpm test` locally."),
]


@pytest.mark.parametrize(("earlier", "later"), NEAR_MISSES)
def test_near_misses_are_not_conflicts(earlier: str, later: str) -> None:
    assert _conflicts(earlier, later) == []


# what the agent itself may do, phrased as a permission, a prohibition, an obligation or a gate
MODAL_CONFLICTS = [
    # prohibition against permission
    ("Pushing is off-limits.", "The agent is allowed to push."),
    ("Leave committing to the human.", "You may commit whenever you like."),
    ("Never run migrations yourself.", "It's fine to run migrations locally."),
    ("Never touch the database schema yourself.", "You may run the migrations."),
    ("No network access.", "The agent may make HTTP requests to the staging API."),
    ("Do not fetch anything from the internet.", "You may download packages from the internet."),
    ("Never bypass the git hooks.", "Feel free to use `git commit --no-verify`."),
    ("Force-pushing is off-limits.", "`git push --force` is fine."),
    ("Committing is the human's job.", "Commit after each logical step."),
    # prohibition against obligation, in other words on each side
    ("Do not run `git push`.", "Always push after committing."),
    ("Leave opening pull requests to the maintainers.", "Open a pull request yourself."),
    ("Never update the lockfile.", "Update `pnpm-lock.yaml` with every dependency change."),
    ("Migrations are off-limits.", "Run `alembic upgrade head` after pulling."),
    # a gate against a permission that says it needs none
    ("Adding a package requires sign-off from the platform team.", "Feel free to add packages."),
    ("No new dependencies without sign-off.", "Feel free to introduce new libraries."),
    ("Ask before installing packages.", "You can add dependencies without asking."),
    ("Never commit unless asked.", "Go ahead and commit."),
    ("Schema changes need sign-off from the DBA.", "Feel free to alter the schema."),
]


# what the agent itself may do, in the words of other repositories: preconditions, procedure
# steps, commands, what it can reach, things kept off-limits
ACTION_CONFLICTS = [
    # an unconditional prohibition holds under the other side's precondition
    ("Leave committing to the human.", "You may commit to your feature branch once lint passes."),
    (
        "Don't create commits yourself.",
        "Commit your work to the topic branch when tests are green.",
    ),
    ("Never edit the migrations.", "If the schema changes, edit the migrations."),
    (
        "Adding a dependency needs approval from the security team.",
        "Feel free to pull in a new library when it saves time.",
    ),
    ("Don't push until I approve.", "Feel free to push whenever you like."),
    # a second verb phrase of a procedure step, and a command that names the action
    (
        "Never run migrations yourself.",
        "When you add a model, generate the migration and run `alembic upgrade head`.",
    ),
    ("Running migrations is not your job.", "Run the pending migrations after pulling."),
    (
        "Never force-push, including `--force-with-lease`.",
        "After a rebase, update the pull request with `git push --force-with-lease`.",
    ),
    (
        "Git hooks are mandatory: never skip them.",
        "It's fine to commit with `git commit -n` while you iterate.",
    ),
    ("Don't commit and don't push.", "Commit the changes and push them to your branch."),
    # what the agent can reach
    ("Work offline.", "Fetch the latest release notes from the internet."),
    ("Do not fetch anything from the network.", "You have internet access."),
    ("You have no network access.", "Look up the error message online when you are stuck."),
    # things kept off-limits are not to be edited
    ("Hands off the lockfile.", "Update `uv.lock` whenever you bump a dependency."),
    ("Schema changes are the DBA's job.", "Feel free to alter the schema on your local database."),
    ("`src/generated/` is read-only.", "Edit `src/generated/` to fix the types."),
    # an aside between dashes, and "this service" says where the file applies
    (
        "Adding a package \u2014 npm or pip \u2014 requires sign-off from the platform team.",
        "Feel free to add dependencies when they help.",
    ),
    ("Feel free to add a dependency.", "Adding a gem to this service needs sign-off first."),
    ("Pushing is off-limits.", "OK to push your work at the end of a task."),
    ("Force pushes are forbidden.", "Force-push your branch after a rebase."),
    ("Internet access is disabled.", "Download the dataset from S3 before training."),
    ("Don't add new npm dependencies without asking.", "You're free to add any npm package."),
]


@pytest.mark.parametrize(("earlier", "later"), MODAL_CONFLICTS + ACTION_CONFLICTS)
def test_permissions_prohibitions_and_gates_meet(earlier: str, later: str) -> None:
    (message,) = _conflicts(earlier, later)
    assert f"\u201c{later}\u201d here" in message
    assert earlier.rstrip(".") in message


MODAL_NEAR_MISSES = [
    # a gate against an obligation: do it, once approved
    ("Ask before pushing.", "Always push your branch."),
    ("Adding a dependency requires sign-off.", "Always run `pnpm install` after pulling."),
    # restoring the lockfile's dependencies, or using what is there, adds none
    ("Never add dependencies.", "Always install dependencies with `pnpm install`."),
    ("No new dependencies.", "Use packages from the internal registry."),
    # a permission against an obligation
    ("You may push.", "Always push your changes."),
    # a gate against a permission that does not say it needs no approval
    ("Ask before adding dependencies.", "You may add dependencies."),
    # other objects or qualifiers
    ("Never push to main.", "You may push to your own feature branches."),
    ("Never run migrations in CI.", "It's fine to run migrations locally."),
    ("Never run migrations against production.", "Run migrations locally."),
    ("Never write to the production database.", "You may run read-only queries against it."),
    ("Never force-push to shared branches.", "Force-pushing your own branch is fine."),
    ("Never call the production API.", "You may call the staging API."),
    ("Never add runtime dependencies.", "Feel free to add dev dependencies."),
    ("Do not install packages globally.", "Feel free to install packages."),
    ("Never modify the database directly.", "Run migrations with `alembic upgrade head`."),
    ("Never edit generated files by hand.", "Feel free to regenerate the generated files."),
    ("Don't push without running the tests.", "You may push."),
    # committing to main is not committing at all; using hooks is not skipping them
    ("Never commit to main.", "Commit your changes."),
    ("Use the pre-commit hooks.", "Never skip the pre-commit hooks."),
    ("Never use `npm install`.", "You may run `pnpm install`."),
    # a rule for someone else, not the agent
    ("CI may push tags.", "Never push tags."),
    ("Never push to main.", "The release bot can push to main."),
    ("Open a pull request for each change.", "It must never open a pull request."),
    ("Leave comments to a minimum.", "Always comment public functions."),
]


# the scoped, the gated, another object or kind, a story, a quote: silent
ACTION_NEAR_MISSES = [
    # another object: a branch, a secret
    ("Never push to main.", "Once CI passes, push your branch to origin."),
    ("Never commit to `main`.", "You may commit to your feature branch once the tests pass."),
    ("Don't commit secrets.", "Commit often."),
    ("Don't push to shared branches.", "Push to your own branch when you are done."),
    # local against CI or production: the never side names a place the other does not
    (
        "Never run migrations against production.",
        "When a model changes, run the migrations locally.",
    ),
    ("Don't install packages in CI.", "Feel free to install packages locally when you need them."),
    # read against write, regenerate against edit
    (
        "Never write to the production database.",
        "Read from the production database when debugging.",
    ),
    ("Never edit generated files by hand.", "Regenerate the files whenever the schema changes."),
    # a gate against a prohibition or an obligation, "ask first" against "never without asking"
    ("Ask before adding dependencies.", "Add a dependency when it saves real work."),
    ("Ask before adding a dependency.", "Never add a dependency without approval."),
    ("Never commit unless asked.", "Commit only when I ask you to."),
    # the condition is a place, or a request
    ("Never push.", "When working in `sandbox/`, push as often as you like."),
    ("Never commit.", "When the user asks you to, commit your work."),
    ("Never push to main.", "Push to main for hotfixes once CI passes."),
    ("Never mock the database.", "While writing unit tests, mock the database."),
    ("Never push.", "Push once the Python build passes."),
    ("Never run migrations.", "In CI, run the migrations once the database is up."),
    # another kind of the action: the safer force push
    ("Never force-push.", "If you must rewrite history, use `git push --force-with-lease`."),
    # a description, a story, a quoted bad practice: no rule
    ("Never push to main.", "Last year we pushed to main during a release and it broke."),
    (
        "Never push to main.",
        "Someone once wrote \u201calways push straight to main\u201d; ignore that.",
    ),
    ("Work offline.", "The docs site is offline on Sundays."),
    # what a state holds for is read after it: "in CI", "on Fridays"
    ("Network access is disabled in CI.", "You have network access."),
    ("Pushing is off-limits on Fridays.", "Push your branch when you are done."),
    ("Migrations are forbidden in production.", "Run the migrations once the model changes."),
    # an ecosystem narrows the dependency
    ("Never add npm packages.", "Feel free to add pip packages."),
    # the second verb phrase of a prohibition is not asked for
    ("Always open a PR.", "Never push to main and open a PR afterwards."),
]


@pytest.mark.parametrize(("earlier", "later"), MODAL_NEAR_MISSES + ACTION_NEAR_MISSES)
def test_modal_near_misses_are_not_conflicts(earlier: str, later: str) -> None:
    assert _conflicts(earlier, later) == []


def test_a_frame_reads_its_modality() -> None:
    def read(text: str) -> tuple[str, str, str, bool]:
        (frame,) = frames_of(text)
        return frame.modality, frame.verb, frame.object, frame.unasked

    # deverbal subjects and the verb form make one frame
    assert read("Pushing is off-limits.") == read("Do not push.") == (PROHIBIT, "push", "", False)
    assert read("No new dependencies.") == read("Never add dependencies.")
    assert read("Network access is allowed.") == (PERMIT, "access", "network", False)
    assert read("Feel free to install packages.") == (PERMIT, "add", "dependency", True)
    assert read("Adding a package requires sign-off from the platform team.") == (
        GATED,
        "add",
        "dependency",
        False,
    )
    assert read("Check with the platform team before adding dependencies.")[0] == GATED
    assert read("Push only with explicit approval.") == (GATED, "push", "", False)
    assert read("Don't run migrations without checking with me first.")[:2] == (GATED, "migrate")
    assert read("Always run migrations.")[0] == REQUIRE
    # who approves does not narrow the action
    (signed,) = frames_of("No dependencies without sign-off from the platform team.")
    assert signed.qualifiers == frozenset() and signed.polarity == "only with approval"
    # a request for something else is a condition, not a gate
    (request,) = frames_of("You can skip the checks, unless a user asks to run the full suite.")
    assert request.modality == PERMIT and request.conditional
    # "but never …" opens a clause of its own; "on your own" says who, not where
    assert [(f.modality, f.verb) for f in frames_of("Commit freely but never push.")] == [
        (REQUIRE, "commit"),
        (PROHIBIT, "push"),
    ]
    assert read("Never commit on your own.") == read("Never commit.")
    # a second verb phrase is not an object of the first: a frame of its own
    pushed, opened = frames_of("Push your branch and open a PR.")
    assert (pushed.verb, pushed.object) == ("push", "") and (opened.verb, opened.object) == (
        "open",
        "pr",
    )
    # commands name their action
    (forced,) = extract_instructions("/w/AGENTS.md", "- `git push --force` is off-limits.\n")
    assert [(f.modality, f.verb) for f in forced.frames] == [(PROHIBIT, "force-push")]
    (hooks,) = extract_instructions("/w/AGENTS.md", "- Never use `--no-verify`.\n")
    assert [(f.verb, f.object) for f in hooks.frames] == [("skip", "hook")]
    (restore,) = extract_instructions("/w/AGENTS.md", "- Always run `pnpm install`.\n")
    assert [f.verb for f in restore.frames] == ["run"]  # restoring is not adding a package


def test_weaker_modal_pairs_are_candidates_with_a_reason() -> None:
    (scoped,) = polarity_candidates(
        _chain("Never run migrations in CI.", "It's fine to run migrations locally.")
    )
    assert not scoped.confident and "narrower: ci" in scoped.reason
    (asking,) = polarity_candidates(
        _chain("Ask before adding dependencies.", "You may add dependencies.")
    )
    assert not asking.confident and "needs approval" in asking.reason
    # a gate against an obligation is no pair at all
    assert polarity_candidates(_chain("Ask before pushing.", "Always push your changes.")) == []


def test_weaker_pairs_are_candidates_with_a_reason() -> None:
    later = "When working in `legacy/`, edit the migrations."
    (pair,) = polarity_candidates(_chain("Never edit the migrations.", later))
    assert pair.earlier.text == "Never edit the migrations."
    assert pair.later.text == later
    assert not pair.confident and "condition" in pair.reason
    assert (pair.earlier_index, pair.later_index) == (0, 1)

    (other_verb,) = polarity_candidates(
        _chain("Never edit generated files by hand.", "Always regenerate generated files.")
    )
    assert "different actions" in other_verb.reason and "narrower" in other_verb.reason

    # a pair tier 1 reports is not a candidate; an unrelated object makes no pair at all
    assert polarity_candidates(_chain(*PARAPHRASES[0])) == []
    assert polarity_candidates(_chain("Never push to main.", "Always push to a branch.")) == []


def test_a_frame_reads_verb_object_and_polarity() -> None:
    (never,) = frames_of("Never commit directly to main.")
    assert never == Frame(False, "land", "main", via="commit")
    (passive,) = frames_of("Generated files must not be edited by hand.")
    assert (passive.positive, passive.verb, passive.object) == (False, "edit", "code")
    assert passive.modifiers == {lemma("generated")} and passive.qualifiers == {"hand"}
    (gerund,) = frames_of("Avoid mocking the DB in tests.")
    assert (gerund.verb, gerund.object, gerund.qualifiers) == ("mock", "database", {"test"})
    (reversed_negation,) = frames_of("Don't forget to run the tests.")
    assert reversed_negation.positive and reversed_negation.verb == "run"
    # a marker standing as a label before a colon carries over
    assert [f.polarity for f in frames_of("Never: push to main.")] == ["never"]
    # two clauses, two frames
    assert [f.polarity for f in frames_of("Never push to main; always open a PR.")] == [
        "never",
        "always",
    ]


def test_text_that_is_not_a_rule_makes_no_frame() -> None:
    for text in (
        "We never had to mock the database.",
        "Should we mock the database?",
        "CI never pushes to main.",
        "Commit messages follow Conventional Commits.",
        "Never again.",  # no verb, no object
        "Always be careful.",
        "You never need to run migrations.",
        "No need to run the tests for docs changes.",
        "No one should push to main.",  # not read (a negated subject), never as "always"
    ):
        assert frames_of(text) == (), text


def test_inline_code_is_one_object_token() -> None:
    text = "- Never run `pnpm test --watch` in CI.\n"
    (instruction,) = extract_instructions("/w/AGENTS.md", text)
    (frame,) = instruction.frames
    assert frame.object == "`pnpm test --watch`"
    assert frame.qualifiers == {"ci"}
    # words inside the span never count as markers or verbs
    (quoted,) = extract_instructions("/w/AGENTS.md", "- Run `never push` before release.\n")
    assert [f.positive for f in quoted.frames] == [True]


def test_conditional_frames_are_marked() -> None:
    (frame,) = frames_of("If the schema changes, never edit the migrations.")
    assert frame.conditional and not frame.positive
    (trailing,) = frames_of("Push to main unless the build is red.")
    assert trailing.conditional and trailing.positive


# --- cost ---------------------------------------------------------------------------------

MARGIN = 2.5

ADVERSARIAL = [
    "never ",
    "must ",
    "you must always ",
    "never push to main, ",
    ", always ",
    "if x, ",
    "no direct commits to ",
    "edit or ",
    "push the db and ",
    "\x1a",
    "( ",
    "don't ",
    "the code you ",
    "is forbidden ",
    "feel free to ",
    "leave pushing to ",
    "ask before ",
    "ask the user before ",
    "without sign-off from ",
    "unless asked ",
    "only with approval ",
    "no need to ask ",
    "is off-limits ",
    "is the human's job ",
    "whenever you like ",
    "as often as you ",
    "requires sign-off ",
    "it's fine to ",
    "the agent may ",
    "network access ",
    "commit with `--no-verify` to ",
    "\x1a is off-limits ",
    "push x and push ",
    "and don't push ",
    "\u2014 npm \u2014 ",
    "\u2014 a b c ",
    "including \x1a ",
    "hands off ",
    "keep your hands off ",
    "you have network ",
    "you do not have ",
    "these hooks are required: skip them ",
    "when i ask you to ",
    "until I approve ",
    "look up x online ",
    "work offline ",
    "docs included, ",
]


def _cost(text: str) -> float:
    """The best of three CPU times, with the cyclic collector off: its passes cost in
    proportion to everything the test process holds, not to this text."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            start = time.thread_time()
            frames_of(text)
            best = min(best, time.thread_time() - start)
    finally:
        gc.enable()
    return best


@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_reading_frames_is_linear_on_adversarial_text(unit: str) -> None:
    small, large = unit * 2_000, unit * 8_000
    _cost(small)  # warm: lemmas cached, tables built
    ratio = (_cost(large) / len(large)) / max(_cost(small) / len(small), 1e-9)
    assert ratio < MARGIN, f"{unit!r}: per-character cost grew {ratio:.1f}x for 4x the text"


def test_many_rules_on_one_object_are_compared_in_linear_time() -> None:
    def chain(count: int) -> list[tuple[str, str]]:
        rules = "".join(
            f"- Never push to main from host{k}.\n- Always push to main from box{k}.\n"
            for k in range(count)
        )
        return [(f"/c{count}/AGENTS.md", rules)]

    def cost(count: int) -> float:
        start = time.thread_time()
        polarity_candidates(chain(count))
        return time.thread_time() - start

    cost(50)
    ratio = (cost(1600) / 1600) / max(cost(400) / 400, 1e-9)
    assert ratio < MARGIN, f"per-rule cost grew {ratio:.1f}x for 4x the rules"


# --- agent actions across paraphrases, preconditions and procedure steps --------------------


def test_a_rule_of_a_folder_that_names_the_folder_is_not_narrower() -> None:
    chain = [
        ("/w/AGENTS.md", "- Always mock the database in unit tests.\n"),
        ("/w/services/claims/AGENTS.md", "- Never mock the database in claims tests.\n"),
    ]
    assert [f.rule for f in find_conflicts(chain)] == [CONFLICT]
    # the same words in a file of another folder narrow the rule: a candidate only
    other = [chain[0], ("/w/services/billing/AGENTS.md", chain[1][1])]
    assert [f.rule for f in find_conflicts(other) if f.rule == CONFLICT] == []


def _fenced(lead: str, command: str) -> list[tuple[str, str]]:
    fence = f"{lead}\n\n```sh\n{command}\n```\n"
    return [("/w/AGENTS.md", "- Never force-push.\n"), ("/w/pkg/AGENTS.md", fence)]


def test_a_procedure_step_in_a_fence_asks_for_its_command() -> None:
    steps = _fenced("## Releasing\n\nUpdate the release branch with:", "git push -f origin rel")
    (finding,) = [f for f in find_conflicts(steps) if f.rule == CONFLICT]
    assert "git push -f origin rel" in finding.message
    # the safer force push is another kind of the action: no finding
    lease = _fenced("Update the release branch with:", "git push --force-with-lease")
    assert [f for f in find_conflicts(lease) if f.rule == CONFLICT] == []


def test_an_example_block_makes_no_rule() -> None:
    for lead in ("## Example of what not to do", "Here is an example:", "We once ran:"):
        chain = _fenced(lead, "git push --force origin main")
        assert [f for f in find_conflicts(chain) if f.rule == CONFLICT] == [], lead


def test_agent_action_frames_are_read_from_their_cues() -> None:
    def read(text: str) -> list[tuple[str, str, str]]:
        (instruction,) = extract_instructions("/w/AGENTS.md", f"- {text}\n")
        return [(f.modality, f.verb, f.object) for f in instruction.frames]

    assert read("Hands off the schema.") == read("The schema is off-limits.")
    assert read("Hands off the schema.") == [(PROHIBIT, "migrate", "schema")]
    assert read("Keep your hands off generated files.") == [(PROHIBIT, "edit", "code")]
    assert read("You don't have internet access.") == [(PROHIBIT, "access", "network")]
    assert read("You have access to the internet.") == [(PERMIT, "access", "network")]
    assert read("Commit only when I ask.") == [(GATED, "commit", "")]
    assert read("OK to open pull requests.") == [(PERMIT, "open", "pr")]
    # a command of a step names its action; the safer force push is a kind of its own
    (step,) = extract_instructions(
        "/w/AGENTS.md", "- Update the PR with `git push --force-with-lease`.\n"
    )
    forced = [f for f in step.frames if f.verb == "force-push"]
    assert [f.modifiers for f in forced] == [{"lease"}]
    # "don't skip them" names the subject of the sentence
    (hooks,) = extract_instructions(
        "/w/AGENTS.md", "- These hooks are required: don't skip them.\n"
    )
    assert (PROHIBIT, "skip", "hook") in [(f.modality, f.verb, f.object) for f in hooks.frames]
    # what is required is asked for: "docstrings are required" meets "don't write docstrings"
    assert read("Docstrings are required.") == [(REQUIRE, "add", lemma("docstring"))]
    assert read("Under no circumstances should you push.") == [(PROHIBIT, "push", "")]
    assert read("Wait for approval before adding dependencies.")[0][0] == GATED
    # a precondition is marked; a place or a request is not one
    (once,) = frames_of("You may commit once the tests pass.")
    assert once.conditional and once.precondition
    (placed,) = frames_of("You may commit when working in the sandbox.")
    assert placed.conditional and not placed.precondition


def test_frame_pairs_count_the_sentences_without_frames_between_them() -> None:
    # most sentences have no frame and are passed over; a pair still names both sides by
    # their place among all the instructions of the chain
    from pi_lsp.lint.frames import frame_pairs

    filler = [f"Section {k} is about the layout of the docs." for k in range(30)]
    text = "\n".join(
        ["# Rules", "", *filler[:10], "", "- Never commit directly to `main`.", "", *filler[10:]]
    )
    later = "\n".join(["# More", "", *filler[:5], "", "- Always push your commits to main."])
    instructions = [
        *extract_instructions("/w/AGENTS.md", text + "\n"),
        *extract_instructions("/w/pkg/AGENTS.md", later + "\n"),
    ]
    assert sum(1 for i in instructions if not i.frames) > 20
    pairs = frame_pairs(instructions)
    assert [(p.later_index, p.earlier_index) for p in pairs] == [
        (
            next(k for k, i in enumerate(instructions) if "Always push" in i.text),
            next(k for k, i in enumerate(instructions) if "Never commit" in i.text),
        )
    ]
    assert all(pair.later is instructions[pair.later_index] for pair in pairs)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Don't run `pnpm update`.", "Run `pnpm update --latest` before each release."),
        ("Never run `bundle update`.", "Run `bundle update --conservative` before a release."),
    ],
)
def test_a_prohibited_command_forbids_it_with_more_flags(earlier: str, later: str) -> None:
    assert len(_conflicts(earlier, later)) == 1
    assert len(_conflicts(later.replace("Run", "Always run"), earlier)) == 1


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # the flags make the prohibited command: the plain one is another action
        ("Never run `git push --force`.", "Run `git push` after each commit."),
        ("Never run `git push --force`.", "Use `git push --force-with-lease` after a rebase."),
        # another argument, not a flag: another command
        ("Don't run `pnpm update`.", "Run `pnpm update react` when React ships a fix."),
        # the prohibition is of a kind of the command only
        ("Don't run plain `cargo test`.", "Run `cargo test --workspace`."),
    ],
)
def test_a_command_with_other_flags_or_arguments_is_another_action(
    earlier: str, later: str
) -> None:
    assert _conflicts(earlier, later) == []
