"""Endless and special files from a terminal: ``/dev/zero``, a named pipe, a folder and a
symlink to a device are refused with one line naming the path — never read, never a hang,
never a traceback. pytest-timeout (and each run's own timeout) turns a hang into a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, MAX_SESSION_FILE_BYTES

pytestmark = pytest.mark.timeout(120)


def pi_lsp(tmp: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    for name in ("home", "agent"):
        (tmp / name).mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", *map(str, args)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


def specials(fifo: Path) -> list[tuple[str, str]]:
    return [("/dev/zero", "character device"), (str(fifo), "named pipe")]


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    "command", [("session", "tree"), ("session", "context"), ("session", "compact", "--dry-run")]
)
def test_session_commands_refuse_special_files(
    tmp_path: Path, fifo: Path, command: tuple[str, ...]
) -> None:
    for path, kind in [*specials(fifo), (str(tmp_path), "")]:
        proc = pi_lsp(tmp_path, *command, path)
        assert proc.returncode == 1, proc.stderr
        line = one_line_error(proc)
        assert line.startswith(f"pi-lsp: {path}: cannot read the session file: "), line
        assert line.endswith(f"not a regular file ({kind})" if kind else "is a directory"), line
        assert proc.stdout == ""


def test_read_grep_and_edit_refuse_special_files(tmp_path: Path, fifo: Path) -> None:
    for path, kind in specials(fifo):
        calls = [
            ("read", {"path": path}),
            ("grep", {"pattern": "x", "path": path}),
            ("edit", {"path": path, "oldText": "a", "newText": "b"}),
        ]
        for tool, args in calls:
            proc = pi_lsp(tmp_path, "tool", tool, json.dumps(args))
            assert proc.returncode == 1, (tool, proc.stderr)
            assert proc.stdout == f"Not a regular file: {path} ({kind})", (tool, proc.stdout)
            assert "Traceback" not in proc.stderr


def test_grep_over_a_folder_skips_a_pipe_inside_it(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "notes.txt").write_text("needle here\n")
    os.mkfifo(folder / "pipe.txt")
    proc = pi_lsp(tmp_path, "tool", "grep", json.dumps({"pattern": "needle", "path": "src"}))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "notes.txt:1: needle here"


@pytest.mark.parametrize("make", ["fifo", "symlink to /dev/zero"])
def test_check_and_prompt_report_an_agents_md_that_is_not_a_file(tmp_path: Path, make: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    agents = ws / "AGENTS.md"
    if make == "fifo":
        os.mkfifo(agents)
    else:
        agents.symlink_to("/dev/zero")
    (ws / "CLAUDE.md").write_text("- Use pnpm.\n")
    kind = "named pipe" if make == "fifo" else "character device"

    proc = pi_lsp(tmp_path, "check", "--format", "json", ws)
    assert "Traceback" not in proc.stderr, proc.stderr
    findings = json.loads(proc.stdout)["diagnostics"]
    refused = [f for f in findings if f["rule"] == "context-file-not-regular"]
    assert len(refused) == 1, findings
    assert refused[0]["path"].endswith("AGENTS.md")
    assert f"AGENTS.md is a {kind}, not a regular file" in refused[0]["message"]

    prompt = pi_lsp(tmp_path, "prompt", "--cwd", ws)
    assert prompt.returncode == 0, prompt.stderr
    assert "- Use pnpm." in prompt.stdout  # the next candidate name, as Pi does


def test_a_settings_file_that_is_a_pipe_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "agent").mkdir()
    os.mkfifo(tmp_path / "agent" / "settings.json")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("- Use pnpm.\n")
    proc = pi_lsp(tmp_path, "check", "--format", "json", ws)
    assert "Traceback" not in proc.stderr, proc.stderr
    findings = json.loads(proc.stdout)["diagnostics"]
    unreadable = [f for f in findings if f["rule"] == "settings-unreadable"]
    assert len(unreadable) == 1, findings
    assert "not a regular file (named pipe)" in unreadable[0]["message"]


def test_files_over_their_limit_are_refused_unread(tmp_path: Path) -> None:
    """Sparse files: their size is what is checked, before a byte is read."""
    session = tmp_path / "huge.jsonl"
    with open(session, "wb") as handle:
        handle.truncate(MAX_SESSION_FILE_BYTES + 1)
    proc = pi_lsp(tmp_path, "session", "tree", session)
    assert proc.returncode == 1
    assert one_line_error(proc) == (
        f"pi-lsp: {session}: cannot read the session file: file too large "
        f"({MAX_SESSION_FILE_BYTES + 1} bytes; the limit is 1 GiB)"
    )

    ws = tmp_path / "ws"
    ws.mkdir()
    with open(ws / "AGENTS.md", "wb") as handle:
        handle.truncate(MAX_RESOURCE_FILE_BYTES + 1)
    check = pi_lsp(tmp_path, "check", "--format", "json", ws)
    assert "Traceback" not in check.stderr, check.stderr
    [finding] = [
        f for f in json.loads(check.stdout)["diagnostics"] if f["rule"] == "context-file-unreadable"
    ]
    assert "file too large" in finding["message"] and "the limit is 128 MiB" in finding["message"]
