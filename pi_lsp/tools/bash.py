"""The ``bash`` tool: run a command, stream its output, give the model a bounded tail of it.

The command runs in its own process group with stdin closed; stdout and stderr share one pipe, so
they interleave in the order the command wrote them. A timeout or an abort kills the whole group.
Output goes through :class:`OutputAccumulator`; once it passes a limit every byte is also in
``$TMPDIR/pi-bash-<16 hex>.log`` and the marker after the kept tail names that file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import shutil
import signal
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pi_lsp.js.json import js_number
from pi_lsp.tools.base import ToolContext, ToolError, ToolResult
from pi_lsp.tools.output_accumulator import OutputAccumulator, OutputSnapshot
from pi_lsp.tools.truncation import format_size

log = logging.getLogger(__name__)
_T = TypeVar("_T")

READ_SIZE = 64 * 1024
UPDATE_INTERVAL = 0.1  # seconds between partial results (Pi: at most one per 100 ms)
MAX_TIMEOUT = 2147483.647  # seconds: the largest timer Node accepts
#: How long to keep reading after the shell exits while a background child holds the pipe.
PIPE_GRACE = 0.25
#: Variables that describe the agent's own session; the agent sets them afresh when it runs.
SESSION_VARIABLES = (
    "PI_SESSION_ID",
    "PI_SESSION_FILE",
    "PI_PROVIDER",
    "PI_MODEL",
    "PI_REASONING_LEVEL",
)

NO_OUTPUT = "(no output)"


def truncation_marker(snapshot: OutputSnapshot) -> str:
    """The line that tells the model what it is missing and where the rest is."""
    cut = snapshot.truncation
    if snapshot.spill_error is not None:
        where = f"Full output could not be saved ({snapshot.spill_error})"
    else:
        where = f"Full output: {snapshot.full_output_path}"
    total = cut.total_lines
    if cut.last_line_partial:
        return (
            f"[Showing last {format_size(cut.output_bytes)} of line {total} "
            f"(line is {format_size(snapshot.last_line_bytes)}). {where}]"
        )
    first = total - cut.output_lines + 1
    if cut.truncated_by == "lines":
        return f"[Showing lines {first}-{total} of {total}. {where}]"
    return (
        f"[Showing lines {first}-{total} of {total} ({format_size(cut.max_bytes)} limit). {where}]"
    )


def output_text(snapshot: OutputSnapshot) -> str:
    """Kept output plus its truncation marker, or ``(no output)``."""
    text = snapshot.truncation.content or NO_OUTPUT
    if snapshot.truncation.truncated:
        text += "\n\n" + truncation_marker(snapshot)
    return text


def output_details(snapshot: OutputSnapshot) -> dict[str, Any] | None:
    if not snapshot.truncation.truncated:
        return None
    details: dict[str, Any] = {"truncation": snapshot.truncation.to_json()}
    if snapshot.spill_error is not None:
        details["fullOutputError"] = snapshot.spill_error
    else:
        details["fullOutputPath"] = snapshot.full_output_path
    return details


def _check_timeout(timeout: Any) -> float | None:
    if timeout is None:
        return None
    if not isinstance(timeout, int | float) or not math.isfinite(timeout) or timeout <= 0:
        raise ToolError("Invalid timeout: must be a finite number of seconds")
    if timeout > MAX_TIMEOUT:
        raise ToolError(f"Invalid timeout: maximum is {js_number(MAX_TIMEOUT)} seconds")
    return float(timeout)


def _shell(ctx: ToolContext) -> str:
    if ctx.shell_path:
        if not os.path.exists(ctx.shell_path):
            raise ToolError(f"Custom shell path not found: {ctx.shell_path}")
        return ctx.shell_path
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


def _environment(ctx: ToolContext) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SESSION_VARIABLES}
    if ctx.env:
        env.update(ctx.env)
    return env


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the command's process group (it leads its own session), else the process."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()


class _Guarded(Generic[_T]):
    """A caller's callback whose failures are logged instead of stopping the command.

    Streaming must go on whatever an editor panel does with the text: a reader that stopped
    would leave the command blocked on a full pipe.
    """

    def __init__(self, name: str, callback: Callable[[_T], None]) -> None:
        self._name = name
        self._callback = callback
        self.failures = 0

    def __call__(self, value: _T) -> None:
        try:
            self._callback(value)
        except Exception:
            self.failures += 1
            if self.failures == 1:
                log.exception("bash: the %s callback failed; the command goes on", self._name)
            else:
                log.debug("bash: the %s callback failed again", self._name, exc_info=True)


class _Updates:
    """Partial results for ``ctx.on_update``: at most one per interval, the last one always."""

    def __init__(self, emit: Callable[[ToolResult], None], snapshot: Callable[[], ToolResult]):
        self._emit = emit
        self._snapshot = snapshot
        self._last = 0.0
        self._pending: asyncio.TimerHandle | None = None

    def changed(self) -> None:
        if self._pending is not None:
            return  # the update already waiting will carry this change too
        now = time.monotonic()
        if now - self._last >= UPDATE_INTERVAL:
            self._send()
        else:
            delay = UPDATE_INTERVAL - (now - self._last)
            self._pending = asyncio.get_running_loop().call_later(delay, self._send)

    def _send(self) -> None:
        self._pending = None
        self._last = time.monotonic()
        self._emit(self._snapshot())

    def flush(self) -> None:
        """Send the update still waiting for its turn, now."""
        if self._pending is not None:
            self._pending.cancel()
            self._send()

    def close(self) -> None:
        """No update may follow: the call is over (also when it was cancelled)."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None


