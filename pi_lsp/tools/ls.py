"""The ``ls`` tool: list one directory as Pi 0.85.0 does (spec §2.5).

Entries, dotfiles included, are ordered like ``a.toLowerCase().localeCompare(b.toLowerCase())``
(see :mod:`pi_lsp.tools.collation`); directories and symlinks to directories get a trailing
``/``, and entries that cannot be stat'ed (broken symlinks) are left out.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import Any

from pi_lsp.js.json import as_js_number, js_number
from pi_lsp.tools.base import ToolContext, ToolError, ToolResult
from pi_lsp.tools.collation import locale_compare_key
from pi_lsp.tools.listing import Note, capped_result
from pi_lsp.tools.node_errors import node_error_message
from pi_lsp.tools.paths import resolve_to_cwd

DEFAULT_LIMIT = 500
EMPTY_DIRECTORY = "(empty directory)"


class LsTool:
    """List a directory: names in locale order, ``/`` after directories."""

    name = "ls"
    label = "ls"
    description = (
        "Show what a directory contains, one name per line in case-insensitive alphabetical "
        "order. Dotfiles are included and directories end in '/'. At most "
        f"{DEFAULT_LIMIT} entries and 50KB of output are returned."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Directory to list; defaults to the working directory",
            },
            "limit": {
                "type": "number",
                "description": f"Show at most this many entries ({DEFAULT_LIMIT} unless set)",
            },
        },
    }

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.check_aborted()
        dir_path = resolve_to_cwd(args.get("path") or ".", ctx.cwd)
        limit = args.get("limit")
        effective_limit: float = limit if limit is not None else DEFAULT_LIMIT
        shown, limit_reached = await asyncio.to_thread(_list, dir_path, effective_limit)
        ctx.check_aborted()
        if not shown:
            return ToolResult.text(EMPTY_DIRECTORY)
        return _result(shown, effective_limit, limit_reached)


def _list(dir_path: str, limit: float) -> tuple[list[str], bool]:
    """The shown entries in Pi's order (up to ``limit``) and whether more exist."""
    entries = _read_directory(dir_path)
    # Names that only differ in bytes invalid as UTF-8 decode alike: their raw bytes decide.
    entries.sort(key=lambda entry: (locale_compare_key(entry[0]), entry[1]))
    shown: list[str] = []
    for name, _raw in entries:
        if len(shown) >= limit:
            return shown, True
        suffix = _suffix(os.path.join(dir_path, name))
        if suffix is not None:
            shown.append(name + suffix)
    return shown, False


def _read_directory(dir_path: str) -> list[tuple[str, bytes]]:
    """Each entry's name as Node reads it (invalid UTF-8 becomes U+FFFD) and as stored."""
    if not os.path.exists(dir_path):
        raise ToolError(f"Path not found: {dir_path}")
    try:
        is_dir = stat.S_ISDIR(os.stat(dir_path).st_mode)
    except OSError as exc:
        raise ToolError(node_error_message(exc, "stat", dir_path)) from None
    if not is_dir:
        raise ToolError(f"Not a directory: {dir_path}")
    try:
        raw_names = os.listdir(os.fsencode(dir_path))
    except OSError as exc:
        raise ToolError(
            f"Cannot read directory: {node_error_message(exc, 'scandir', dir_path)}"
        ) from None
    return [(name.decode("utf-8", "replace"), name) for name in raw_names]


def _suffix(path: str) -> str | None:
    """``/`` for a directory (symlinks followed), ``""`` otherwise, ``None`` when stat fails."""
    try:
        return "/" if stat.S_ISDIR(os.stat(path).st_mode) else ""
    except (OSError, ValueError):
        return None


def _result(shown: list[str], limit: float, limit_reached: bool) -> ToolResult:
    limit_notes: list[Note] = []
    if limit_reached:
        notice = (
            f"{js_number(limit)} entries limit reached. Use limit={js_number(limit * 2)} for more"
        )
        limit_notes.append((notice, "entryLimitReached", as_js_number(limit)))
    return capped_result(shown, before=limit_notes)


TOOL = LsTool()
