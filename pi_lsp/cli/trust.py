"""``pi-lsp trust``: record, revoke or show a project trust decision in ``trust.json``.

The decisions are the ones Pi's "Trust project folder?" dialog saves (spec §4.3): ``Trust``
writes ``true`` for the folder, ``Trust parent folder`` writes ``true`` for its parent and
removes the folder's own entry, ``Do not trust`` writes ``false``. They are written by
:func:`pi_lsp.resources.trust.save_trust_many`, the code the language server uses, under Pi's
lock; a ``trust.json`` that cannot be read is never overwritten.

Also here: what ``pi-lsp prompt`` says on stderr about what an untrusted project lost.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from shlex import quote
from typing import TYPE_CHECKING, Any

from pi_lsp.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, report
from pi_lsp.resources.agent_dir import canonicalize_path, resolve_agent_dir, resolve_path
from pi_lsp.resources.layout import PROMPTS_DIR_NAME, SKILLS_DIR_NAME

if TYPE_CHECKING:
    from pi_lsp.resources.loader import Resources
    from pi_lsp.resources.trust import TrustDecision, TrustRequirement

#: what each trust-requiring entry of ``.pi`` holds, as the reader knows it
_REQUIREMENT_LABELS = {
    "settings.json": "project settings",
    "extensions": "project extensions",
    SKILLS_DIR_NAME: "project skills",
    PROMPTS_DIR_NAME: "project prompt templates",
    "themes": "project themes",
    "SYSTEM.md": "replaces the system prompt",
    "APPEND_SYSTEM.md": "appended to the system prompt",
}


def add_trust_parser(commands: Any) -> None:
    trust = commands.add_parser(
        "trust",
        help="trust a project (or revoke it) in the agent dir's trust.json, as Pi does",
        description=(
            "Record in <agent dir>/trust.json the decision Pi's 'Trust project folder?' dialog "
            "saves for DIR (default .): trusted, or with --revoke not trusted. Pi and pi-lsp "
            "then load (or keep ignoring) the project's .pi settings, SYSTEM.md, "
            "APPEND_SYSTEM.md, skills and prompts. A trust.json that cannot be read is never "
            "overwritten. Exit status: 0 when done, 1 when trust.json could not be read, "
            "locked or written (it is left as it was), 2 on usage errors."
        ),
    )
    trust.add_argument("dir", nargs="?", default=".", type=Path, help="project folder")
    trust.add_argument("--agent-dir", default=None, help="agent dir (default: ~/.pi/agent)")
    action = trust.add_mutually_exclusive_group()
    action.add_argument(
        "--revoke",
        action="store_true",
        help="record that DIR is not trusted (Pi's 'Do not trust'); beats a trusted parent",
    )
    action.add_argument(
        "--parent",
        action="store_true",
        help="trust DIR's parent folder instead, and drop DIR's own entry (Pi's "
        "'Trust parent folder')",
    )
    action.add_argument(
        "--forget",
        action="store_true",
        help="remove DIR's own entry; a decision for a parent folder applies again",
    )
    action.add_argument(
        "--status", action="store_true", help="show whether DIR is trusted and why; write nothing"
    )
    action.add_argument(
        "--list", action="store_true", help="list every decision in trust.json; write nothing"
    )


def _show(path: str) -> str:
    """``path`` as every ``pi-lsp`` command names it to the user: by the shown-path rule,
    relative to the shell's working folder, so it can be pasted back into that shell."""
    from pi_lsp.resources.shown_paths import shown_path

    return shown_path(path, os.getcwd())


def _reason(decision: TrustDecision) -> str:
    """Why ``decision`` was made, with ``trust.json`` named as :func:`_show` names it."""
    return decision.reason.replace(decision.store_path, _show(decision.store_path))


def run_trust_command(opts: argparse.Namespace) -> int:
    from pi_lsp.resources.trust import read_trust_store, trust_store_path

    agent_dir = resolve_agent_dir(opts.agent_dir)
    if opts.list:
        store = read_trust_store(agent_dir)
        if not store.ok:
            return _store_problems(store.findings)
        for key, entry in sorted(store.entries.items()):
            verdict = {True: "trusted", False: "not trusted", None: "no decision"}[entry.decision]
            sys.stdout.write(f"{verdict:<12} {key}\n")
        if not store.entries:
            sys.stdout.write(f"No decisions in {_show(trust_store_path(agent_dir))}\n")
        return EXIT_OK
    directory = os.path.abspath(opts.dir)
    if not os.path.isdir(directory):
        report(f"not a folder: {opts.dir}")
        return EXIT_USAGE
    if opts.status:
        return _print_status(directory, agent_dir)
    return _record(directory, agent_dir, opts)


