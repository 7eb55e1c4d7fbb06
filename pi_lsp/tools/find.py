"""The ``find`` tool: list files and directories matching a glob, as Pi 0.85.0 does with fd.

There is no fd here; :mod:`pi_lsp.tools.file_walk` walks the tree with fd's rules (spec §2.4):
the glob is matched against each entry's name, or against its absolute path when the pattern
contains a ``/`` (with ``**/`` put in front unless it starts with ``/`` or ``**/``); letter case
is ignored unless the pattern has an uppercase letter; hidden entries are listed, ignore files
respected, and directories shown with a trailing ``/``. Results come in a stable order (see
:mod:`pi_lsp.tools.file_walk`) where fd's own order depends on its threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from pi_lsp.js.json import as_js_number, js_number
from pi_lsp.tools.base import ABORTED_MESSAGE, ToolContext, ToolError, ToolResult
from pi_lsp.tools.file_walk import FdWalk, WalkCancelled, inside_git_repository
from pi_lsp.tools.glob_automaton import GlobAutomaton, GlobSpec
from pi_lsp.tools.glob_regex import GlobError, GlobOptions, has_uppercase, parse_glob
from pi_lsp.tools.listing import Note, capped_result
from pi_lsp.tools.paths import resolve_to_cwd

DEFAULT_LIMIT = 1000
NO_FILES = "No files found matching pattern"
_FD_GLOB = GlobOptions(literal_separator=True)


class FindTool:
    """Find files and directories by glob below a directory (fd's rules, .gitignore honoured)."""

    name = "find"
    label = "find"
    description = (
        "List the files and directories whose name matches a glob pattern, searching below a "
        "directory. A pattern containing '/' is matched against the whole path instead of the "
        "name. Paths are shown relative to the searched directory, directories end in '/', "
        "hidden entries are included and .gitignore is honoured. At most "
        f"{DEFAULT_LIMIT} results and 50KB of output are returned."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "required": ["pattern"],
        "properties": {
            "pattern": {
                "type": "string",
                "description": "Glob to look for, like '*.py', 'test_*' or 'docs/**/*.md'",
            },
            "path": {
                "type": "string",
                "description": "Directory to search; defaults to the working directory",
            },
            "limit": {
                "type": "number",
                "description": f"Stop after this many results ({DEFAULT_LIMIT} unless set)",
            },
        },
    }

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.check_aborted()
        search_path = resolve_to_cwd(args.get("path") or ".", ctx.cwd)
        limit = args.get("limit")
        effective_limit: float = limit if limit is not None else DEFAULT_LIMIT
        max_results = fd_max_results(effective_limit)
        if not os.path.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        if not os.path.isdir(search_path):
            raise ToolError(
                f"[fd error]: Search path '{search_path}' is not a directory.\n"
                "[fd error]: No valid search paths given."
            )
        name_glob, full_path = fd_pattern(args["pattern"])
        cancelled = threading.Event()
        walk = FdWalk(
            search_path,
            require_git=inside_git_repository(search_path),
            working_dir=str(ctx.cwd),
            cancelled=cancelled,
        )
        search = partial(_search, walk, name_glob, full_path, max_results)
        found = await _run_cancellable(ctx, search, cancelled)
        if not found:
            return ToolResult.text(NO_FILES)
        return _result(found, effective_limit)


def fd_max_results(limit: float) -> int | None:
    """fd's ``--max-results`` from Pi's limit: 0 means no limit, fractions and negatives fail."""
    text = js_number(limit)
    if not text.isdigit():
        raise ToolError(
            f"error: invalid value '{text}' for '--max-results <count>': invalid digit found in "
            "string\n\nFor more information, try '--help'."
        )
    return int(text) or None


def fd_pattern(pattern: str) -> tuple[GlobAutomaton | None, bool]:
    """The matcher of fd's glob for Pi's pattern (``None`` matches everything) and full-path
    mode; a path costs one pass over its bytes whatever the glob."""
    full_path = "/" in pattern
    if full_path and not (pattern.startswith(("/", "**/")) or pattern == "**"):
        pattern = "**/" + pattern
    if not pattern:
        return None, full_path
    try:
        tokens = parse_glob(pattern, _FD_GLOB)
    except GlobError as exc:
        raise ToolError(f"[fd error]: {exc}") from None
    spec = GlobSpec(tokens, _FD_GLOB, ignore_case=not has_uppercase(tokens))
    return GlobAutomaton([spec]), full_path


def _search(
    walk: FdWalk,
    name_glob: GlobAutomaton | None,
    full_path: bool,
    max_results: int | None,
) -> list[str]:
    """Matching entries as Pi shows them (relative, ``/`` after directories), up to the limit."""
    found: list[str] = []
    for entry in walk.entries():
        subject = entry.absolute if full_path else entry.name
        if name_glob is not None and not name_glob.fullmatch(subject):
            continue
        shown = entry.relative.decode("utf-8", "replace")
        found.append(shown + "/" if entry.is_dir else shown)
        if max_results is not None and len(found) >= max_results:
            break
    return found


async def _run_cancellable(
    ctx: ToolContext, work: Callable[[], list[str]], cancelled: threading.Event
) -> list[str]:
    """Run the blocking walk in a thread; an abort fails the call with ``Operation aborted``.

    However the call ends — a result, an abort, an error or the task being cancelled — the
    walk is told to stop, so no thread goes on walking for a caller that is gone.
    """
    task = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        if ctx.signal is None:
            return await _finish(task)
        abort = asyncio.ensure_future(ctx.signal.wait())
        try:
            await asyncio.wait({task, abort}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            abort.cancel()
        if ctx.signal.aborted:
            cancelled.set()
            with contextlib.suppress(WalkCancelled):
                await task
            raise ToolError(ABORTED_MESSAGE)
        return await _finish(task)
    finally:
        cancelled.set()


async def _finish(task: asyncio.Future[list[str]]) -> list[str]:
    try:
        return await task
    except WalkCancelled:
        raise ToolError(ABORTED_MESSAGE) from None


def _result(found: list[str], limit: float) -> ToolResult:
    limit_notes: list[Note] = []
    if len(found) >= limit:
        notice = (
            f"{js_number(limit)} results limit reached. "
            f"Use limit={js_number(limit * 2)} for more, or refine pattern"
        )
        limit_notes.append((notice, "resultLimitReached", as_js_number(limit)))
    return capped_result(found, before=limit_notes)


TOOL = FindTool()
