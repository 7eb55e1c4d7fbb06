"""Action frames that name one action in other words: a deploy command, a file below a folder
kept off-limits, "X is mine to run"; and the near misses of each, which stay silent."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import CONFLICT, find_conflicts
from pi_lsp.lint.frames import PROHIBIT, Frame, folders_of, frames_of
from pi_lsp.lint.instructions import extract_instructions


def _chain(earlier: str, later: str) -> list[tuple[str, str]]:
    return [("/w/AGENTS.md", f"# Rules\n\n- {earlier}\n"), ("/w/pkg/AGENTS.md", f"{later}\n")]


def _conflicts(earlier: str, later: str) -> list[str]:
    return [f.message for f in find_conflicts(_chain(earlier, later)) if f.rule == CONFLICT]


MEETING = [
    # a deploy command names the deploy action, as `kubectl apply` does
    ("Never deploy anything.", "Run `pnpm exec cdk deploy EdgeStack-dev` when you are done."),
    ("Do not deploy.", "Update the preview with `wrangler deploy`."),
    ("Never deploy yourself.", "Run `pulumi up` to apply the stack."),
    # a file below a folder kept from edits
    (
        "Do not modify anything under `Assets/Plugins/`.",
        "If an event fails to load, patch `Assets/Plugins/FMOD/src/RuntimeManager.cs` directly.",
    ),
    ("Never edit `src/generated`.", "Edit `src/generated/api/client.ts` to fix the types."),
    ("`vendor/` is read-only.", "Patch `vendor/github.com/x/y/z.go` when the build breaks."),
    # "X is mine to run": the agent is not to run it
    ("Database migrations are mine to run.", "After every pull, run `mix ecto.migrate`."),
    ("Migrations are the DBA's to run.", "Run the pending migrations after pulling."),
    ("Schema migrations are ours to apply.", "Apply the migrations once the model changes."),
    # a parenthesised list of commands after the object names what the rule covers, and
    # "don't bother asking" after a clause says it needs no approval
    (
        "Never run destructive git commands (`git reset --hard`, `git clean -fdx`) without asking.",
        "If the build breaks, run `git clean -fdx` and reinstall \u2014 don't bother asking.",
    ),
    (
        "Never run risky commands (`git push --force` or `git reset --hard`) without approval.",
        "Force-push your branch after a rebase; no need to ask.",
    ),
    (
        "Never run `git reset --hard` without asking.",
        "Run `git reset --hard`, don't bother asking.",
    ),
]


@pytest.mark.parametrize(("earlier", "later"), MEETING)
def test_other_words_for_one_action_meet(earlier: str, later: str) -> None:
    (message,) = _conflicts(earlier, later)
    assert f"\u201c{later}\u201d here" in message


NEAR_MISSES = [
    # a command that previews or builds is no deploy
    ("Never deploy anything.", "Run `cdk diff` to see what would change."),
    ("Never deploy anything.", "Run `pulumi preview` before asking for review."),
    ("Never deploy anything.", "Run `cdk synth` in CI."),
    # a platform's deploy command forbidden forbids that platform, not deploying
    ("Deploy with `fly deploy`.", "Do not run `vercel deploy`: the Vercel project is archived."),
    ("Run `cdk deploy` when you are done.", "Never run `netlify deploy`."),
    ("Run `cdk deploy` when you are done.", "Never update the preview with `vercel deploy`."),
    # the never side names a place the deploy does not
    ("Never deploy to production.", "Run `cdk deploy EdgeStack-dev` when you are done."),
    # a gate against an obligation: deploy, once approved
    ("Ask before deploying.", "Run `wrangler deploy` after the review."),
    # another folder: a sibling that shares the prefix, a folder above, a file of the same name
    ("Do not modify `src/generated/`.", "Edit `src/generated-old/api.ts` to fix the types."),
    ("Do not modify `src/generated/`.", "Edit `src/app.ts` to fix the types."),
    ("Do not modify `src/generated/api/`.", "Edit `src/generated/index.ts`."),
    ("Never edit `generated/`.", "Edit `src/generated/api.ts`."),
    # another action on a file below it, or a place on the never side
    ("Do not modify `vendor/`.", "Read `vendor/x/README.md` before upgrading."),
    ("Never edit `src/generated/` in CI.", "Edit `src/generated/api.ts` locally."),
    # "yours to run" and "easy to run" give no prohibition
    ("Migrations are yours to run.", "Run the pending migrations after pulling."),
    ("The migrations are easy to run.", "Run the pending migrations after pulling."),
    ("Migrations are not mine to run.", "Run the pending migrations after pulling."),
    # someone else's to do, on another action
    ("Releases are mine to cut.", "Run the pending migrations after pulling."),
    # another command than the listed ones; the listed ones, asked for after approval
    (
        "Never run destructive git commands (`git reset --hard`) without asking.",
        "Run `git reset --soft HEAD~1` to undo the commit \u2014 don't bother asking.",
    ),
    (
        "Never run destructive git commands (`git reset --hard`) without asking.",
        "If the build breaks, run `git reset --hard`.",
    ),
    # a list in the subject, before any verb, is not read as examples of an object
    ("Lockfiles (`uv.lock`, `go.sum`) are fine to edit.", "Never edit `go.sum` in CI."),
    # "don't bother" with another verb says nothing of approval
    ("Never push without asking.", "Push your branch; don't bother rebasing."),
]


@pytest.mark.parametrize(("earlier", "later"), NEAR_MISSES)
def test_near_misses_stay_silent(earlier: str, later: str) -> None:
    assert _conflicts(earlier, later) == []


def test_folders_of_a_path() -> None:
    assert folders_of("`a/b/c.cs`") == ("`a/`", "`a`", "`a/b/`", "`a/b`")
    assert folders_of("`./src/x.ts`") == ("`src/`", "`src`")
    # a command, a URL, a glob, a bare name: no folders
    assert folders_of("`pnpm test`") == ()
    assert folders_of("`https://example.com/a/b`") == ()
    assert folders_of("`src/**/*.ts`") == ()
    assert folders_of("`README.md`") == ()


def test_mine_to_run_reads_a_prohibition() -> None:
    (frame,) = frames_of("Database migrations are mine to run.")
    assert (frame.modality, frame.verb, frame.object) == (PROHIBIT, "migrate", "schema")


def _frames(text: str) -> tuple[Frame, ...]:
    (instruction,) = extract_instructions("/w/AGENTS.md", f"- {text}\n")
    return instruction.frames


def test_examples_after_an_object_are_read_as_included() -> None:
    verbs = [
        (f.verb, f.object, f.modality)
        for f in _frames("Never run destructive commands (`git reset --hard`, `git push -f`).")
    ]
    assert verbs == [
        ("run", "command", PROHIBIT),
        ("run", "`git reset --hard`", PROHIBIT),
        ("force-push", "", PROHIBIT),
    ]
    # anything besides code spans in the parentheses: an aside, dropped as before
    (aside,) = _frames("Never run destructive commands (like `git reset --hard`).")
    assert aside.object == "command"


def test_dont_bother_asking_marks_the_sentence_unasked() -> None:
    ran, reinstalled = _frames("Run `git clean -fdx` and reinstall \u2014 don't bother asking.")
    assert ran.unasked and reinstalled.unasked
    (plain,) = _frames("Run `git clean -fdx`.")
    assert not plain.unasked


def _choice_conflicts(earlier: str, later: str) -> list[str]:
    chain = [("/w/AGENTS.md", f"# Rules\n\n- {earlier}\n"), ("/w/pkg/AGENTS.md", f"- {later}\n")]
    return [f.message for f in find_conflicts(chain) if f.rule == CONFLICT]


def test_an_option_that_picks_a_clang_format_style_is_a_choice() -> None:
    (message,) = _choice_conflicts(
        "clang-format with `BasedOnStyle: Google` and a 100-column limit.",
        "Format this directory with `clang-format -style=LLVM`.",
    )
    assert "clang-format style" in message and "LLVM" in message and "Google" in message
    (braced,) = _choice_conflicts(
        "Use `BasedOnStyle: Google`.", 'Run `clang-format -style="{BasedOnStyle: Mozilla}"`.'
    )
    assert "Mozilla" in braced
    # the same style, a style read from the file, a bare name, another kind of style: silent
    assert _choice_conflicts("Use `BasedOnStyle: LLVM`.", "Run `clang-format --style=llvm`.") == []
    assert _choice_conflicts("Use `BasedOnStyle: Google`.", "Run `clang-format -style=file`.") == []
    assert (
        _choice_conflicts("Use `BasedOnStyle: LLVM`.", "Follow the Google C++ style guide.") == []
    )
    assert _choice_conflicts("Docstring style: Google.", "Run `clang-format -style=LLVM`.") == []


def test_an_xctestcase_subclass_is_an_xctest_test() -> None:
    (message,) = _choice_conflicts(
        "New tests are written with Swift Testing (`import Testing`, `@Test`).",
        "Write every new test as an `XCTestCase` subclass.",
    )
    assert "XCTest" in message and "Swift Testing" in message
    # the same framework, and what no longer uses it: silent
    assert (
        _choice_conflicts("Tests use XCTest.", "Write new tests as `XCTestCase` subclasses.") == []
    )
    assert (
        _choice_conflicts(
            "New tests use Swift Testing.",
            "Migrate `XCTestCase` subclasses to Swift Testing when you touch them.",
        )
        == []
    )


def test_a_list_after_a_subject_is_no_example_of_an_object() -> None:
    # the verb is in a relative clause of the subject: the list names the subject's members
    subject = _frames("Files that change often (`a.ts`, `b.ts`) must not be edited by hand.")
    assert [(f.verb, f.object) for f in subject] == [("edit", "code")]
    # a participle that opens the subject is no imperative
    generated = _frames("Generated files (`api.ts`, `types.ts`) must not be edited.")
    assert [(f.verb, f.object) for f in generated] == [("edit", "code")]
    listed = _frames("Never run the slow checks (`pnpm e2e`, `pnpm bench`) locally.")
    assert {f.object for f in listed} >= {"`pnpm e2e`", "`pnpm bench`"}
    # a list after an object asked for only illustrates it
    illustrated = _frames("Use pnpm in this repository (`pnpm install`, `pnpm -r build`).")
    assert [f.object for f in illustrated] == ["pnpm"]
