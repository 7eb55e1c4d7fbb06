"""``pi-lsp session tree`` as a user runs it: ``python -m pi_lsp`` in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session.session_file import SessionFile, serialize_records
from tests.cli.session_commands import run_session
from tests.sessions import fixture_session_params
from tests.shared_data import CONFORMANCE


def tree(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_session("tree", *args)


USER = {"role": "user", "content": "hello there, please look at the build", "timestamp": 1}


def assistant(text: str = "", tools: tuple[str, ...] = ()) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "toolCall", "id": f"c{i}", "name": t, "arguments": {}} for i, t in enumerate(tools)
    ]
    return {"role": "assistant", "content": content, "stopReason": "stop", "timestamp": 2}


def branching_session(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """root → fork into A (tool call, result) and B (summary, label), leaf on B."""
    ids: dict[str, str] = {}
    with SessionFile.create(
        str(tmp_path),
        session_dir=str(tmp_path / "s"),
        provider="p",
        model_id="m",
        thinking_level="off",
    ) as session:
        ids["u1"] = session.append_message(USER)
        ids["a1"] = session.append_message(assistant("Sure. Reading the build file now."))
        ids["uA"] = session.append_message({**USER, "content": "try branch A"})
        ids["aA"] = session.append_message(assistant(tools=("read", "bash")))
        ids["tA"] = session.append_message(
            {
                "role": "toolResult",
                "toolCallId": "c0",
                "toolName": "read",
                "content": [{"type": "text", "text": "file body"}],
                "isError": True,
            }
        )
        ids["bs"] = session.branch_with_summary(ids["a1"], "## Goal\nBuild fix\nmore")
        ids["c"] = session.append_compaction("# Checkpoint\nbody", ids["a1"], 4321)
        ids["label"] = session.append_label_change(ids["u1"], "start here")
        session.append_session_info("build\nwork")
        assert session.path is not None
        return Path(session.path), ids


def test_text_tree_shows_forks_labels_summaries_and_the_leaf(tmp_path: Path) -> None:
    path, ids = branching_session(tmp_path)
    proc = tree(path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.split("\n")
    assert lines[0].startswith("Session ") and lines[0].endswith("version 3")
    assert f"File    {path}" in lines
    assert 'Name    "build work"' in lines
    assert any(line.startswith("Tree    11 entries · leaf ") for line in lines)
    body = lines[lines.index("") + 1 :]
    expected = [
        "* {m} model_change p/m",
        "* {t} thinking_level_change off",
        '* {u1} user "hello there, please look at the build"  [label: start here]',
        '* {a1} assistant "Sure. Reading the build file now."',
        '  ├─ {uA} user "try branch A"',
        "  │  {aA} assistant → read, bash",
        '  │  {tA} toolResult read "file body" [error]',
        '* └─ {bs} branch_summary from {tA} "## Goal"',
        '*    {c} compaction "# Checkpoint" (keeps from {a1}, 4321 tokens before)',
        '*    {label} label on {u1} "start here"',
        '*    {info} session_info "build work"  ← leaf',
        "",
    ]
    session = SessionFile.read(path)
    names = {
        **ids,
        "m": session.entries[0]["id"],
        "t": session.entries[1]["id"],
        "info": session.entries[-1]["id"],
    }
    assert body == [line.format(**names) for line in expected]


def test_json_tree_nests_segments_at_forks(tmp_path: Path) -> None:
    path, ids = branching_session(tmp_path)
    proc = tree(path, "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["file"] == str(path)
    assert payload["version"] == 3 and payload["migratedFrom"] is None
    assert payload["name"] == "build work" and payload["findings"] == []
    assert payload["entryCount"] == 11
    (root,) = payload["roots"]
    assert [e["type"] for e in root["entries"]] == [
        "model_change",
        "thinking_level_change",
        "message",
        "message",
    ]
    first_user = root["entries"][2]
    assert first_user["id"] == ids["u1"] and first_user["label"] == "start here"
    assert first_user["role"] == "user" and first_user["activePath"] is True
    branch_a, branch_b = root["children"]
    assert [e["id"] for e in branch_a["entries"]] == [ids["uA"], ids["aA"], ids["tA"]]
    assert branch_a["entries"][1]["toolNames"] == ["read", "bash"]
    assert all(e["activePath"] is False for e in branch_a["entries"])
    summary, compaction, *_rest, last = branch_b["entries"]
    assert summary["fromId"] == ids["tA"] and summary["summary"] == "## Goal"
    assert compaction["firstKeptEntryId"] == ids["a1"] and compaction["tokensBefore"] == 4321
    assert last["leaf"] is True and payload["leafId"] == last["id"]
    assert branch_a["children"] == branch_b["children"] == []


@pytest.mark.parametrize("source", fixture_session_params("before-compaction.jsonl"))
def test_v1_file_is_migrated_in_memory_and_never_rewritten(source: Path, tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    path.write_bytes(source.read_bytes())
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    proc = tree(path)
    assert proc.returncode == 0, proc.stderr
    assert "version 3 (migrated in memory from version 1)" in proc.stdout.split("\n")[0]
    assert "2 compactions" in proc.stdout
    compactions = re.findall(
        r'^\* [0-9a-f]{8} compaction "(.*)" \(keeps from ([0-9a-f]{8}), '
        r"(\d+) tokens before\)$",
        proc.stdout,
        re.MULTILINE,
    )
    # each compaction is shown by its summary's first line
    titles = [
        record["summary"].split("\n")[0]
        for record in map(json.loads, source.read_text(encoding="utf-8").splitlines())
        if record["type"] == "compaction"
    ]
    assert len(set(titles)) == 1 and titles[0].startswith("# ")
    assert [(summary, tokens) for summary, _kept, tokens in compactions] == [
        (titles[0], "175004"),
        (titles[1], "185014"),
    ]
    assert f"{path}:1:1: information: version 1 session file" in proc.stderr
    assert path.read_bytes() == source.read_bytes()
    assert path.stat().st_mtime_ns == 1_000_000_000
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("source", fixture_session_params("large-session.jsonl"))
def test_large_linear_session_as_json(source: Path) -> None:
    proc = tree(source, "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    (root,) = payload["roots"]
    assert len(root["entries"]) == payload["entryCount"] == 1018
    assert root["entries"][-1]["leaf"] is True


@pytest.mark.parametrize(
    "golden", sorted(CONFORMANCE.glob("*/expected-session.jsonl")), ids=lambda p: p.parent.name
)
def test_golden_sessions(golden: Path) -> None:
    proc = tree(golden)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "* {E1} model_change oracle/oracle-model" in proc.stdout
    assert "* {E2} thinking_level_change off" in proc.stdout
    assert "← leaf" in proc.stdout.split("\n")[-2]


def test_skipped_and_torn_lines_are_warned_about_but_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/w"},
        {"type": "message", "id": "a", "parentId": None, "timestamp": "t", "message": USER},
    ]
    path.write_bytes(serialize_records(records) + b"oops\n" + b'{"type":"mess')
    proc = tree(path)
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        f"{path}:3:1: warning: line 3 is not valid JSON and is skipped "
        "(Expecting value: line 1 column 1 (char 0)): oops [session-line-not-json]",
        f"{path}:4:1: warning: line 4 is incomplete (the file ends without a newline and the "
        "line is not valid JSON, as after a crash during a write); it is skipped "
        "[session-torn-last-line]",
    ]
    assert '* a user "hello there' in proc.stdout
    payload = json.loads(tree(path, "--json").stdout)
    assert [f["rule"] for f in payload["findings"]] == [
        "session-line-not-json",
        "session-torn-last-line",
    ]
    assert [f["startLine"] for f in payload["findings"]] == [2, 3]


def test_not_a_session_exits_1_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('\n{"type": "message", "id": "x"}\n')
    proc = tree(path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (
        f'pi-lsp: {path}:2: not a Pi session file: the first JSON line is a "message" entry, '
        "not a session header\n"
    )
    assert path.read_text() == '\n{"type": "message", "id": "x"}\n'


def test_unreadable_file_exits_1(tmp_path: Path) -> None:
    proc = tree(tmp_path / "missing.jsonl")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"pi-lsp: {tmp_path / 'missing.jsonl'}: cannot read")
    proc = tree(tmp_path)
    assert proc.returncode == 1 and "cannot read" in proc.stderr


def test_empty_file_prints_an_empty_tree(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    proc = tree(path)
    assert proc.returncode == 0
    assert proc.stdout.endswith("\n(no entries)\n")
    assert "[session-empty-file]" in proc.stderr
    assert path.read_bytes() == b""


def test_usage_errors_exit_2() -> None:
    proc = tree()
    assert proc.returncode == 2
    assert "file" in proc.stderr
    proc = tree("a.jsonl", "--bogus")
    assert proc.returncode == 2
