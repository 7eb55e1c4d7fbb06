"""Session files the unit and language-server suites build alike."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.session.session_file import SessionFile
from tests.shared_data import SHARED

PI_FIXTURES = SHARED / "fixtures" / "pi"


def compacted_fixture_session(folder: Path) -> Path:
    """A current-version copy of Pi's larger fixture session (migrated by opening it),
    compacted near the end as a long session is: the context keeps the last tenth."""
    copy = folder / "large.jsonl"
    copy.write_bytes((PI_FIXTURES / "large-session.jsonl").read_bytes())
    with SessionFile.open(copy) as session:  # v1 → v3, rewritten
        branch_ids = [entry["id"] for entry in session.get_branch()]
        kept = next(
            entry_id
            for entry_id in branch_ids[len(branch_ids) * 9 // 10 :]
            if session.get_entry(entry_id)["type"] == "message"
            and session.get_entry(entry_id)["message"]["role"] == "user"
        )
        session.append_compaction("what happened so far", kept, 12345)
        session.append_message({"role": "user", "content": "and now?", "timestamp": 2})
    return copy
