"""Action frames that name one action in other words: a deploy command, a file below a folder
kept off-limits, "X is mine to run"; and the near misses of each, which stay silent."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import CONFLICT, find_conflicts
from pi_lsp.lint.frames import PROHIBIT, folders_of, frames_of


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
