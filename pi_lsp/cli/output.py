"""What the ``pi-lsp session …`` commands share: opening the file, reporting, writing output.

Each command reads its file with :meth:`SessionFile.read` (no lock, never written; an old
version is migrated in memory). A file that cannot be read or is not a Pi session is one line
on stderr (``pi-lsp: file[:line]: why``) and exit code :data:`EXIT_BAD_FILE`; what reading found
(skipped lines, a torn last line, migration notes) goes to stderr as
``file:line:column: severity: message [rule]``. Results go to stdout as UTF-8, lone surrogates
(possible in parsed JSON strings) as ``\\udxxx`` escapes; JSON as ``JSON.stringify(…, null, 2)``
writes it, keys in the order the data has them.
"""

from __future__ import annotations

import sys
from typing import Any

from pi_lsp.js_json import escape_lone_surrogates, json_stringify
from pi_lsp.session.errors import SessionFileError
from pi_lsp.session.session_file import SessionFile

__all__ = [
    "EXIT_BAD_FILE",
    "EXIT_OK",
    "EXIT_USAGE",
    "read_session_for_command",
    "report",
    "require_leaf",
    "write_json",
    "write_text",
]

EXIT_OK = 0
EXIT_BAD_FILE = 1
EXIT_USAGE = 2


def report(message: str) -> None:
    """``pi-lsp: message`` on stderr: why the command stops, or what it did instead."""
    sys.stderr.write(f"pi-lsp: {message}\n")


def read_session_for_command(path: str) -> SessionFile | None:
    """The session at ``path`` with its findings reported on stderr, or ``None`` (the reason
    on stderr) when it cannot be read or is not a session: exit with :data:`EXIT_BAD_FILE`."""
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
    not, says so on stderr: exit with :data:`EXIT_USAGE` (Pi would silently use the last
    entry, which hides a mistyped or stale id)."""
    if leaf is None or session.get_entry(leaf) is not None:
        return True
    report(f"{path}: no entry with id {leaf!r} (--leaf); `pi-lsp session tree` lists them")
    return False


def write_text(text: str) -> None:
    sys.stdout.buffer.write(escape_lone_surrogates(text).encode("utf-8"))
    sys.stdout.buffer.flush()


def write_json(payload: Any) -> None:
    write_text(json_stringify(payload, key_order="insertion", indent=2) + "\n")
