"""``pi-lsp tool`` as a user runs it: the installed console script, in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PI_LSP = Path(sys.executable).parent / "pi-lsp"


def run(*args: str, cwd: Path, tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return subprocess.run(
        [str(PI_LSP), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_readme_example_seq_100000(tmp_path: Path) -> None:
    spill_dir = tmp_path / "tmp"
    spill_dir.mkdir()
    proc = run("tool", "bash", '{"command":"seq 1 100000"}', cwd=tmp_path, tmp=spill_dir)
    assert proc.returncode == 0, proc.stderr
    body, marker = proc.stdout.split("\n\n")
    assert body.split("\n") == [str(i) for i in range(98001, 100001)]
    match = re.fullmatch(
        r"\[Showing lines 98001-100000 of 100000\. Full output: (.+/pi-bash-[0-9a-f]{16}\.log)\]",
        marker,
    )
    assert match, marker
    full = Path(match.group(1))
    assert full.parent == spill_dir
    assert full.read_text().split("\n")[:-1] == [str(i) for i in range(1, 100001)]


def test_error_result_prints_its_text_and_exits_1(tmp_path: Path) -> None:
    proc = run("tool", "read", '{"path": "missing.txt"}', cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == f"ENOENT: no such file or directory, access '{tmp_path}/missing.txt'"


def test_cwd_option(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    proc = run("tool", "bash", '{"command": "pwd"}', "--cwd", "sub", cwd=tmp_path)
    assert proc.stdout == f"{tmp_path}/sub\n"


def test_json_prints_the_whole_result(tmp_path: Path) -> None:
    proc = run("tool", "bash", '{"command": "exit 2"}', "--json", cwd=tmp_path)
    assert proc.returncode == 1
    payload = json.loads(proc.stdout)
    assert payload == {
        "toolName": "bash",
        "isError": True,
        "result": {
            "content": [{"type": "text", "text": "(no output)\n\nCommand exited with code 2"}],
            "details": {},
        },
    }


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["bash", "{not json"], r"arguments are not valid JSON: .* line 1 column 2"),
        (["nope", "{}"], r"unknown tool 'nope' \(built-in tools: read, bash, edit, write"),
        (
            ["bash", "{}"],
            r"invalid arguments for bash: arguments: must have required property 'command'",
        ),
        (["bash", '{"command": 5}'], r"invalid arguments for bash: command: must be string"),
        (["bash", "[1]"], r"arguments for bash must be a JSON object"),
    ],
)
def test_invalid_calls_exit_2_with_one_line(tmp_path: Path, args: list[str], reason: str) -> None:
    proc = run("tool", *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1
    assert re.search(reason, lines[0]), lines[0]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    proc = run("tool", cwd=tmp_path)
    assert proc.returncode == 2
    assert "the following arguments are required: name, args" in proc.stderr


def test_module_entry_point_and_version(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "--version"], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0
    assert re.fullmatch(r"pi-lsp \d+\.\d+\.\d+\n", proc.stdout)
