"""``pi-lsp session …``: look into a Pi session file from a terminal.

This module declares the command line and holds what the subcommands share; each subcommand
runs in its own module (``pi_lsp.cli.session_context``, ``session_tree``, ``session_compact``).
Each reads its file with :meth:`SessionFile.read` (no lock, never written; an old version is
migrated in memory). A file that cannot be read or is not a Pi session is one line on stderr
(``pi-lsp: file[:line]: why``) and exit code :data:`~pi_lsp.cli.output.EXIT_FAILED`; what
reading found (skipped lines, a torn last line, migration notes) goes to stderr as
``file:line:column: severity: message [rule]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_lsp.cli.output import report

if TYPE_CHECKING:
    from pi_lsp.session.session_file import SessionFile


def add_session_parser(commands: Any) -> None:
    session = commands.add_parser(
        "session",
        help="look into a Pi session file",
        description="Read a Pi session file (any version; never rewritten by these commands).",
    )
    actions = session.add_subparsers(dest="session_command", metavar="ACTION")
    actions.required = True

    context = actions.add_parser(
        "context",
        help="print the messages the model would get",
        description=(
            "Print the messages a model would receive for the session's active branch (or for "
            "--leaf), after compaction and branch summaries, as Pi projects them."
        ),
    )
    context.add_argument("file", type=Path, help="session .jsonl file")
    context.add_argument("--leaf", default=None, metavar="ID", help="entry id to project from")
    context.add_argument("--json", action="store_true", help="print the messages as JSON")

    tree = actions.add_parser(
        "tree",
        help="print the session tree with labels, the leaf and summaries",
        description="Print the session's entry tree: branches, labels, the leaf, summaries.",
    )
    tree.add_argument("file", type=Path, help="session .jsonl file")
    tree.add_argument("--json", action="store_true", help="print the tree as JSON")

    compact = actions.add_parser(
        "compact",
        help="preview a compaction: where it cuts, what it summarises, tokens before and after",
        description=(
            "Show what compacting the session's active branch would do: the cut point, the "
            "entries that would be summarised and kept, and the context tokens before and after. "
            "With --dry-run (required for now) nothing is written and no model is called."
        ),
    )
    compact.add_argument("file", type=Path, help="session .jsonl file")
    compact.add_argument("--dry-run", action="store_true", required=True, help="only preview")
    compact.add_argument("--leaf", default=None, metavar="ID", help="entry id to compact from")
    compact.add_argument("--json", action="store_true", help="print the preview as JSON")
    compact.add_argument(
        "--context-window", type=int, default=None, help="model window (default 128000)"
    )
    compact.add_argument(
        "--keep-recent-tokens", type=int, default=None, help="tokens to keep (default 20000)"
    )
    compact.add_argument(
        "--reserve-tokens", type=int, default=None, help="tokens to reserve (default 16384)"
    )


def run_session_command(opts: argparse.Namespace) -> int:
    if opts.session_command == "context":
        from pi_lsp.cli.session_context import run_context_command

        return run_context_command(opts)
    if opts.session_command == "tree":
        from pi_lsp.cli.session_tree import run_tree_command

        return run_tree_command(opts)
    from pi_lsp.cli.session_compact import run_compact_command

    return run_compact_command(opts)


def read_session_for_command(path: str) -> SessionFile | None:
    """The session at ``path`` with its findings reported on stderr, or ``None`` (the reason
    on stderr) when it cannot be read or is not a session: exit with ``EXIT_FAILED``."""
    from pi_lsp.session.errors import SessionFileError
    from pi_lsp.session.session_file import SessionFile

    try:
        session = SessionFile.read(path)
    except SessionFileError as error:
        report(str(error))
        return None
    for finding in session.findings:
        sys.stderr.write(finding.to_text() + "\n")
    return session


def require_leaf(session: SessionFile, path: str, leaf: str | None) -> bool:
    """Whether ``--leaf`` (``None``: not given) names an entry of the session; when it does
    not, says so on stderr: exit with ``EXIT_USAGE`` (Pi would silently use the last entry,
    which hides a mistyped or stale id)."""
    if leaf is None or session.get_entry(leaf) is not None:
        return True
    report(f"{path}: no entry with id {leaf!r} (--leaf); `pi-lsp session tree` lists them")
    return False
