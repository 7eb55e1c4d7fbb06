"""``pi-lsp session compact FILE --dry-run`` in a subprocess: the preview, JSON, leaves, errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.session_commands import fingerprint, run_session
from tests.sessions import fixture_session_params
from tests.shared_data import CONFORMANCE

SPLIT_TURN = CONFORMANCE / "compaction-split-turn" / "expected-session.jsonl"
SPLIT_AFTER = CONFORMANCE / "compaction-split-after-compaction" / "expected-session.jsonl"
MIDRUN = CONFORMANCE / "compaction-threshold-midrun" / "expected-session.jsonl"
#: a v1 session past the threshold: generated, and Pi's own when the shared material is there
V1_SESSIONS = fixture_session_params("before-compaction.jsonl")
CASE_SETTINGS = ("--context-window", "20000", "--reserve-tokens", "4000")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_session("compact", *args)


def run_json(*args: str | Path) -> dict[str, Any]:
    proc = run(*args, "--dry-run", "--json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_split_turn_preview_matches_what_pi_did() -> None:
    # the session as it was before Pi compacted it: leaf = the last answer ({E8})
    data = run_json(SPLIT_TURN, "--leaf", "{E8}", *CASE_SETTINGS, "--keep-recent-tokens", "1000")
    assert data["file"] == str(SPLIT_TURN)
    assert data["leaf"] == "{E8}" and data["branchEntries"] == 8
    assert (data["tokensBefore"], data["usageTokens"], data["usageEntryId"]) == (
        17000,
        17000,
        "{E8}",
    )
    assert (data["threshold"], data["thresholdCrossed"]) == (16000, True)
    assert data["compactable"] and data["reason"] is None
    assert data["cut"] == {
        "firstKeptEntryId": "{E6}",  # where Pi cut
        "index": 5,
        "isSplitTurn": True,
        "turnStartEntryId": "{E3}",
        "piCutEntryId": None,
    }
    assert data["requests"] == [{"kind": "turnPrefix", "update": False, "maxTokens": 2000}]
    assert [row["id"] for row in data["summarized"]] == ["{E3}", "{E4}", "{E5}"]
    assert [row["id"] for row in data["kept"]] == ["{E6}", "{E7}", "{E8}"]
    assert data["summarized"][2]["role"] == "toolResult" and data["summarized"][2]["tokens"] == 500
    # Pi's estimatedTokensAfter was 649: 32 for its summary + these 617
    assert data["keptTokens"] == 617
    assert data["estimatedTokensAfter"] == data["summaryBudget"] + 617
    assert (data["readFiles"], data["modifiedFiles"]) == (["notes.txt"], [])


def test_text_preview() -> None:
    proc = run(
        SPLIT_TURN, "--dry-run", "--leaf", "{E8}", *CASE_SETTINGS, "--keep-recent-tokens", "1000"
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "tokens    17000 (usage 17000 reported at {E8} + 0 estimated after it)" in out
    assert "threshold 16000 (window - reserve): crossed yes" in out
    assert "cut       before {E6} (index 5), splits the turn opened at {E3}" in out
    assert "request   turn prefix summary, at most 2000 tokens" in out
    assert "summarize 3 entries" in out and "keep      3 entries" in out
    assert "read      notes.txt" in out and "modified  (none)" in out
    assert proc.stderr == ""


def test_a_branch_that_ends_with_a_compaction_has_nothing_to_do() -> None:
    data = run_json(SPLIT_TURN, *CASE_SETTINGS)
    assert data["leaf"] == "{E9}"
    assert not data["compactable"] and data["reason"] == "Already compacted"
    assert "cut" not in data
    proc = run(SPLIT_TURN, "--dry-run")
    assert proc.returncode == 0
    assert "compact   nothing to do: Already compacted" in proc.stdout


def test_the_threshold_is_not_crossed_with_the_default_window() -> None:
    data = run_json(SPLIT_TURN, "--leaf", "{E8}")
    assert data["settings"] == {
        "contextWindow": 128000,
        "reserveTokens": 16384,
        "keepRecentTokens": 20000,
    }
    assert data["threshold"] == 128000 - 16384 and not data["thresholdCrossed"]
    # 20000 recent tokens is more than the whole branch holds: nothing before the cut
    assert not data["compactable"] and data["reason"] == "Nothing to compact (session too small)"


def test_after_a_compaction_the_preview_updates_the_previous_summary() -> None:
    data = run_json(MIDRUN, "--leaf", "{E12}", *CASE_SETTINGS, "--keep-recent-tokens", "2500")
    assert data["tokensBefore"] == 16280 and data["usageEntryId"] == "{E11}"
    assert data["estimatedTrailingTokens"] == 2250
    assert data["previousCompactionId"] == "{E9}"
    assert data["cut"]["firstKeptEntryId"] == "{E10}" and not data["cut"]["isSplitTurn"]
    assert data["requests"] == [{"kind": "history", "update": True, "maxTokens": 3200}]
    assert [row["id"] for row in data["summarized"]] == ["{E7}", "{E8}"]


def test_the_preview_shows_where_pi_would_have_cut() -> None:
    data = run_json(SPLIT_AFTER, "--leaf", "{E11}", *CASE_SETTINGS, "--keep-recent-tokens", "1000")
    assert data["cut"]["piCutEntryId"] == "{E8}"
    assert data["cut"]["firstKeptEntryId"] == "{E10}"
    proc = run(
        SPLIT_AFTER, "--dry-run", "--leaf", "{E11}", *CASE_SETTINGS, "--keep-recent-tokens", "1000"
    )
    assert "Pi would cut before {E8}" in proc.stdout


@pytest.mark.parametrize("source", V1_SESSIONS)
def test_a_long_v1_session_is_read_and_left_alone(source: Path, tmp_path: Path) -> None:
    copy = tmp_path / "before-compaction.jsonl"
    copy.write_bytes(source.read_bytes())
    before = fingerprint(copy)
    proc = run(copy, "--dry-run", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "migrated to version 3 in memory" in proc.stderr
    data = json.loads(proc.stdout)
    assert data["compactable"] and data["thresholdCrossed"]
    assert len(data["kept"]) + len(data["summarized"]) <= data["branchEntries"]
    assert fingerprint(copy) == before


def test_skipped_lines_are_reported(tmp_path: Path) -> None:
    lines = SPLIT_TURN.read_text().splitlines()
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([lines[0], "{torn", *lines[1:9]]) + "\n")
    proc = run(path, "--dry-run", *CASE_SETTINGS, "--keep-recent-tokens", "1000")
    assert proc.returncode == 0
    assert f"{path}:2:" in proc.stderr
    assert "before {E6}" in proc.stdout


def test_not_a_session_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('\n{"type": "message", "id": "x"}\n', encoding="utf-8")
    proc = run(path, "--dry-run")
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"{path}:2:" in proc.stderr


def test_missing_file_exits_1(tmp_path: Path) -> None:
    proc = run(tmp_path / "missing.jsonl", "--dry-run")
    assert proc.returncode == 1 and str(tmp_path / "missing.jsonl") in proc.stderr


def test_usage_errors_exit_2() -> None:
    assert run(SPLIT_TURN).returncode == 2  # --dry-run is required
    proc = run(SPLIT_TURN, "--dry-run", "--leaf", "nope")
    assert proc.returncode == 2 and "no entry with id 'nope'" in proc.stderr
    proc = run(SPLIT_TURN, "--dry-run", "--keep-recent-tokens", "-5")
    assert proc.returncode == 2 and "--keep-recent-tokens" in proc.stderr


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    data = run_json(path)
    assert data["leaf"] is None and data["tokensBefore"] == 0
    assert data["reason"] == "Nothing to compact (session too small)"
    assert path.read_bytes() == b""
