"""``pi-lsp session tree FILE [--json]``: print a session file's entry tree.

The file is only read: an old version is migrated in memory, never rewritten. Problems found
while reading (skipped lines, a torn last line, migration notes) go to stderr as
``file:line:column: severity: message [rule]`` and, with ``--json``, into the payload.
Exit 0 when the tree is printed, 1 when the file cannot be read or is not a session.
"""

from __future__ import annotations

import argparse

from pi_lsp.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    write_escaped,
    write_json,
)
from pi_lsp.cli.session import read_session_for_command
from pi_lsp.session.tree_view import build_tree_view, render_tree_text, tree_view_json

__all__ = ["run_tree_command"]


def run_tree_command(opts: argparse.Namespace) -> int:
    session = read_session_for_command(str(opts.file))
    if session is None:
        return EXIT_FAILED
    view = build_tree_view(session)
    if opts.json:
        payload = tree_view_json(view)
        payload["findings"] = [finding.to_json() for finding in session.findings]
        write_json(payload)
    else:
        write_escaped(render_tree_text(view))
    return EXIT_OK
