"""The bash tool: results, streaming, timeouts, aborts and the processes it leaves behind."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import pytest

from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.registry import run_tool

SPILL = re.compile(r"Full output: (\S+pi-bash-[0-9a-f]{16}\.log)\]$")


async def bash(command: str, cwd: Path, **kwargs: object) -> ToolResult:
    timeout = kwargs.pop("timeout", None)
    args: dict[str, object] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    return await run_tool("bash", args, ToolContext(cwd=cwd, **kwargs))  # type: ignore[arg-type]


def text_of(result: ToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


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
    child = int(pid_file.read_text())
    for _ in range(50):
        if not alive(child):
            break
        await asyncio.sleep(0.02)
    assert not alive(child)


async def test_abort_kills_the_command_and_says_so(tmp_path: Path) -> None:
    abort = AbortSignal()
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(
        bash(f"sleep 30 & echo $! > {pid_file}; echo waiting; wait", tmp_path, signal=abort)
    )
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.01)
    abort.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.is_error
    assert text_of(result) == "waiting\n\n\nCommand aborted"
    await asyncio.sleep(0.05)
    assert not alive(int(pid_file.read_text()))


async def test_cancelling_the_call_kills_the_command(tmp_path: Path) -> None:
    pid_file = tmp_path / "shell.pid"
    task = asyncio.create_task(bash(f"echo $$ > {pid_file}; sleep 30", tmp_path))
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.05)
    assert not alive(int(pid_file.read_text()))


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