def _store_problems(findings: Any) -> int:
    from pi_lsp.resources.trust import located_message

    for finding in findings:
        report(located_message(finding))
    return EXIT_FAILED


def _record(directory: str, agent_dir: str, opts: argparse.Namespace) -> int:
    from pi_lsp.resources.trust import (
        TrustStoreError,
        save_trust_many,
        trust_choices,
        unwritten_reason,
    )

    choices = trust_choices(directory, include_session_only=False)
    if opts.forget:
        updates: tuple[tuple[str, bool | None], ...] = (
            (canonicalize_path(resolve_path(directory)), None),
        )
    elif opts.revoke:
        updates = choices[-1].updates
    elif opts.parent:
        parent = [c for c in choices if len(c.updates) == 2]
        if not parent:
            report(f"{directory} has no parent folder to trust")
            return EXIT_USAGE
        updates = parent[0].updates
    else:
        updates = choices[0].updates
    try:
        store = save_trust_many(agent_dir, updates)
    except (OSError, TrustStoreError) as error:
        report(unwritten_reason(error))
        return EXIT_FAILED
    for key, decision in updates:
        if decision is None:
            sys.stdout.write(f"Removed the entry for {key} from {_show(store.path)}\n")
        else:
            verdict = "Trusted" if decision else "Not trusted"
            sys.stdout.write(f"{verdict}: {key} (saved in {_show(store.path)})\n")
    return _print_status(directory, agent_dir)


def _print_status(directory: str, agent_dir: str) -> int:
    from pi_lsp.resources.trust import resolve_project_trust

    decision = resolve_project_trust(directory, agent_dir)
    verdict = "trusted" if decision.trusted else "not trusted"
    sys.stdout.write(f"{decision.cwd} is {verdict}: {_reason(decision)}\n")
    if decision.requirements:
        resources = ", ".join(_show(r.path) for r in decision.requirements)
        heading = "Loaded because it is trusted" if decision.trusted else "Needs trust for"
        sys.stdout.write(f"{heading}: {resources}\n")
    if decision.rule == "store-error":
        return _store_problems(decision.findings)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# ``pi-lsp prompt`` in an untrusted project


def _requirement_text(requirement: TrustRequirement, root: str) -> str:
    from pi_lsp.resources.shown_paths import shown_path

    shown = shown_path(requirement.path, root)
    if requirement.kind == "agents-skills":
        return f"{shown} (project skills)"
    return f"{shown} ({_REQUIREMENT_LABELS[os.path.basename(requirement.path)]})"


def left_out_lines(resources: Resources, agent_dir_option: str | None = None) -> list[str]:
    """What an untrusted project's prompt goes without and how to trust it, as stderr lines
    (none when the project is trusted or needs no trust). ``agent_dir_option`` is the
    ``--agent-dir`` the user gave, repeated in the suggested command."""
    trust: TrustDecision = resources.trust
    if trust.trusted or not trust.requirements:
        return []
    root = resources.cwd
    store = _show(trust.store_path)
    lines = [
        f"pi-lsp: the project {trust.cwd} is not trusted ({_reason(trust)}), so the prompt "
        "leaves out:",
        *(f"  {_requirement_text(r, root)}" for r in trust.requirements),
    ]
    if trust.rule == "store-error":
        lines.append(
            f"pi-lsp: fix {store} first (pi-lsp trust never overwrites it while it "
            "cannot be read), or pass --approve to trust the project for this run"
        )
    elif trust.rule != "cli-no-approve":
        option = "" if agent_dir_option is None else f" --agent-dir {quote(resources.agent_dir)}"
        command = f"pi-lsp trust{option} {quote(trust.cwd)}"
        lines.append(
            f"pi-lsp: to trust it, run `{command}` (saved in {store}, "
            "which Pi reads too), or pass --approve for this run"
        )
    return lines
