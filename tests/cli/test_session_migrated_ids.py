"""A version 1 session (entries without ids) read with ``pi-lsp session …``: the ids the
commands show are the same at every read, so one can be given back as ``--leaf``; an id the
file does not hold is refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.cli import test_chat as cli
from tests.cli.session_commands import fingerprint, run_session


def v1_session(path: Path, session_id: str = "old-session", cwd: str = "/w") -> Path:
    """A v1 file: header without version, entries without id/parentId, one compaction that
    keeps from record 3 (the second user message)."""
    records: list[dict[str, Any]] = [
        {"type": "session", "id": session_id, "timestamp": "2025-01-01T00:00:00.000Z", "cwd": cwd},
        {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "first question", "timestamp": 1}},
        {"type": "message", "timestamp": "2025-01-01T00:00:02.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "first answer"}],
                     "stopReason": "stop", "timestamp": 2}},
        {"type": "message", "timestamp": "2025-01-01T00:00:03.000Z",
         "message": {"role": "user", "content": "second question", "timestamp": 3}},
        {"type": "message", "timestamp": "2025-01-01T00:00:04.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "second answer"}],
                     "stopReason": "stop", "timestamp": 4}},
        {"type": "compaction", "timestamp": "2025-01-01T00:00:05.000Z", "summary": "SUMMARY",
         "firstKeptEntryIndex": 3, "tokensBefore": 99},
        {"type": "message", "timestamp": "2025-01-01T00:00:06.000Z",
         "message": {"role": "user", "content": "third question", "timestamp": 6}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def tree_entries(path: Path) -> list[dict[str, Any]]:
    proc = run_session("tree", path, "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["migratedFrom"] == 1
    (root,) = payload["roots"]
    entries: list[dict[str, Any]] = root["entries"]
    return entries


def test_ids_of_a_v1_file_are_the_same_at_every_read(tmp_path: Path) -> None:
    path = v1_session(tmp_path / "v1.jsonl")
    before = fingerprint(path)
    first = tree_entries(path)
    second = tree_entries(path)
    ids = [entry["id"] for entry in first]
    assert ids == [entry["id"] for entry in second]
    assert len(ids) == 6 and len(set(ids)) == 6
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    assert [entry["parentId"] for entry in first] == [None, *ids[:-1]]
    # the compaction's kept index became the id the tree shows for that entry
    assert first[4]["firstKeptEntryId"] == ids[2]
    text = run_session("tree", path)
    assert text.returncode == 0 and all(i in text.stdout for i in ids)
    assert fingerprint(path) == before  # reading never rewrites


def test_another_session_id_gives_other_ids(tmp_path: Path) -> None:
    one = tree_entries(v1_session(tmp_path / "a.jsonl", "session-a"))
    other = tree_entries(v1_session(tmp_path / "b.jsonl", "session-b"))
    assert not {e["id"] for e in one} & {e["id"] for e in other}


def test_an_id_from_the_tree_is_a_leaf_for_context_and_compact(tmp_path: Path) -> None:
    path = v1_session(tmp_path / "v1.jsonl")
    ids = [entry["id"] for entry in tree_entries(path)]
    second_answer = ids[3]
    proc = run_session("context", path, "--leaf", second_answer, "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["leaf"] == second_answer
    texts = [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
             for m in payload["messages"]]  # fmt: skip
    assert texts == ["first question", "first answer", "second question", "second answer"]
    proc = run_session("compact", path, "--dry-run", "--leaf", second_answer, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["leaf"] == second_answer


@pytest.mark.parametrize("action", ["context", "compact"])
def test_an_unknown_leaf_exits_2_naming_the_id_and_the_file(tmp_path: Path, action: str) -> None:
    path = v1_session(tmp_path / "v1.jsonl")
    extra = ["--dry-run"] if action == "compact" else []
    proc = run_session(action, path, *extra, "--leaf", "0badc0de")
    assert proc.returncode == 2
    assert proc.stdout == ""
    refusal = [line for line in proc.stderr.splitlines() if line.startswith("pi-lsp: ")]
    assert refusal == [
        f"pi-lsp: {path}: no entry with id '0badc0de' (--leaf); `pi-lsp session tree` lists them"
    ]


async def test_ids_shown_before_a_chat_rewrites_the_file_are_the_ids_it_writes(
    tmp_path: Path,
) -> None:
    """``pi-lsp chat --session`` migrates an old file and rewrites it, as Pi does; the ids it
    writes are those every earlier read showed, so a noted id still names the same entry."""
    async with LocalHTTPServer() as server:
        cli.setup(tmp_path, server.base_url)
        path = v1_session(tmp_path / "v1.jsonl", cwd=str((tmp_path / "proj").resolve()))
        shown = [entry["id"] for entry in tree_entries(path)]
        server.enqueue(openai_text_reply("Third answer."))
        done = await cli.chat(tmp_path, "--model", "m1", "--session", str(path), "again")

    assert done.code == 0, done.stderr
    written = cli.entries(path)
    assert written[0]["version"] == 3
    assert [record["id"] for record in written[1:7]] == shown
    assert written[7]["parentId"] == shown[-1]  # the chat went on from the old leaf
    proc = run_session("context", path, "--leaf", shown[1], "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["messages"][-1]["content"][0]["text"] == "first answer"
