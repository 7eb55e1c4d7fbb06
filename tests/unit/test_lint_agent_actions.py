"""What the agent itself may do, said in other words on the two sides: "the whole suite" and
"the complete test suite", a prohibition on the agent's machine against a requirement that
names no other place; and the near misses of each, which stay silent."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import CONFLICT, find_conflicts
from pi_lsp.lint.frames import Frame
from pi_lsp.lint.instructions import extract_instructions


def _frames(text: str) -> tuple[Frame, ...]:
    (instruction,) = extract_instructions("/w/AGENTS.md", f"- {text}\n")
    return instruction.frames


def _chain(earlier: str, later: str) -> list[tuple[str, str]]:
    return [("/w/AGENTS.md", f"# Rules\n\n- {earlier}\n"), ("/w/pkg/AGENTS.md", f"{later}\n")]


def _conflicts(earlier: str, later: str) -> list[str]:
    return [f.message for f in find_conflicts(_chain(earlier, later)) if f.rule == CONFLICT]


MEETING = [
    # whole / complete / full / entire say one thing, and a test suite is a suite
    (
        "Do not run the whole suite on your machine: it takes ~50 minutes.",
        "Always run the complete test suite before every commit, not only the tests you touched.",
    ),
    ("Never run the entire test suite.", "Run the full suite before you push."),
    ("Never run the full test suite locally.", "Always run the whole suite before committing."),
    ("Never run the e2e suite locally.", "Run the e2e suite before merging."),
    # what the agent may do as it sees fit, or with no sign-off, against a gate on it
    (
        "Do not add, remove or upgrade dependencies without asking first.",
        "Add whatever packages you need with `pnpm add`; the maintainers review the lockfile.",
    ),
    ("Ask before adding dependencies.", "Install any library you want."),
    ("Adding dependencies needs my approval first.", "Add packages as you need them."),
    # a command used as the verb of its argument, and "no sign-off required" after it
    (
        "Adding or upgrading dependencies needs my approval first: propose the change, then wait.",
        "Go ahead and `pnpm add` it — no sign-off required for UI-only packages.",
    ),
    ("Never add packages without our approval.", "Add a package, no approval is needed."),
    # what never goes into git is not to be committed, and an object's own parts go with it
    (
        "Notebooks: strip outputs before committing (`nbstripout`); outputs never go into git.",
        "Commit notebooks with their outputs so reviewers can see the plots.",
    ),
    ("Secrets must not end up in the repo.", "Commit the secrets with the config."),
    ("Generated clients never go into version control.", "Commit the generated clients."),
    # a file named by its extension is of its kind; a requirement meets what waits for a
    # request, which a standing rule to do it is not
    (
        "Don't create new Markdown files (notes, summaries) unless asked.",
        "After each change, write a `NOTES.md` in the touched folder describing what changed.",
    ),
    ("Do not create new Markdown files unless asked.", "Write a `SUMMARY.md` after each task."),
    ("Never edit Markdown files.", "Edit `docs/README.md` to fix the link."),
    ("Never add dependencies unless asked.", "Always add new dependencies to `package.json`."),
    # what a command asked for does, said in a "which" clause; "no X, no Y" forbids each
    (
        "No `curl`, no calls to the staging API or any other external service.",
        "Integration tests: run `npm run test:live`, which calls the staging API.",
    ),
    ("Never push to main.", "Run `make release`, which pushes to main."),
    ("No `curl`, no calls to the payments API.", "Call the payments API to check a balance."),
]


@pytest.mark.parametrize(("earlier", "later"), MEETING)
def test_other_words_for_one_agent_action_meet(earlier: str, later: str) -> None:
    (message,) = _conflicts(earlier, later)
    assert f"\u201c{later}\u201d here" in message


NEAR_MISSES = [
    # the requirement names another place than the agent's machine
    ("Do not run the whole suite on your machine.", "Run the complete test suite in CI."),
    ("Do not run the whole suite on your machine.", "Run the full suite on the CI runners."),
    ("Never run the full test suite locally.", "The full suite runs on the build server."),
    ("Don't run migrations on your machine.", "Run the migrations on staging."),
    ("Never run the e2e suite locally.", "Run the e2e suite in the dev container."),
    # a part of the suite is not the whole of it, nor another suite
    ("Never run the whole suite.", "Run the tests of the module you changed."),
    ("Never run the whole suite.", "Run the smoke suite before you push."),
    # a prohibition elsewhere than the agent's machine
    ("Never run the full suite in CI.", "Run the whole suite before committing."),
    # a gate against the action done once asked, or asked for without saying it needs no one
    ("Ask before adding dependencies.", "Add dependencies after asking."),
    ("Adding dependencies needs my approval first.", "Add the packages you need to the lockfile."),
    ("Do not add dependencies without asking first.", "Add the packages you need."),
    # a permission and a requirement of the same action
    ("You may add dependencies freely.", "Add whatever packages you need."),
    # no sign-off for another action, a command that names no agent action
    ("Adding dependencies needs my approval first.", "Fix typos in docs; no sign-off required."),
    ("Never add dependencies without approval.", "Go ahead and `make` it; no review needed."),
    # without their outputs, with the agent's own change, another thing, another place
    ("Outputs never go into git.", "Commit notebooks without their outputs."),
    ("Outputs never go into git.", "Commit the notebooks with your change."),
    ("Secrets never go into git.", "Commit notebooks with their outputs."),
    ("Build outputs never go to production.", "Commit the build outputs."),
    # a description of what is in git, not a rule
    ("Never commit outputs.", "Outputs go into git on the release branch."),
    # a gate on approval against a requirement: do it, once approved
    ("Ask before deleting branches.", "Always delete your branch after it merges."),
    ("Never push unless approved.", "Always push after committing."),
    # the action on request, asked for or allowed
    ("Never add dependencies unless the user asks.", "Add dependencies after the user asks."),
    ("Don't create new Markdown files unless asked.", "Write a `NOTES.md` when asked."),
    ("Don't create new Markdown files unless asked.", "You may write a `NOTES.md`."),
    # another kind of file, another action on one, a place on the never side
    ("Don't create new Markdown files unless asked.", "Write a `notes.py` script."),
    ("Never create new Python files unless asked.", "Write `NOTES.md`."),
    ("Never edit Markdown files.", "Create `docs/NOTES.md`."),
    ("Never create new Markdown files.", "Edit `README.md`."),
    ("Don't create Markdown files in `src/`.", "Write `docs/NOTES.md`."),
    # what the command does is something else, or it is not asked for
    ("Never call the staging API.", "Run `npm test`, which uses the recorded fixtures."),
    ("Never call the staging API.", "Run `make seed`, which is fast."),
    ("Never push to main.", "Never run `make release`, which pushes to main."),
    ("Never call the staging API.", "The docs explain `npm run test:live`, which calls it."),
]


@pytest.mark.parametrize(("earlier", "later"), NEAR_MISSES)
def test_near_misses_of_one_agent_action_stay_silent(earlier: str, later: str) -> None:
    assert _conflicts(earlier, later) == []


def test_the_agents_own_choice_needs_no_approval() -> None:
    (chosen,) = _frames("Install any library you want.")
    assert (chosen.verb, chosen.object, chosen.unasked) == ("add", "dependency", True)
    (needed,) = _frames("Add the packages you need.")
    assert not needed.unasked
    (command,) = _frames("Go ahead and `pnpm add` it — no sign-off required.")
    assert (command.verb, command.object, command.unasked) == ("add", "dependency", True)
    (gate,) = _frames("Upgrading dependencies needs my approval first.")
    assert (gate.verb, gate.object, gate.modality) == ("update", "dependency", "gated")


def test_a_place_named_by_the_work_is_no_scope() -> None:
    (frame,) = _frames("Write a `NOTES.md` in the touched folder describing what changed.")
    assert frame.scope == frozenset()
    assert frame.qualifiers == frozenset({"touch", "folder"})
    (placed,) = _frames("Write a `NOTES.md` in the docs folder.")
    assert placed.scope == frozenset({"docs", "folder"})


def test_a_gate_on_a_request_is_told_from_a_gate_on_approval() -> None:
    (asked,) = _frames("Don't create new Markdown files unless asked.")
    assert (asked.modality, asked.requested) == ("gated", True)
    (approved,) = _frames("Never push unless approved.")
    assert (approved.modality, approved.requested) == ("gated", False)
    (after,) = _frames("Push only after approval.")
    assert (after.modality, after.requested) == ("gated", False)
    (on_request,) = _frames("Add dependencies after the user asks.")
    assert (on_request.modality, on_request.requested) == ("gated", True)


def test_what_comes_after_comma_not_is_no_qualifier() -> None:
    (frame,) = _frames("Always run the complete test suite, not only the tests you touched.")
    assert (frame.verb, frame.object, frame.modifiers) == ("run", "suite", frozenset({"whole"}))
    assert frame.qualifiers == frozenset()
