"""The bash tool: results, streaming, timeouts, aborts and the processes it leaves behind."""

from __future__ import annotations

import asyncio
import errno
import itertools
import logging
import os
import re
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import output_accumulator
from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.registry import run_tool
from tests.processes import all_gone

SPILL = re.compile(r"Full output: (\S+pi-bash-[0-9a-f]{16}\.log)\]$")


@pytest.fixture(autouse=True)
def private_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Spill files go to this test's own directory, never to the machine's /tmp."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


async def bash(command: str, cwd: Path, **kwargs: object) -> ToolResult:
    timeout = kwargs.pop("timeout", None)
    args: dict[str, object] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    return await run_tool("bash", args, ToolContext(cwd=cwd, **kwargs))  # type: ignore[arg-type]


def text_of(result: ToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_small_output_is_verbatim(tmp_path: Path) -> None:
    result = await bash("printf 'a\\nb\\n'", tmp_path)
    assert (text_of(result), result.is_error, result.details) == ("a\nb\n", False, None)


async def test_stderr_and_stdout_share_one_stream_in_order(tmp_path: Path) -> None:
    result = await bash("echo one; echo two >&2; echo three", tmp_path)
    assert text_of(result) == "one\ntwo\nthree\n"


async def test_runs_in_the_working_directory(tmp_path: Path) -> None:
    result = await bash("pwd", tmp_path)
    assert text_of(result) == f"{tmp_path}\n"


async def test_long_output_keeps_the_tail_and_spills_everything(tmp_path: Path) -> None:
    result = await bash("seq 1 100000", tmp_path)
    text = text_of(result)
    assert text.startswith("98001\n")
    match = SPILL.search(text)
    assert match, text[-200:]
    assert Path(match.group(1)).parent == Path(tempfile.gettempdir())
    assert "\n100000\n\n[Showing lines 98001-100000 of 100000. Full output: " in text
    assert Path(match.group(1)).read_text() == "".join(f"{i}\n" for i in range(1, 100001))
    assert result.details is not None
    assert result.details["fullOutputPath"] == match.group(1)
    assert result.details["truncation"]["totalLines"] == 100000


async def test_last_line_ending_in_newline_reports_its_real_size(tmp_path: Path) -> None:
    # Pi 0.85.0 says "line is 0B" here (spec §15.1); pi-lsp reports the line it cut.
    result = await bash("head -c 60000 /dev/zero | tr '\\0' b; echo", tmp_path)
    assert "\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output:" in text_of(result)
    assert result.details is not None
    assert result.details["truncation"]["lastLinePartial"] is True
    assert result.details["truncation"]["outputBytes"] == 51200


async def test_a_line_longer_than_the_rolling_tail_keeps_its_end(tmp_path: Path) -> None:
    # Pi 0.85.0 sends "(no output)" and "Showing lines 2-1 of 1" here (spec §15.1).
    result = await bash("head -c 300000 /dev/zero | tr '\\0' c; echo", tmp_path)
    text = text_of(result)
    assert text.startswith("c" * 51200 + "\n\n[Showing last 50.0KB of line 1 (line is 293.0KB).")


async def test_non_zero_exit_is_an_error_with_the_output(tmp_path: Path) -> None:
    result = await bash("printf 'partial output\\n'; exit 3", tmp_path)
    assert result.is_error
    assert text_of(result) == "partial output\n\n\nCommand exited with code 3"
    assert result.details == {}


async def test_exit_without_output(tmp_path: Path) -> None:
    result = await bash("exit 1", tmp_path)
    assert text_of(result) == "(no output)\n\nCommand exited with code 1"


async def test_binary_and_invalid_utf8_output_is_readable(tmp_path: Path) -> None:
    result = await bash("printf 'ok\\377\\376\\000end'", tmp_path)
    assert text_of(result) == "ok\ufffd\ufffd\x00end"


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    # a grandchild that would outlive the shell, and ignores SIGTERM for good measure
    command = f"(trap '' TERM; sleep 30) & echo $! > {pid_file}; echo started; wait"
    result = await bash(command, tmp_path, timeout=0.5)
    assert result.is_error
    assert text_of(result) == "started\n\n\nCommand timed out after 0.5 seconds"
    assert await all_gone([int(pid_file.read_text())])


async def test_abort_kills_the_command_and_says_so(tmp_path: Path) -> None:
    abort = AbortSignal()
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(
        bash(f"sleep 30 & echo $! > {pid_file}; echo waiting; wait", tmp_path, signal=abort)
    )
    await pid_written(pid_file)
    abort.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.is_error
    assert text_of(result) == "waiting\n\n\nCommand aborted"
    assert await all_gone([int(pid_file.read_text())])


async def pid_written(pid_file: Path) -> None:
    """Wait (at most 2 s) until the command has written its pid."""
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            return
        await asyncio.sleep(0.01)


async def test_cancelling_the_call_kills_the_command(tmp_path: Path) -> None:
    pid_file = tmp_path / "shell.pid"
    task = asyncio.create_task(bash(f"echo $$ > {pid_file}; sleep 30", tmp_path))
    await pid_written(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await all_gone([int(pid_file.read_text())])


async def test_cancelling_right_after_the_start_kills_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = asyncio.get_running_loop()
    connect = loop.connect_read_pipe

    async def slow_connect(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.5)  # a busy loop: the command runs before its output is watched
        return await connect(*args, **kwargs)

    monkeypatch.setattr(loop, "connect_read_pipe", slow_connect)
    pid_file = tmp_path / "shell.pid"
    task = asyncio.create_task(bash(f"echo $$ > {pid_file}; sleep 30", tmp_path))
    await pid_written(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await all_gone([int(pid_file.read_text())])


async def test_background_child_holding_the_pipe_does_not_hang_the_call(tmp_path: Path) -> None:
    result = await asyncio.wait_for(bash("sleep 5 & echo done", tmp_path), 3)
    assert text_of(result) == "done\n"
    os.killpg(0, 0)  # our own group is untouched


async def test_streaming_callbacks(tmp_path: Path) -> None:
    chunks: list[str] = []
    updates: list[ToolResult] = []
    result = await bash(
        "for i in 1 2 3; do echo line$i; sleep 0.15; done",
        tmp_path,
        on_output=chunks.append,
        on_update=updates.append,
    )
    assert "".join(chunks) == "line1\nline2\nline3\n"
    assert len(chunks) >= 2  # arrived as it was written, not at the end
    assert updates[0].content == ()  # Pi sends an empty update first
    assert text_of(updates[-1]) == text_of(result)


async def test_missing_working_directory(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    result = await bash("true", missing)
    assert result.is_error
    assert (
        text_of(result)
        == f"Working directory does not exist: {missing}\nCannot execute bash commands."
    )


@pytest.mark.parametrize(
    ("timeout", "message"),
    [
        (0, "Invalid timeout: must be a finite number of seconds"),
        (-1, "Invalid timeout: must be a finite number of seconds"),
        (3e6, "Invalid timeout: maximum is 2147483.647 seconds"),
    ],
)
async def test_invalid_timeouts(tmp_path: Path, timeout: float, message: str) -> None:
    result = await bash("true", tmp_path, timeout=timeout)
    assert (text_of(result), result.is_error) == (message, True)


async def test_killed_by_a_signal_is_not_an_error(tmp_path: Path) -> None:
    # Pi treats a null exit code (death by signal) as success; the output still shows.
    result = await bash(f"echo before; kill -{signal.SIGKILL.value} $$", tmp_path)
    assert (text_of(result), result.is_error) == ("before\n", False)


async def test_shell_prefix_and_session_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_SESSION_ID", "outer-session")
    result = await bash(
        'echo "[$GREETING] [${PI_SESSION_ID:-unset}]"',
        tmp_path,
        shell_command_prefix="GREETING=hello",
    )
    assert text_of(result) == "[hello] [unset]\n"


async def test_custom_shell_must_exist(tmp_path: Path) -> None:
    result = await bash("true", tmp_path, shell_path="/no/such/shell")
    assert text_of(result) == "Custom shell path not found: /no/such/shell"


# --------------------------------------------------------------------------------------------
# failures around the command: spill file, callbacks, the reader, cancellation


async def test_disk_full_while_spilling_keeps_reading_and_says_so(
    tmp_path: Path, private_temp_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    spilled = 0

    def disk_fills_after_100kb(fd: int, data: Any) -> int:
        nonlocal spilled
        if "pi-bash-" in os.readlink(f"/proc/self/fd/{fd}"):
            if spilled > 100_000:
                raise OSError(errno.ENOSPC, "No space left on device")
            spilled += len(data)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", disk_fills_after_100kb)
    result = await asyncio.wait_for(bash("seq 1 100000", tmp_path), 10)
    text = text_of(result)
    assert not result.is_error
    assert text.startswith("98001\n")
    assert text.endswith(
        "\n100000\n\n[Showing lines 98001-100000 of 100000. "
        "Full output could not be saved (ENOSPC: no space left on device, write)]"
    )
    assert list(private_temp_dir.iterdir()) == []  # no half-written file is left or named
    assert result.details is not None
    assert "fullOutputPath" not in result.details
    assert result.details["fullOutputError"] == "ENOSPC: no space left on device, write"
    assert result.details["truncation"]["totalLines"] == 100000


async def test_missing_temp_dir_still_gives_the_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "deleted-tmp"
    monkeypatch.setattr(tempfile, "tempdir", str(gone))
    result = await asyncio.wait_for(bash("seq 1 100000", tmp_path), 10)
    text = text_of(result)
    assert text.startswith("98001\n")
    assert re.search(
        r"\n100000\n\n\[Showing lines 98001-100000 of 100000\. Full output could not be saved "
        rf"\(ENOENT: no such file or directory, open '{re.escape(str(gone))}/pi-bash-[0-9a-f]{{16}}"
        r"\.log'\)\]$",
        text,
    ), text[-300:]


async def test_failing_callbacks_are_logged_and_the_command_finishes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calls = {"output": 0, "update": 0}

    def broken_output(text: str) -> None:
        calls["output"] += 1
        raise RuntimeError("panel closed")

    def broken_update(result: ToolResult) -> None:
        calls["update"] += 1
        raise RuntimeError("update sink gone")

    with caplog.at_level(logging.DEBUG, logger="pi_lsp.tools.bash"):
        result = await asyncio.wait_for(
            bash("seq 1 100000", tmp_path, on_output=broken_output, on_update=broken_update),
            10,
        )
    assert not result.is_error
    assert text_of(result).startswith("98001\n")
    assert calls["output"] > 1 and calls["update"] > 1  # still called after failing
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        "bash: the on_update callback failed; the command goes on",
        "bash: the on_output callback failed; the command goes on",
    ]


async def test_a_failing_reader_kills_the_command_instead_of_hanging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_append = output_accumulator.OutputAccumulator.append
    chunks = 0

    def append_then_break(self: Any, chunk: bytes, want_text: bool = True) -> str:
        nonlocal chunks
        chunks += 1
        if chunks == 2:
            raise RuntimeError("accumulator bug")
        return real_append(self, chunk, want_text)

    monkeypatch.setattr(output_accumulator.OutputAccumulator, "append", append_then_break)
    pid_file = tmp_path / "shell.pid"
    # without a reader the pipe fills up and `yes` blocks for ever
    result = await asyncio.wait_for(bash(f"echo $$ > {pid_file}; yes", tmp_path), 10)
    assert (text_of(result), result.is_error) == ("accumulator bug", True)
    assert await all_gone([int(pid_file.read_text())])


async def test_updates_are_throttled_and_the_last_one_is_the_result(tmp_path: Path) -> None:
    stamped: list[tuple[float, ToolResult]] = []
    result = await bash(
        "for i in $(seq 1 300); do echo line $i; sleep 0.002; done",
        tmp_path,
        on_update=lambda update: stamped.append((time.monotonic(), update)),
    )
    assert stamped[0][1].content == ()  # Pi sends an empty update first
    updates = stamped[1:]
    duration = updates[-1][0] - updates[0][0]
    assert duration > 0.3  # the command printed for a while, so throttling had work to do
    # the final update may follow its predecessor sooner: it is sent when the command ends
    gaps = [later[0] - earlier[0] for earlier, later in itertools.pairwise(updates[:-1])]
    # at most one update per 100 ms … (the stamps are taken in the callback: a process paused
    # between the throttle's clock read and the callback, as on a loaded machine, makes one gap
    # look short after a long one, never two short gaps in a row)
    short = [i for i, gap in enumerate(gaps) if gap < 0.09]
    assert all(i > 0 and gaps[i - 1] >= 0.19 for i in short), gaps
    assert not any(later == earlier + 1 for earlier, later in itertools.pairwise(short)), gaps
    assert len(updates) <= duration / 0.1 + 2
    # … and the final state always arrives, even when it came sooner than 100 ms after the last
    assert text_of(updates[-1][1]) == text_of(result)
    assert text_of(result).endswith("line 300\n")


async def test_an_overdue_update_is_sent_once(tmp_path: Path) -> None:
    updates: list[str] = []

    def slow_panel(text: str) -> None:
        if "slow" in text:
            time.sleep(0.15)  # the loop is busy while the update for "fast2" is due

    result = await bash(
        "echo fast1; sleep 0.03; echo fast2; sleep 0.03; echo slow; sleep 0.3",
        tmp_path,
        on_output=slow_panel,
        on_update=lambda update: updates.append(text_of(update)),
    )
    assert updates[-1] == text_of(result) == "fast1\nfast2\nslow\n"
    assert all(a != b for a, b in itertools.pairwise(updates)), updates  # no update twice


async def test_no_update_after_a_cancelled_call_returned(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    marker = tmp_path / "second-line-written"
    task = asyncio.create_task(
        bash(
            f"echo one; sleep 0.02; echo two; touch {marker}; sleep 30",
            tmp_path,
            on_update=updates.append,
        )
    )
    for _ in range(500):
        if marker.exists():
            break
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.01)  # "two" arrived within 100 ms of "one": its update is pending
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    seen = len(updates)
    await asyncio.sleep(0.25)
    assert len(updates) == seen
