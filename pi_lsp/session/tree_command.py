"""``pi-lsp session tree FILE [--json]``: print a session file's entry tree.

The file is only read: an old version is migrated in memory, never rewritten. Problems found
while reading (skipped lines, a torn last line, migration notes) go to stderr as
``file:line:column: severity: message [rule]`` and, with ``--json``, into the payload.
Exit 0 when the tree is printed, 1 when the file cannot be read or is not a session.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pi_lsp.resources.model import Finding
from pi_lsp.session.errors import SessionFileError
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.tree_view import build_tree_view, render_tree_text, tree_view_json

__all__ = ["run_tree_command"]

EXIT_OK = 0
EXIT_FAILED = 1


def _report(findings: Sequence[Finding]) -> None:
    for finding in findings:
        where = finding.where
        sys.stderr.write(
            f"{where.path}:{where.start_line + 1}:{where.start_column + 1}: "
            f"{finding.severity}: {finding.message} [{finding.rule}]\n"
        )


def _write(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8", "replace"))
    sys.stdout.buffer.flush()


def run_tree_command(opts: argparse.Namespace) -> int:
    path = str(opts.file)
    try:
        session = SessionFile.read(path)
    except SessionFileError as error:
        sys.stderr.write(f"pi-lsp: {error}\n")
        return EXIT_FAILED
    view = build_tree_view(session)
    _report(session.findings)
    if opts.json:
        payload = tree_view_json(view)
        payload["findings"] = [finding.to_json() for finding in session.findings]
        _write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        _write(render_tree_text(view))
    return EXIT_OK
