"""Listing the session files of a folder for a picker: newest first, read only."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pi_lsp.session.listing import FIRST_MESSAGE_CHARS, list_sessions, read_listing
from tests.unit.helpers import write


def line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def header(session_id: str, cwd: str) -> str:
    return line(
        {
            "type": "session",
            "version": 3,
            "id": session_id,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": cwd,
        }
    )


def message(entry_id: str, role: str, content: Any) -> str:
    return line(
        {
            "type": "message",
            "id": entry_id,
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": role, "content": content, "timestamp": 1},
        }
    )


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def test_sessions_come_newest_first_with_their_first_prompt(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    old = write(
        folder / "2026-01-01T00-00-00-000Z_old.jsonl",
        header("old", "/p")
        + message("a1", "user", "  fix the\n\nbuild  ")
        + message("a2", "assistant", [{"type": "text", "text": "done"}])
        + message("a3", "user", "second question"),
    )
    new = write(
        folder / "2026-01-02T00-00-00-000Z_new.jsonl",
        header("new", "/p")
        + line(
            {
                "type": "model_change",
                "id": "m",
                "parentId": None,
                "timestamp": "t",
                "provider": "x",
                "modelId": "y",
            }
        )
        + message(
            "b1",
            "user",
            [{"type": "image", "data": "AAAA"}, {"type": "text", "text": "what is this"}],
        )
        + line(
            {
                "type": "session_info",
                "id": "i1",
                "parentId": "b1",
                "timestamp": "t",
                "name": "first name",
            }
        )
        + line(
            {
                "type": "session_info",
                "id": "i2",
                "parentId": "i1",
                "timestamp": "t",
                "name": "Release prep",
            }
        ),
    )
    empty = write(folder / "2026-01-03T00-00-00-000Z_empty.jsonl", header("empty", "/p"))
    write(folder / "notes.jsonl", '{"type":"message","id":"x"}\n')  # no header: not a session
    write(folder / "broken.jsonl", "not json\n")
    write(folder / "readme.txt", header("txt", "/p"))  # not .jsonl
    os.utime(old, ns=(1_000_000_000_000_000_000, 1_700_000_000_000_000_000))
    os.utime(new, ns=(1_000_000_000_000_000_000, 1_700_000_100_000_000_000))
    os.utime(empty, ns=(1_000_000_000_000_000_000, 1_600_000_000_000_000_000))
    before = [fingerprint(p) for p in (old, new, empty)]

    found = list_sessions(str(folder))
    assert [s.id for s in found] == ["new", "old", "empty"]
    newest = found[0].to_json()
    assert newest == {
        "file": str(new),
        "id": "new",
        "cwd": "/p",
        "name": "Release prep",
        "modified": "2023-11-14T22:15:00.000Z",
        "messageCount": 1,
        "firstMessage": "what is this",
    }
    assert found[1].first_message == "fix the build" and found[1].message_count == 3
    assert found[1].name is None
    assert (found[2].message_count, found[2].first_message) == (0, "")
    assert [fingerprint(p) for p in (old, new, empty)] == before  # only read


def test_long_prompts_are_cut_and_spaced_lines_still_count(tmp_path: Path) -> None:
    spaced = (
        '{"type": "message", "id": "s1", "parentId": null, '
        '"message": {"role": "user", "content": "%s"}}\n'
    )
    path = write(tmp_path / "s.jsonl", header("s", "/p") + spaced % ("word " * 100) + "{torn")
    listing = read_listing(str(path))
    assert listing is not None and listing.message_count == 1
    assert len(listing.first_message) == FIRST_MESSAGE_CHARS
    assert listing.first_message.endswith("…") and listing.first_message.startswith("word word")


def test_text_inside_a_message_is_not_taken_for_an_entry(tmp_path: Path) -> None:
    quoted = 'see {"type":"message"} and "type":"session_info"'
    path = write(
        tmp_path / "q.jsonl",
        header("q", "/p")
        + line(
            {
                "type": "custom",
                "id": "c",
                "parentId": None,
                "customType": "x",
                "data": {"type": "message"},
            }
        )
        + message("q1", "user", quoted),
    )
    listing = read_listing(str(path))
    assert listing is not None
    assert (listing.message_count, listing.first_message, listing.name) == (1, quoted, None)


def test_a_session_folder_can_be_filtered_by_cwd(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    link = tmp_path / "link"
    link.symlink_to(project)
    write(tmp_path / "d" / "a.jsonl", header("a", str(link)))
    write(tmp_path / "d" / "b.jsonl", header("b", "/elsewhere"))
    assert sorted(s.id for s in list_sessions(str(tmp_path / "d"))) == ["a", "b"]
    assert [s.id for s in list_sessions(str(tmp_path / "d"), cwd=str(project))] == ["a"]
    assert list_sessions(str(tmp_path / "missing")) == []
    assert read_listing(str(tmp_path / "missing.jsonl")) is None
