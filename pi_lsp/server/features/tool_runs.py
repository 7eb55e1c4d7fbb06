"""``pi/runTool``: run one built-in tool for the editor, streaming what it prints.

The request names a tool and its arguments. While the tool runs the server sends numbered
``pi/event`` notifications on one stream — ``start``, coalesced ``output`` text, ``end`` with
the result — and, where the client allows it, ``$/progress`` with the number of output lines.
The response is the tool's result. Cancelling the request (``$/cancelRequest``) or the progress
(``window/workDoneProgress/cancel``) aborts the tool: bash kills the command's process group,
the ``end`` event carries the aborted result, and a cancelled request is answered with
``RequestCancelled``. :meth:`ToolRuns.shutdown` aborts every run at shutdown. The protocol is
described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.server.event_stream import Event, EventStream
from pi_lsp.server.language_server import PROGRESS_CREATE_TIMEOUT, PiLanguageServer
from pi_lsp.server.requests import (
    ABORT_GRACE,
    SHUTDOWN_WAIT,
    event_sender,
    is_id,
    plain,
    shut_down,
)
from pi_lsp.tools.base import ABORTED_MESSAGE, AbortSignal, Tool, ToolContext, ToolResult
from pi_lsp.tools.registry import InvalidToolCall, execute, prepare_call

log = logging.getLogger(__name__)

METHOD = "pi/runTool"

StreamId = str | int


# --- params -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRequest:
    tool: str
    args: Any
    cwd: Path
    stream: StreamId | None
    work_done_token: types.ProgressToken | None


def parse_request(params: Any, root: str) -> RunRequest:
    """The request's params, checked; :class:`JsonRpcInvalidParams` says what is wrong."""
    raw = plain(params)
    if not isinstance(raw, dict):
        raise JsonRpcInvalidParams(f"{METHOD} needs params {{tool, args, cwd?, stream?}}")
    tool = raw.get("tool")
    if not isinstance(tool, str) or not tool:
        raise JsonRpcInvalidParams(f"{METHOD}: 'tool' must be the name of a built-in tool")
    cwd = raw.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise JsonRpcInvalidParams(f"{METHOD}: 'cwd' must be a path")
    stream = raw.get("stream")
    if stream is not None and not is_id(stream):
        raise JsonRpcInvalidParams(f"{METHOD}: 'stream' must be a string or an integer")
    token = raw.get("workDoneToken")
    if token is not None and not is_id(token):
        raise JsonRpcInvalidParams(f"{METHOD}: 'workDoneToken' must be a string or an integer")
    return RunRequest(
        tool=tool,
        args=raw.get("args", {}),
        cwd=Path(os.path.abspath(os.path.join(root, cwd or "."))),
        stream=stream,
        work_done_token=token,
    )


# --- progress ---------------------------------------------------------------------------------


def describe_call(tool: Tool, args: dict[str, Any]) -> str:
    """A short line for the progress bar: the command, path or pattern of the call."""
    for key in ("command", "path", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            line = value.strip().splitlines()[0]
            return line if len(line) <= 80 else line[:79] + "…"
    return tool.label


class LineCounter:
    """Lines in a text that arrives in pieces (a last line without a newline counts)."""

    def __init__(self) -> None:
        self.newlines = 0
        self.open_line = False

    def add(self, text: str) -> None:
        if text:
            self.newlines += text.count("\n")
            self.open_line = not text.endswith("\n")

    @property
    def lines(self) -> int:
        return self.newlines + (1 if self.open_line else 0)


def _lines_message(lines: int) -> str:
    return "1 line of output" if lines == 1 else f"{lines} lines of output"


class Progress:
    """``$/progress`` for one run, on the client's token or one the server created.

    Does nothing when there is no token (the client supports neither). A client cancelling
    the progress calls ``on_cancel``.
    """

    def __init__(self, ls: PiLanguageServer, token: types.ProgressToken | None) -> None:
        self._ls = ls
        self.token = token
        self._reported = 0
        self._ended = False

    @classmethod
    async def open(cls, ls: PiLanguageServer, requested: types.ProgressToken | None) -> Progress:
        if requested is not None:
            return cls(ls, requested)
        capabilities = getattr(ls.protocol, "client_capabilities", None)  # set by initialize
        window = capabilities.window if capabilities is not None else None
        if window is None or not window.work_done_progress:
            return cls(ls, None)
        token = f"pi-lsp/runTool/{uuid.uuid4().hex}"
        try:
            await asyncio.wait_for(
                ls.work_done_progress.create_async(token), PROGRESS_CREATE_TIMEOUT
            )
        except Exception as exc:  # no progress bar is no reason to fail the run
            log.debug("the client did not create progress %s: %s", token, exc)
            return cls(ls, None)
        return cls(ls, token)

    def begin(self, title: str, message: str, on_cancel: Callable[[], None]) -> None:
        if self.token is None:
            return
        self._ls.work_done_progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=title, message=message, cancellable=True),
        )
        cancelled = self._ls.work_done_progress.tokens.get(self.token)
        if cancelled is not None:

            def on_done(future: concurrent.futures.Future[Any]) -> None:
                if future.cancelled() and not self._ended:
                    on_cancel()

            cancelled.add_done_callback(on_done)

    def report(self, lines: int) -> None:
        if self.token is None or self._ended or lines == self._reported or shut_down(self._ls):
            return
        self._reported = lines
        self._ls.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=_lines_message(lines))
        )

    def end(self, message: str) -> None:
        if self.token is None or self._ended:
            return
        self._ended = True
        self._ls.work_done_progress.tokens.pop(self.token, None)  # pygls keeps them forever
        if shut_down(self._ls):
            return
        self._ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))


