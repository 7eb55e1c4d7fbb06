"""How every ``pi-lsp`` command ends and writes: exit codes, reports on stderr, stdout writers.

A command that stops says why in one line on stderr, ``pi-lsp: message`` (:func:`report`,
:func:`fail`), and exits with one of the codes below. Results go to stdout as UTF-8 bytes by
one of two writers, which differ in what they do with a lone surrogate (possible in text read
from JSON): :func:`write_escaped` writes it as a ``\\udxxx`` escape (the ``session`` commands),
:func:`write_replacing` writes ``?`` in its place (``check``, ``prompt``, ``tool``, ``chat``).
JSON goes out as ``JSON.stringify(…, null, 2)`` writes it, keys in the order the data has them
(:func:`write_json`).

This module is imported on every start (``pi-lsp --help`` too), so it imports nothing heavy at
its top.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_SIGINT",
    "EXIT_SIGTERM",
    "EXIT_USAGE",
    "fail",
    "report",
    "write_escaped",
    "write_json",
    "write_replacing",
]

#: the command did what it was asked
EXIT_OK = 0
#: it ran and failed: findings at the ``--fail-on`` level, an error result or answer, a file
#: that cannot be read or is not a session, a ``trust.json`` that could not be written
EXIT_FAILED = 1
#: the command line asks for something that cannot be done (argparse's code too)
EXIT_USAGE = 2
#: stopped by SIGINT / SIGTERM (128 + the signal's number, as a shell reports it)
EXIT_SIGINT = 130
EXIT_SIGTERM = 143


def report(message: str) -> None:
    """``pi-lsp: message`` on stderr: why the command stops, or what it did instead."""
    sys.stderr.write(f"pi-lsp: {message}\n")
    sys.stderr.flush()


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """:func:`report` ``message`` and return ``code`` (the command's exit code)."""
    report(message)
    return code


def write_escaped(text: str) -> None:
    """``text`` on stdout as UTF-8, each lone surrogate as a ``\\udxxx`` escape."""
    from pi_lsp.js.json import escape_lone_surrogates

    sys.stdout.buffer.write(escape_lone_surrogates(text).encode("utf-8"))
    sys.stdout.buffer.flush()


def write_replacing(text: str) -> None:
    """``text`` on stdout as UTF-8, each lone surrogate replaced by ``?``; on a terminal, a
    text without a final newline gets one (so the shell prompt starts on its own line)."""
    data = text.encode("utf-8", "replace")
    if sys.stdout.isatty() and not text.endswith("\n"):
        data += b"\n"
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def write_json(payload: Any) -> None:
    """``payload`` as indented JSON (keys in insertion order) and a newline, by
    :func:`write_escaped`."""
    from pi_lsp.js.json import json_stringify

    write_escaped(json_stringify(payload, key_order="insertion", indent=2) + "\n")