class BashTool:
    name = "bash"
    label = "bash"
    description = (
        "Run a command with bash in the working directory and return what it printed "
        "(stdout and stderr together). Long output is cut to its last 2000 lines or 50KB, "
        "whichever comes first; the cut is marked and the complete output is saved to a file "
        "whose path is given. A non-zero exit code, a timeout or an abort is reported as an "
        "error along with the output."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "required": ["command"],
        "properties": {
            "command": {"type": "string", "description": "The command line to run with bash"},
            "timeout": {
                "type": "number",
                "description": "Seconds before the command is killed (no limit by default)",
            },
        },
    }

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command: str = args["command"]
        timeout = _check_timeout(args.get("timeout"))
        if ctx.shell_command_prefix:
            command = f"{ctx.shell_command_prefix}\n{command}"
        cwd = str(ctx.cwd)
        if not os.path.isdir(cwd):
            raise ToolError(
                f"Working directory does not exist: {cwd}\nCannot execute bash commands."
            )
        shell = _shell(ctx)
        if ctx.signal is not None and ctx.signal.aborted:
            raise ToolError("Command aborted")

        output = OutputAccumulator(spill_prefix="pi-bash")
        on_output = None if ctx.on_output is None else _Guarded("on_output", ctx.on_output)
        updates = None
        if ctx.on_update is not None:
            on_update = _Guarded("on_update", ctx.on_update)
            on_update(ToolResult(content=(), details=None))
            updates = _Updates(on_update, lambda: _partial_result(output))
        try:
            outcome = await self._run(
                shell,
                command,
                cwd,
                _environment(ctx),
                timeout,
                output,
                on_output,
                updates,
                ctx,
            )
            tail_text = output.finish()
            if tail_text and on_output is not None:
                on_output(tail_text)
            snapshot = output.snapshot(persist_if_truncated=True)
            if updates is not None:
                updates.flush()
        finally:
            if updates is not None:
                updates.close()
            output.close()
        text = output_text(snapshot)
        if outcome == "timeout":
            assert timeout is not None
            raise ToolError(
                _with_output(snapshot, f"Command timed out after {js_number(timeout)} seconds")
            )
        if outcome == "aborted":
            raise ToolError(_with_output(snapshot, "Command aborted"))
        if isinstance(outcome, int) and outcome > 0:
            raise ToolError(f"{text}\n\nCommand exited with code {outcome}")
        return ToolResult.text(text, output_details(snapshot))

    async def _run(
        self,
        shell: str,
        command: str,
        cwd: str,
        env: dict[str, str],
        timeout: float | None,
        output: OutputAccumulator,
        on_output: Callable[[str], None] | None,
        updates: _Updates | None,
        ctx: ToolContext,
    ) -> int | str:
        """Run to the end; the exit code (negative for a signal), or "timeout" / "aborted".

        The reader is watched along with the process: if it fails, nobody would empty the
        pipe and the command would block on it, so the command is killed and the failure
        raised.
        """
        # Our own pipe, not asyncio's: asyncio's wait() also waits for its pipes to close,
        # which a background child that inherited them may never do.
        read_fd, write_fd = os.pipe()
        try:
            process = await _start(shell, command, cwd, env, write_fd)
        except BaseException as exc:
            os.close(read_fd)
            if isinstance(exc, OSError):
                raise ToolError(f"Could not start {shell}: {exc.strerror or exc}") from exc
            raise
        finally:
            os.close(write_fd)
        loop = asyncio.get_running_loop()
        stdout = asyncio.StreamReader(limit=READ_SIZE, loop=loop)
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(stdout, loop=loop),
                os.fdopen(read_fd, "rb", 0),
            )
        except BaseException:  # cancelled before the command is watched: take it down
            _kill_group(process)
            raise

        async def pump() -> None:
            while chunk := await stdout.read(READ_SIZE):
                text = output.append(chunk, want_text=on_output is not None)
                if text and on_output is not None:
                    on_output(text)
                if updates is not None:
                    updates.changed()

        reader = asyncio.create_task(pump())
        exited = asyncio.create_task(process.wait())
        waiters: set[asyncio.Task[Any]] = {exited, reader}
        aborted = None
        if ctx.signal is not None:
            aborted = asyncio.create_task(ctx.signal.wait())
            waiters.add(aborted)
        deadline = None if timeout is None else loop.time() + timeout
        outcome: int | str | None = None
        try:
            while outcome is None:
                remaining = None if deadline is None else max(0.0, deadline - loop.time())
                done, _ = await asyncio.wait(
                    waiters, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if reader in done:
                    waiters.discard(reader)  # end of output; the shell may still run
                    failure = reader.exception()
                    if failure is not None:
                        _kill_group(process)
                        await exited
                        raise failure
                if exited in done:
                    outcome = exited.result()
                elif aborted is not None and aborted in done:
                    outcome = "aborted"
                elif not done:
                    outcome = "timeout"
            if isinstance(outcome, str):
                _kill_group(process)
                await exited
            # Read what is left; a background child may hold the pipe open past the shell.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), PIPE_GRACE)
        finally:
            if process.returncode is None:  # we are being cancelled: take the command down too
                _kill_group(process)
            for task in (reader, exited, aborted):
                if task is not None and not task.done():
                    task.cancel()
            await asyncio.gather(
                reader, exited, *(t for t in (aborted,) if t), return_exceptions=True
            )
            transport.close()
        return outcome


async def _start(
    shell: str, command: str, cwd: str, env: dict[str, str], output_fd: int
) -> asyncio.subprocess.Process:
    """Start the command in a process group of its own, writing to ``output_fd``.

    A cancellation while it starts waits for the start to finish and kills what it started
    (asyncio alone would kill the shell but not the children it may already have).
    """
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            shell,
            "-c",
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=output_fd,
            stderr=output_fd,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        while not starting.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({starting})
        if not starting.cancelled() and starting.exception() is None:
            _kill_group(starting.result())
        raise


def _partial_result(output: OutputAccumulator) -> ToolResult:
    snapshot = output.snapshot()
    return ToolResult.text(output_text(snapshot), output_details(snapshot))


def _with_output(snapshot: OutputSnapshot, status: str) -> str:
    if snapshot.truncation.content or snapshot.truncation.truncated:
        return f"{output_text(snapshot)}\n\n{status}"
    return status


TOOL = BashTool()
