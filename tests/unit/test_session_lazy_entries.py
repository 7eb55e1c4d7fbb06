"""Sessions that keep most entries in their file read exactly like sessions held in memory.

A large current-version file keeps only the leaf's context and the small entries as dicts;
the other message and custom entries are parsed again from the file when asked for. Every
check here compares such a session with the same file loaded whole.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session import session_file as session_file_module
from pi_lsp.session.branch_summary import navigate_tree
from pi_lsp.session.compaction import CompactionSettings, prepare_compaction
from pi_lsp.session.context import UNSET, _forward, build_session_context
from pi_lsp.session.entry_store import EntryPath, IndexedEntries, entry_facts
from pi_lsp.session.errors import SessionFileError
from pi_lsp.session.lines import LineReader
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.tree import branch, index_entries
from tests.sessions import compacted_fixture_session, fixture_session_params

from .test_session_fast_paths import _random_entries

#: the larger v1 session: generated, and Pi's own when the shared material is there
LARGE = fixture_session_params("large-session.jsonl")


def _lazy_store(entries: list[dict[str, Any]]) -> IndexedEntries:
    """A store keeping message and custom entries as JSON text, parsed on each access."""
    texts = [json.dumps(entry) for entry in entries]
    facts = [entry_facts(entry) for entry in entries]
    slots = [None if entry.get("type") in {"message", "custom"} else entry for entry in entries]
    return IndexedEntries(
        slots,
        keys=tuple(list(column) for column in zip(*facts, strict=True))  # type: ignore[arg-type]
        if facts
        else ([], [], [], []),
        loader=lambda at: json.loads(texts[at]),
    )


def _same_by_value(a: Any, b: Any) -> bool:
    return (a.messages, a.thinking_level, a.model, a.entries) == (
        b.messages,
        b.thinking_level,
        b.model,
        b.entries,
    )


def test_a_store_reading_bodies_from_text_projects_as_the_forward_pass() -> None:
    rng = random.Random(23)
    for _ in range(3000):
        entries, ids = _random_entries(rng)
        store = _lazy_store(entries)
        index = index_entries(entries)
        assert list(store) == entries
        assert dict(store.by_id) == index
        for leaf in [UNSET, "", "zz", *[i for i in ids if i]]:
            target = index.get(leaf) if isinstance(leaf, str) and leaf else None
            if target is None:
                if not entries:
                    continue
                target = entries[-1]
            want = _forward(index, target, target.get("id"))
            assert _same_by_value(build_session_context(store, leaf), want), (entries, leaf)
        for leaf in {i for i in ids if i}:
            path = store.branch(leaf)
            assert list(path) == branch(index, leaf), (entries, leaf)
            if isinstance(path, EntryPath) and path:
                got = build_session_context(path, leaf)
                plain = build_session_context(list(path), leaf)
                assert _same_by_value(got, plain), (entries, leaf)


@pytest.fixture
def lazy_from_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_file_module, "LAZY_MIN_BYTES", 0)


def _whole(path: Path) -> SessionFile:
    """The file loaded with every entry in memory (the reference)."""
    return SessionFile._from_bytes(str(path), path.read_bytes(), cwd=None, writer=None)


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_a_real_session_reads_the_same_with_most_entries_left_in_the_file(
    source: Path, tmp_path: Path
) -> None:
    path = compacted_fixture_session(tmp_path, source)
    lazy = SessionFile.read(path)
    whole = _whole(path)
    store = lazy.entries
    assert isinstance(store, IndexedEntries)
    assert 0 < store.live_count < len(store) // 2, "most entries stay in the file"
    assert list(lazy.entries) == list(whole.entries)
    assert lazy.leaf_id == whole.leaf_id
    assert lazy.labels == whole.labels
    assert lazy.session_name == whole.session_name
    assert lazy.has_assistant_message() == whole.has_assistant_message()
    assert list(lazy.get_branch()) == list(whole.get_branch())
    mine = build_session_context(lazy.entries, lazy.leaf_id)
    theirs = build_session_context(whole.entries, whole.leaf_id)
    assert _same_by_value(mine, theirs)
    # the context at the leaf is held, not read again: the same objects each time
    again = build_session_context(lazy.entries, lazy.leaf_id)
    assert [id(entry) for entry in again.entries] == [id(entry) for entry in mine.entries]
    settings = CompactionSettings(enabled=True, reserve_tokens=16384, keep_recent_tokens=2000)
    assert prepare_compaction(lazy.get_branch(), settings) == prepare_compaction(
        whole.get_branch(), settings
    )
    some = lazy.entries[len(lazy.entries) // 3]
    assert lazy.get_children(some["id"]) == whole.get_children(some["id"])


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_appending_to_a_lazily_opened_session_writes_and_reads_back(
    source: Path, tmp_path: Path
) -> None:
    path = compacted_fixture_session(tmp_path, source)
    before = len(_whole(path).entries)
    with SessionFile.open(path) as session:
        assert isinstance(session.entries, IndexedEntries)
        assert session.entries.live_count < len(session.entries)
        new_id = session.append_message({"role": "user", "content": "one more", "timestamp": 1})
        assert session.get_entry(new_id)["message"]["content"] == "one more"
        context = build_session_context(session.entries, session.leaf_id)
        assert context.messages[-1]["content"] == "one more"
        # an old entry is still read from the file while it is locked and appended to
        assert session.entries[0] == _whole(path).entries[0]
    after = _whole(path)
    assert len(after.entries) == before + 1
    assert after.entries[-1]["id"] == new_id


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_a_file_rewritten_in_place_is_reported_with_its_line(source: Path, tmp_path: Path) -> None:
    path = compacted_fixture_session(tmp_path, source)
    session = SessionFile.read(path)
    store = session.entries
    assert isinstance(store, IndexedEntries)
    position = next(at for at in range(len(store)) if not store.is_live(at))
    # the same bytes count, other ids: every id's first character changed in place
    data = re.sub(rb'"id":"[^"]', b'"id":"@', path.read_bytes())
    with open(path, "r+b") as handle:
        handle.write(data)
    with pytest.raises(SessionFileError) as caught:
        store[position]
    assert str(path) in str(caught.value)
    assert "changed on disk" in str(caught.value)
    assert "line " in str(caught.value)


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_a_file_replaced_by_rename_keeps_reading_the_loaded_version(
    source: Path, tmp_path: Path
) -> None:
    path = compacted_fixture_session(tmp_path, source)
    session = SessionFile.read(path)
    want = list(_whole(path).entries)
    replacement = tmp_path / "other.jsonl"
    replacement.write_bytes(path.read_bytes()[:200] + b"\n")
    os.replace(replacement, path)
    assert list(session.entries) == want


@pytest.mark.parametrize("source", LARGE)
def test_small_files_and_old_versions_stay_in_memory(source: Path, tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    path.write_bytes(source.read_bytes())
    session = SessionFile.read(path)  # v1, migrated in memory: every entry is live
    store = session.entries
    assert isinstance(store, IndexedEntries)
    assert store.live_count == len(store)


class _CountedReads:
    """Counts the entries read back from a session file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = LineReader.read

        def counted(reader: LineReader, record: int) -> dict[str, Any]:
            self.count += 1
            return original(reader, record)

        monkeypatch.setattr(LineReader, "read", counted)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_a_dropped_session_closes_its_file_at_once(source: Path, tmp_path: Path) -> None:
    path = compacted_fixture_session(tmp_path, source)
    gc.collect()
    gc.disable()  # what frees a session must be reference counting, not a cycle collection
    try:
        before = _open_descriptors()
        for _ in range(20):
            session = SessionFile.read(path)
            assert build_session_context(session.entries, session.leaf_id).messages
            del session
        assert _open_descriptors() == before
    finally:
        gc.enable()


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_context_reads_nothing_past_a_compaction_whose_kept_entry_is_elsewhere(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = compacted_fixture_session(tmp_path, source)
    with SessionFile.open(path) as session:
        # as a hook may write it: the first kept entry is on no path
        session.append_compaction("hook summary", "nowhere", 1, from_hook=True)
        session.append_message({"role": "user", "content": "next", "timestamp": 3})
    lazy = SessionFile.read(path)
    reads = _CountedReads(monkeypatch)
    context = build_session_context(lazy.entries, lazy.leaf_id)
    assert [m.get("role") for m in context.messages] == ["compactionSummary", "user"]
    assert reads.count == 0
    assert _same_by_value(context, build_session_context(_whole(path).entries, lazy.leaf_id))


@pytest.mark.usefixtures("lazy_from_any_size")
@pytest.mark.parametrize("source", LARGE)
def test_navigating_reads_only_the_branch_it_leaves_and_holds_the_new_context(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = compacted_fixture_session(tmp_path, source)
    session = SessionFile.read(path)
    store = session.entries
    assert isinstance(store, IndexedEntries)
    ids = session.get_branch_ids()
    # far back, outside the context held at load: an assistant message read from the file
    target = next(
        i
        for i in ids[len(ids) // 2 :]
        if store.is_assistant(store.positions[i]) and not store.is_live(store.positions[i])
    )
    reads = _CountedReads(monkeypatch)
    result = asyncio.run(navigate_tree(session, target))
    # nothing summarized: the walk to the common ancestor (the target) reads no body
    assert reads.count <= 1, reads.count  # the target itself, to see whether it is a user message
    assert result.new_leaf_id == target == session.leaf_id
    first = build_session_context(session.entries, session.leaf_id)
    reads.count = 0
    again = build_session_context(session.entries, session.leaf_id)
    assert reads.count == 0, "the new leaf's context is held after the move"
    assert [id(e) for e in again.entries] == [id(e) for e in first.entries]
    assert _same_by_value(first, build_session_context(_whole(path).entries, session.leaf_id))