# --- running ----------------------------------------------------------------------------------


class ToolRuns:
    """The ``pi/runTool`` runs of one server, by stream id."""

    def __init__(self) -> None:
        self.active: dict[StreamId, AbortSignal] = {}
        self.tasks: set[asyncio.Task[Any]] = set()

    def new_stream_id(self) -> str:
        return f"tool-{uuid.uuid4().hex[:16]}"

    async def shutdown(self, timeout: float = SHUTDOWN_WAIT) -> None:
        """Abort every run and wait (at most ``timeout`` seconds) until each has answered.

        At the ``shutdown`` request: no command may outlive the server, and a run that ends
        before ``exit`` gets its ``end`` event and its response out while the output is open.
        """
        for signal in list(self.active.values()):
            signal.abort()
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=timeout)

    async def run(self, ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        request = parse_request(params, ls.state.root)
        try:
            tool, args = prepare_call(request.tool, request.args)
        except InvalidToolCall as exc:
            raise JsonRpcInvalidParams(f"{METHOD}: {exc}") from exc
        stream = request.stream if request.stream is not None else self.new_stream_id()
        if stream in self.active:
            raise JsonRpcInvalidParams(f"{METHOD}: stream {stream!r} is still running")
        signal = AbortSignal()
        task = asyncio.current_task()
        self.active[stream] = signal
        if task is not None:
            self.tasks.add(task)
        try:
            return await _run(ls, request, tool, args, stream, signal)
        finally:
            del self.active[stream]
            if task is not None:
                self.tasks.discard(task)


async def _run(
    ls: PiLanguageServer,
    request: RunRequest,
    tool: Tool,
    args: dict[str, Any],
    stream: StreamId,
    signal: AbortSignal,
) -> dict[str, Any]:
    progress = await Progress.open(ls, request.work_done_token)
    output = LineCounter()
    notify = event_sender(ls)

    def send(event: Event) -> None:
        if shut_down(ls):
            return
        notify(event)
        if event.get("type") == "output":
            output.add(event["text"])
            progress.report(output.lines)

    events = EventStream(send, {"stream": stream})

    def on_output(text: str) -> None:
        if not events.closed:  # a tool cancelled outright may still be winding down
            events.emit_text("output", text)

    cancelled = False
    result: ToolResult | None = None
    try:
        progress.begin(f"pi: {tool.name}", describe_call(tool, args), signal.abort)
        events.emit({"type": "start", "tool": tool.name, "args": args})
        ctx = ToolContext(
            cwd=request.cwd,
            signal=signal,
            on_output=on_output,
        )
        task = asyncio.ensure_future(execute(tool, args, ctx))
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
            signal.abort()
            result = await _settle(task)
        aborted = signal.aborted and result.is_error  # not when it had finished already
        end: Event = {"type": "end", "isError": result.is_error, **result.to_json()}
        if aborted:
            end["aborted"] = True
        events.emit(end)
    finally:
        events.close()
        if result is None:
            progress.end("stopped")
        elif signal.aborted and result.is_error:
            progress.end("aborted")
        else:
            status = "failed" if result.is_error else "done"
            lines = output.lines
            progress.end(f"{status}: {_lines_message(lines)}" if lines else status)
    if cancelled:
        raise asyncio.CancelledError
    return {"stream": stream, "isError": result.is_error, **result.to_json()}


async def _settle(task: asyncio.Future[ToolResult]) -> ToolResult:
    """The result of an aborted tool once it has stopped; cancel it if it takes too long."""
    try:
        done, _ = await asyncio.wait({task}, timeout=ABORT_GRACE)
        if not done:
            log.warning("a tool ignored its abort for %s s; cancelling it", ABORT_GRACE)
            task.cancel()
            await asyncio.wait({task})
    except asyncio.CancelledError:  # cancelled again (the server is going down)
        task.cancel()
        raise
    if task.cancelled():
        return ToolResult.error(ABORTED_MESSAGE)
    failure = task.exception()
    if failure is not None:
        return ToolResult.error(str(failure) or type(failure).__name__)
    return task.result()


# --- registration -----------------------------------------------------------------------------


def runs_of(server: PiLanguageServer) -> ToolRuns:
    """The ``pi/runTool`` runs ``server`` holds."""
    return server.feature_state(ToolRuns)


def register(server: PiLanguageServer) -> None:
    runs = runs_of(server)

    @server.feature(METHOD)
    async def run_tool(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await runs.run(ls, params)
