"""``pi-lsp session …``: look into a Pi session file from a terminal.

Each subcommand lives with the engine part it shows (``pi_lsp.session.*_command``); this module
only declares the command line.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


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
