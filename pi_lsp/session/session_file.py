"""A Pi session: its header and entry tree, kept in a JSONL file the way Pi keeps it (spec §8).

:class:`SessionFile` is pi-lsp's counterpart of Pi's ``SessionManager`` storage: open or
create a file, append entries (each one becomes the new leaf), move the leaf, label entries,
and branch into a new file. Entries are plain dicts exactly as parsed from their line, so every
field Pi writes, and any field pi-lsp does not know, survives a load and a write.

Three ways to hold a session:

* **writing** (:meth:`SessionFile.create`, :meth:`SessionFile.open`, …): the file is locked
  against a second writer; a new session writes nothing until its first assistant message,
  then the header and everything buffered at once, then one line per append;
* **reading** (:meth:`SessionFile.read`): no lock, nothing ever written, an old version is
  migrated in memory only; the leaf can move, appends raise :class:`SessionReadOnlyError`;
* **in memory** (:meth:`SessionFile.in_memory`): no file at all.

Where pi-lsp differs from Pi on purpose:

* every line Pi would skip in silence is reported as a finding with its line number, and a
  torn last line (a crash during a write) is named as such;
* a migration rewrite keeps the lines it could not parse, byte for byte, instead of dropping
  them, and goes through a temporary file and a rename;
* once a file exists on disk, every append is written at once (Pi defers appends to any
  session without an assistant message, which for a loaded or forked file can write the
  buffered entries twice);
* ``fork_from`` migrates the source first (Pi copies v1 entries without ids under a v3
  header);
* :meth:`SessionFile.create_branched_session` returns a new object and leaves this one as it
  is, where Pi switches its manager over to the new file.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

from pi_lsp.js.json import JsonParseError, json_stringify, parse_json
from pi_lsp.regular_files import MAX_SESSION_FILE_BYTES, open_regular_file, read_regular_file
from pi_lsp.resources.agent_dir import resolve_agent_dir, resolve_path
from pi_lsp.resources.model import Finding, SourceRange
from pi_lsp.session.durable import LockedSessionFile, NewFileClaim
from pi_lsp.session.entries import (
    CURRENT_SESSION_VERSION,
    TYPE_BRANCH_SUMMARY,
    TYPE_COMPACTION,
    TYPE_CUSTOM,
    TYPE_CUSTOM_MESSAGE,
    TYPE_LABEL,
    TYPE_MESSAGE,
    TYPE_MODEL_CHANGE,
    TYPE_SESSION,
    TYPE_SESSION_INFO,
    TYPE_THINKING_LEVEL_CHANGE,
    Entry,
    clean_session_name,
    default_session_dir,
    is_assistant_message,
    make_entry,
    make_header,
    new_entry_id,
    new_session_id,
    opening_entry_payloads,
    session_file_name,
    validate_session_id,
)
from pi_lsp.session.entry_store import EntryPath, IndexedEntries
from pi_lsp.session.errors import (
    EntryNotFoundError,
    NotASessionError,
    SessionFileError,
    SessionReadOnlyError,
)
from pi_lsp.session.lines import LineReader, ParsedLines, gc_paused, parse_session_bytes
from pi_lsp.session.migration import migrate_records, session_version
from pi_lsp.session.tree import TreeNode, get_tree, labels_by_target

__all__ = [
    "HEADER_SCAN_LIMIT",
    "SessionFile",
    "find_most_recent_session",
    "read_session_header",
    "serialize_records",
]

Mode = Literal["write", "read", "memory"]

#: How much of a file "continue most recent" reads to find its header (spec §8.1).
HEADER_SCAN_LIMIT = 1 << 20

#: From this size on, a current-version file keeps the message and custom entries outside the
#: leaf's context in the file (read again when asked for) instead of in memory.
LAZY_MIN_BYTES = 1 << 20


def serialize_records(records: Iterable[Mapping[str, Any]]) -> bytes:
    """Lines as Pi writes them: ``JSON.stringify`` of each record, each ending in ``\\n``."""
    return b"".join(
        json_stringify(record, key_order="insertion").encode("utf-8") + b"\n" for record in records
    )


class SessionFile:
    """One session: header, entries in file order, the leaf, labels. Not thread-safe.

    Build one with a class method (:meth:`create`, :meth:`open`, :meth:`read`,
    :meth:`in_memory`, :meth:`continue_recent`, :meth:`fork_from`); close a writing session
    when done (or use it as a context manager) to release its lock.
    """

    def __init__(
        self,
        header: Entry,
        entries: Sequence[Entry | None],
        *,
        path: str | None,
        cwd: str,
        mode: Mode,
        writer: LockedSessionFile | None = None,
        findings: Sequence[Finding] = (),
        migrated_from: int | float | None = None,
        keys: tuple[Sequence[Any], Sequence[Any], Sequence[Any], Sequence[int]] | None = None,
        reader: LineReader | None = None,
        claim: NewFileClaim | None = None,
    ) -> None:
        """``keys``: the ``id``, ``parentId``, ``type`` and assistant flag of each entry, as a
        load read them while parsing; ``reader``: reads the entries that are None again from
        the file (then only the leaf's context among them is kept in memory); ``claim``: this
        writer's claim on its not yet written file, given up once the file is written."""
        self._header = header
        self._reader = reader
        self._entries = IndexedEntries(
            entries, keys=keys, loader=reader.read if reader is not None else None
        )
        self._path = path
        self._cwd = cwd
        self._mode: Mode = mode
        self._writer = writer
        self._claim = claim
        self._findings = list(findings)
        self._migrated_from = migrated_from
        self._closed = False
        self._by_id: Mapping[str, Entry] = self._entries.by_id
        store = self._entries
        self._labels = labels_by_target(store[at] for at in store.positions_of_kind(TYPE_LABEL))
        self._has_assistant = store.has_assistant()
        last_id = store.entry_id(len(store) - 1) if store else None
        self._leaf_id: str | None = last_id if isinstance(last_id, str) else None
        self._hold_context()

    # -- building -----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str,
        *,
        agent_dir: str | None = None,
        session_dir: str | None = None,
        session_id: str | None = None,
        parent_session: str | None = None,
        provider: str | None = None,
        model_id: str | None = None,
        thinking_level: str | None = None,
    ) -> SessionFile:
        """A new persistent session for ``cwd``; nothing is written before an assistant reply.

        The file goes to ``session_dir`` or the default folder under the agent dir. With
        ``provider`` and ``model_id`` the session opens with a ``model_change`` entry, with
        ``thinking_level`` with a ``thinking_level_change`` (a new Pi session has both).
        """
        cwd = resolve_path(cwd)
        sid = validate_session_id(session_id) if session_id is not None else new_session_id()
        header = make_header(sid, cwd, parent_session=parent_session)
        folder = _session_folder(cwd, agent_dir, session_dir)
        path = os.path.join(folder, session_file_name(header["timestamp"], sid))
        session = cls(header, [], path=path, cwd=cwd, mode="write")
        session._append_opening(provider, model_id, thinking_level)
        return session

    @classmethod
    def in_memory(
        cls,
        cwd: str,
        *,
        entries: Iterable[Entry] = (),
        header: Entry | None = None,
        session_id: str | None = None,
        provider: str | None = None,
        model_id: str | None = None,
        thinking_level: str | None = None,
    ) -> SessionFile:
        """A session kept in memory only (``--no-session``), optionally restoring ``entries``.

        With ``header`` (a copy is taken) the restored session keeps that header; an older
        version is migrated. Opening entries are added only to an empty session.
        """
        cwd = resolve_path(cwd)
        records = [dict(header)] if header is not None else []
        records.extend(dict(entry) for entry in entries)
        report_from = None
        if records and records[0].get("type") == TYPE_SESSION:
            report = migrate_records(records)
            report_from = report.from_version if report.changed else None
            head = records.pop(0)
        else:
            sid = validate_session_id(session_id) if session_id is not None else new_session_id()
            head = make_header(sid, cwd)
        body = [record for record in records if record.get("type") != TYPE_SESSION]
        session = cls(head, body, path=None, cwd=cwd, mode="memory", migrated_from=report_from)
        if not body:
            session._append_opening(provider, model_id, thinking_level)
        return session

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, cwd: str | None = None) -> SessionFile:
        """Open a session file for writing (Pi's ``SessionManager.open``), taking its lock.

        An old version is migrated and the file rewritten; a last line without its newline
        gets one; a 0-byte file gets a fresh header (as Pi does); a file that does not exist
        becomes a new session at that path, written at its first assistant message. Raises
        :class:`NotASessionError` (file left untouched), :class:`SessionLockedError` when
        another writer has it, :class:`SessionFileError` when it cannot be read or written.
        """
        file_path = os.fspath(path)
        if not os.path.exists(file_path):
            claim = NewFileClaim.take(file_path)
            if not os.path.exists(file_path):
                new_cwd = resolve_path(cwd if cwd is not None else os.getcwd())
                header = make_header(new_session_id(), new_cwd)
                return cls(header, [], path=file_path, cwd=new_cwd, mode="write", claim=claim)
            claim.release()  # written by a writer that is done since: open what it wrote
        writer, data = LockedSessionFile.open_existing(file_path)
        try:
            fd = writer.open_for_reading() if len(data) >= LAZY_MIN_BYTES else None
            return cls._from_bytes(file_path, data, cwd=cwd, writer=writer, fd=fd)
        except BaseException:
            writer.close()
            raise

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> SessionFile:
        """Load a session file for reading only: no lock, no write, migration in memory.

        Raises :class:`NotASessionError` or :class:`SessionFileError` (missing, unreadable).
        A 0-byte file reads as an empty session with a fresh in-memory header.
        """
        file_path = os.fspath(path)
        fd: int | None = None
        try:
            fd, _ = open_regular_file(file_path, MAX_SESSION_FILE_BYTES)
            data = LockedSessionFile.read_fd(fd, file_path)
        except OSError as error:
            if fd is not None:
                os.close(fd)
            raise SessionFileError(
                file_path, f"cannot read the session file: {error.strerror or error}"
            ) from None
        return cls._from_bytes(file_path, data, cwd=None, writer=None, fd=fd)

    @classmethod
    def continue_recent(
        cls,
        cwd: str,
        *,
        agent_dir: str | None = None,
        session_dir: str | None = None,
        provider: str | None = None,
        model_id: str | None = None,
        thinking_level: str | None = None,
    ) -> SessionFile:
        """Open the most recent session of ``cwd`` for writing, or create one (``--continue``).

        With ``session_dir`` only files whose header ``cwd`` is ``cwd`` count (spec §8.1).
        The model and thinking level only open a newly created session.
        """
        cwd = resolve_path(cwd)
        folder = _session_folder(cwd, agent_dir, session_dir)
        recent = find_most_recent_session(folder, cwd=cwd if session_dir is not None else None)
        if recent is not None:
            return cls.open(recent, cwd=cwd)
        return cls.create(
            cwd,
            session_dir=folder,
            provider=provider,
            model_id=model_id,
            thinking_level=thinking_level,
        )

    @classmethod
    def fork_from(
        cls,
        source_path: str | os.PathLike[str],
        target_cwd: str,
        *,
        agent_dir: str | None = None,
        session_dir: str | None = None,
    ) -> SessionFile:
        """Copy every entry of another session file into a new file for ``target_cwd``.

        The new header names the source in ``parentSession``; the file is written at once
        and returned open for writing. The source is only read (and migrated in memory).
        """
        source = os.fspath(source_path)
        original = cls.read(source)
        if not original.entries:
            raise SessionFileError(source, "Cannot fork: the source session has no entries")
        cwd = resolve_path(target_cwd)
        header = make_header(new_session_id(), cwd, parent_session=source)
        folder = _session_folder(cwd, agent_dir, session_dir)
        path = os.path.join(folder, session_file_name(header["timestamp"], header["id"]))
        entries = [dict(entry) for entry in original.entries]
        writer = LockedSessionFile.create_exclusive(path, serialize_records([header, *entries]))
        return cls(header, entries, path=path, cwd=cwd, mode="write", writer=writer)

    @classmethod
    def _from_bytes(
        cls,
        path: str,
        data: bytes,
        *,
        cwd: str | None,
        writer: LockedSessionFile | None,
        fd: int | None = None,
    ) -> SessionFile:
        """``fd``: a read-only descriptor of the file the bytes came from, which the session
        takes (closed here unless the session keeps entries in the file)."""
        reader: list[LineReader] = []
        try:
            # A large file makes millions of acyclic containers; the cyclic GC is off meanwhile.
            with gc_paused():
                return cls._load_bytes(path, data, cwd=cwd, writer=writer, fd=fd, reader=reader)
        finally:
            if fd is not None and not reader:
                os.close(fd)

    @classmethod
    def _load_bytes(
        cls,
        path: str,
        data: bytes,
        *,
        cwd: str | None,
        writer: LockedSessionFile | None,
        fd: int | None,
        reader: list[LineReader],
    ) -> SessionFile:
        mode: Mode = "write" if writer is not None else "read"
        lazy = fd is not None and len(data) >= LAZY_MIN_BYTES
        parsed = parse_session_bytes(path, data, lazy=lazy)
        if lazy and _needs_migration(parsed):  # a migration changes every record: keep them
            lazy = False
            parsed = parse_session_bytes(path, data)
        findings: list[Finding] = list(parsed.findings)
        if not data:
            session_cwd = resolve_path(cwd if cwd is not None else os.getcwd())
            header = make_header(new_session_id(), session_cwd)
            if writer is not None:
                writer.append(serialize_records([header]))
            else:
                findings.append(
                    Finding(
                        SourceRange.line(path, 0),
                        "information",
                        "session-empty-file",
                        "the file is empty; Pi would start a new session in it",
                    )
                )
            return cls(
                header, [], path=path, cwd=session_cwd, mode=mode, writer=writer, findings=findings
            )
        header = _require_header(path, parsed)
        # a lazy parse is of a current-version file: the migration only looks at the header
        report = migrate_records([header] if lazy else _all_kept(parsed.records))
        for note in report.notes:
            findings.append(
                Finding(
                    SourceRange.line(path, parsed.lines[note.record_index]),
                    "warning",
                    "session-migration",
                    note.message,
                )
            )
        if report.changed:
            findings.append(
                Finding(
                    SourceRange.line(path, parsed.lines[0]),
                    "information",
                    "session-migrated",
                    f"version {report.from_version} session file, migrated to version "
                    f"{CURRENT_SESSION_VERSION}"
                    + (" (file rewritten)" if writer is not None else " in memory"),
                )
            )
            if writer is not None:
                writer.replace(_rewritten_bytes(data, parsed))
        elif writer is not None and not parsed.ends_with_newline:
            writer.append(b"\n")
        records = parsed.records
        if report.changed:  # ids and parents may be new
            migrated = _all_kept(records)
            parsed.ids = [record.get("id") for record in migrated]
            parsed.parents = [record.get("parentId") for record in migrated]
            parsed.kinds = [record.get("type") for record in migrated]
            parsed.assistant = bytearray(1 if is_assistant_message(r) else 0 for r in migrated)
        entries: list[Entry | None] = []
        entry_lines: list[int] = []
        entry_ids: list[Any] = []
        entry_parents: list[Any] = []
        entry_kinds: list[Any] = []
        entry_assistant = bytearray()
        kept_records: list[int] = []
        for at, (record, line, entry_id, parent, kind) in enumerate(
            zip(
                records,
                parsed.lines,
                parsed.ids,
                parsed.parents,
                parsed.kinds,
                strict=True,
            )
        ):
            if at == 0:
                continue
            if kind == TYPE_SESSION:
                findings.append(
                    Finding(
                        SourceRange.line(path, line),
                        "warning",
                        "session-extra-header",
                        f"line {line + 1} is a second session header; it is ignored",
                    )
                )
                continue
            entries.append(record)
            entry_lines.append(line)
            entry_ids.append(entry_id)
            entry_parents.append(parent)
            entry_kinds.append(kind)
            entry_assistant.append(parsed.assistant[at])
            kept_records.append(at)
        findings.extend(_structure_findings(path, entry_ids, entry_parents, entry_lines))
        if lazy:
            assert fd is not None
            reader.append(
                LineReader(
                    path,
                    fd,
                    array("q", (parsed.starts[at] for at in kept_records)),
                    array("q", (parsed.ends[at] for at in kept_records)),
                    entry_lines,
                    entry_ids,
                )
            )
        header_cwd = header.get("cwd")
        if cwd is not None:
            session_cwd = resolve_path(cwd)
        elif isinstance(header_cwd, str) and header_cwd:
            session_cwd = header_cwd
        else:
            session_cwd = resolve_path(os.getcwd())
        return cls(
            header,
            entries,
            path=path,
            cwd=session_cwd,
            mode=mode,
            writer=writer,
            findings=findings,
            migrated_from=report.from_version if report.changed else None,
            keys=(entry_ids, entry_parents, entry_kinds, entry_assistant),
            reader=reader[0] if reader else None,
        )

    # -- what it holds ------------------------------------------------------------------------

    @property
    def path(self) -> str | None:
        """The session file (``None`` in memory); it may not exist yet (deferred write)."""
        return self._path

    @property
    def header(self) -> Entry:
        return self._header

    @property
    def session_id(self) -> str:
        return str(self._header.get("id", ""))

    @property
    def cwd(self) -> str:
        return self._cwd

    @property
    def entries(self) -> Sequence[Entry]:
        """Every entry after the header, in file order (do not change them in place)."""
        return self._entries

    @property
    def findings(self) -> Sequence[Finding]:
        """What loading noticed: skipped lines, migration, structure problems."""
        return self._findings

    @property
    def migrated_from(self) -> int | float | None:
        """The version the file had when it was older than the current one, else ``None``."""
        return self._migrated_from

    @property
    def mode(self) -> Mode:
        return self._mode

    @property
    def persisted(self) -> bool:
        """Whether the session's file exists on disk with its header (writing mode)."""
        return self._writer is not None

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def labels(self) -> Mapping[str, str]:
        """Current label per entry id (the last label entry per target wins; empty clears)."""
        return self._labels

    @property
    def session_name(self) -> str | None:
        """The name from the latest ``session_info`` entry (``None`` if none or cleared)."""
        named = self._entries.positions_of_kind(TYPE_SESSION_INFO)
        if not named:
            return None
        name = self._entries[named[-1]].get("name")
        return name if isinstance(name, str) and name else None

    def get_entry(self, entry_id: str) -> Entry | None:
        return self._by_id.get(entry_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_leaf_entry(self) -> Entry | None:
        return self._by_id.get(self._leaf_id) if self._leaf_id is not None else None

    def get_children(self, parent_id: str | None) -> list[Entry]:
        return [self._entries[at] for at in self._entries.children_positions(parent_id)]

    def get_branch(self, from_id: str | None = None) -> EntryPath | list[Entry]:
        """Root-first path to ``from_id`` (default: the leaf); entries kept in the file are
        read when the path is indexed or iterated."""
        return self._entries.branch(from_id if from_id is not None else self._leaf_id)

    def entry_types(self) -> list[Any]:
        """The type of every entry in file order, without reading their bodies."""
        store = self._entries
        return [store.kind(at) for at in range(len(store))]

    def get_branch_ids(self, from_id: str | None = None) -> list[Any]:
        """The ids of :meth:`get_branch`'s entries, without reading their bodies."""
        path = self.get_branch(from_id)
        return path.ids() if isinstance(path, EntryPath) else [e.get("id") for e in path]

    def get_branch_types(self, from_id: str | None = None) -> list[Any]:
        """The types of :meth:`get_branch`'s entries, without reading their bodies."""
        path = self.get_branch(from_id)
        return path.kinds() if isinstance(path, EntryPath) else [e.get("type") for e in path]

    def get_tree(self) -> list[TreeNode]:
        return get_tree(self._entries)

    def has_assistant_message(self) -> bool:
        return self._has_assistant

    # -- moving the leaf ----------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        """Make ``entry_id`` the leaf: the next append becomes its child."""
        if entry_id not in self._by_id:
            raise EntryNotFoundError(entry_id)
        self._leaf_id = entry_id
        self._hold_context()

    def _hold_context(self) -> None:
        """Keep the leaf's context in memory (a session reading entries from its file): the
        agent works on it every turn, and its messages stay the objects the agent holds."""
        if self._reader is not None and self._leaf_id is not None:
            position = self._entries.positions.get(self._leaf_id)
            if position is not None:
                self._entries.retain(_context_positions(self._entries, position))

    def reset_leaf(self) -> None:
        """No leaf: the next append starts a new root."""
        self._leaf_id = None

    # -- appending ----------------------------------------------------------------------------

    def append_entry(self, entry_type: str, payload: Mapping[str, Any]) -> str:
        """Append an entry of any type after the leaf; it becomes the leaf. Returns its id.

        ``payload`` holds the fields after ``timestamp``, in the order to write them.
        """
        entry = make_entry(entry_type, new_entry_id(self._by_id), self._leaf_id, dict(payload))
        self._append(entry)
        return str(entry["id"])

    def append_message(self, message: Mapping[str, Any]) -> str:
        return self.append_entry(TYPE_MESSAGE, {"message": message})

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self.append_entry(TYPE_THINKING_LEVEL_CHANGE, {"thinkingLevel": thinking_level})

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self.append_entry(TYPE_MODEL_CHANGE, {"provider": provider, "modelId": model_id})

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = False,
        usage: Mapping[str, Any] | None = None,
    ) -> str:
        """A compaction entry; pi-generated ones store ``fromHook: false`` (the default)."""
        payload: dict[str, Any] = {
            "summary": summary,
            "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": tokens_before,
        }
        if details is not None:
            payload["details"] = details
        if usage is not None:
            payload["usage"] = usage
        if from_hook is not None:
            payload["fromHook"] = from_hook
        return self.append_entry(TYPE_COMPACTION, payload)

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        payload: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            payload["data"] = data
        return self.append_entry(TYPE_CUSTOM, payload)

    def append_custom_message_entry(
        self, custom_type: str, content: Any, display: bool, details: Any = None
    ) -> str:
        payload: dict[str, Any] = {"customType": custom_type, "content": content}
        if details is not None:
            payload["details"] = details
        payload["display"] = display
        return self.append_entry(TYPE_CUSTOM_MESSAGE, payload)

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Label ``target_id`` (``None`` or ``""`` clears); the target must exist."""
        if target_id not in self._by_id:
            raise EntryNotFoundError(target_id)
        payload: dict[str, Any] = {"targetId": target_id}
        if label is not None:
            payload["label"] = label
        return self.append_entry(TYPE_LABEL, payload)

    def append_session_info(self, name: str) -> str:
        """Name the session (CR/LF runs become one space; the name is trimmed)."""
        return self.append_entry(TYPE_SESSION_INFO, {"name": clean_session_name(name)})

    def branch_with_summary(
        self,
        target_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Mapping[str, Any] | None = None,
    ) -> str:
        """Move the leaf to ``target_id`` (``None``: no parent) and append a branch summary.

        ``fromId`` is the leaf before the move (``"root"`` when there was none).
        """
        if target_id is not None and target_id not in self._by_id:
            raise EntryNotFoundError(target_id)
        from_id = self._leaf_id if self._leaf_id is not None else "root"
        payload: dict[str, Any] = {"fromId": from_id, "summary": summary}
        if details is not None:
            payload["details"] = details
        if usage is not None:
            payload["usage"] = usage
        if from_hook is not None:
            payload["fromHook"] = from_hook
        entry = make_entry(TYPE_BRANCH_SUMMARY, new_entry_id(self._by_id), target_id, payload)
        self._append(entry)
        self._hold_context()  # the summary continues another branch
        return str(entry["id"])

    # -- new sessions from this one -----------------------------------------------------------

    def create_branched_session(self, leaf_id: str) -> SessionFile:
        """A new session holding the root→``leaf_id`` path of this one (spec §8.5).

        Label entries are left out and the kept entries re-chained; a compaction whose
        ``firstKeptEntryId`` pointed at a left-out label points at the next kept entry; the
        labels of path entries follow as fresh label entries. The new header names this file
        in ``parentSession``. A persistent session's branch goes next to this file and is
        written at once if the path holds an assistant message; an in-memory one stays in
        memory. This session is not changed.
        """
        path = self.get_branch(leaf_id)
        if not path:
            raise EntryNotFoundError(leaf_id)
        kept: list[Entry] = []
        replacement: dict[str, str | None] = {}  # removed label id -> next kept entry id
        waiting: list[str] = []
        for entry in path:
            entry_id = entry.get("id")
            if entry.get("type") == TYPE_LABEL:
                if isinstance(entry_id, str):
                    waiting.append(entry_id)
                continue
            copy = dict(entry)
            copy["parentId"] = kept[-1].get("id") if kept else None
            kept.append(copy)
            for label_id in waiting:
                replacement[label_id] = copy.get("id") if isinstance(copy.get("id"), str) else None
            waiting.clear()
        for copy in kept:
            if copy.get("type") == TYPE_COMPACTION:
                target = copy.get("firstKeptEntryId")
                if isinstance(target, str) and target in replacement:
                    new_target = replacement[target]
                    if new_target is not None:
                        copy["firstKeptEntryId"] = new_target
        on_path = {copy.get("id") for copy in kept}
        taken = set(self._by_id)
        for label_target, label in self._labels.items():
            if label_target not in on_path:
                continue
            label_id = new_entry_id(taken)
            taken.add(label_id)
            parent = kept[-1].get("id") if kept else None
            kept.append(
                make_entry(TYPE_LABEL, label_id, parent, {"targetId": label_target, "label": label})
            )
        persistent = self._path is not None and self._mode != "memory"
        sid = new_session_id()
        header = make_header(sid, self._cwd, parent_session=self._path if persistent else None)
        if not persistent:
            return SessionFile(header, kept, path=None, cwd=self._cwd, mode="memory")
        assert self._path is not None
        folder = os.path.dirname(self._path) or "."
        new_path = os.path.join(folder, session_file_name(header["timestamp"], sid))
        writer = None
        if any(is_assistant_message(entry) for entry in kept):
            writer = LockedSessionFile.create_exclusive(
                new_path, serialize_records([header, *kept])
            )
        return SessionFile(header, kept, path=new_path, cwd=self._cwd, mode="write", writer=writer)

    # -- closing ------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the file and its lock; a session closed before its first assistant message
        leaves no file behind. Further appends raise."""
        self._closed = True
        if self._writer is not None:
            self._writer.close()
        if self._claim is not None:
            self._claim.release()

    def __enter__(self) -> SessionFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    # -- internals ----------------------------------------------------------------------------

    def _append_opening(
        self, provider: str | None, model_id: str | None, thinking_level: str | None
    ) -> None:
        for entry_type, payload in opening_entry_payloads(
            provider or "", model_id or "", thinking_level or ""
        ):
            if entry_type == TYPE_MODEL_CHANGE and (provider is None or model_id is None):
                continue
            if entry_type == TYPE_THINKING_LEVEL_CHANGE and thinking_level is None:
                continue
            self.append_entry(entry_type, payload)

    def _append(self, entry: Entry) -> None:
        if self._mode == "read":
            raise SessionReadOnlyError(
                self._path or "<memory>", "the session was opened for reading only"
            )
        if self._closed:
            raise SessionFileError(self._path or "<memory>", "the session is closed")
        if self._mode == "write":
            self._persist(entry)
        self._entries.add(entry)  # indexes it in self._by_id too
        entry_id = entry["id"]
        self._leaf_id = entry_id
        if entry.get("type") == TYPE_LABEL:
            label = entry.get("label")
            target = entry.get("targetId")
            if isinstance(target, str):
                if isinstance(label, str) and label:
                    self._labels[target] = label
                else:
                    self._labels.pop(target, None)
        if is_assistant_message(entry):
            self._has_assistant = True

    def _persist(self, entry: Entry) -> None:
        assert self._path is not None
        if self._writer is not None:
            self._writer.append(serialize_records([entry]))
        elif self._has_assistant or is_assistant_message(entry):
            self._writer = LockedSessionFile.create_exclusive(
                self._path, serialize_records([self._header, *self._entries, entry])
            )
            if self._claim is not None:  # the file's own lock keeps other writers out now
                self._claim.release()


# ---------------------------------------------------------------------------------------------
# Helpers


def _session_folder(cwd: str, agent_dir: str | None, session_dir: str | None) -> str:
    if session_dir is not None:
        return resolve_path(session_dir)
    return default_session_dir(cwd, agent_dir if agent_dir is not None else resolve_agent_dir())


def _all_kept(records: list[Entry | None]) -> list[Entry]:
    """``records`` of a parse that kept every one (not lazy)."""
    assert all(record is not None for record in records)
    return records  # type: ignore[return-value]


def _require_header(path: str, parsed: ParsedLines) -> Entry:
    """The header record; raises when the file does not start with one."""
    first = parsed.records[0] if parsed.records else None
    if first is None:
        raise NotASessionError(path, "not a Pi session file: it holds no JSON object lines", line=1)
    line = parsed.lines[0] + 1
    if first.get("type") != TYPE_SESSION:
        kind = first.get("type")
        what = f'a "{kind}" entry' if isinstance(kind, str) else "an object without a type"
        raise NotASessionError(
            path,
            f"not a Pi session file: the first JSON line is {what}, not a session header",
            line=line,
        )
    if not isinstance(first.get("id"), str):
        raise NotASessionError(
            path, "not a Pi session file: the session header has no string id", line=line
        )
    return first


def _rewritten_bytes(data: bytes, parsed: ParsedLines) -> bytes:
    """The file with each parsed record re-serialized in place; other lines kept as they are."""
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    for record, line in zip(parsed.records, parsed.lines, strict=True):
        raw_lines[line] = json_stringify(record, key_order="insertion").encode("utf-8")
    return b"".join(line + b"\n" for line in raw_lines)


def _structure_findings(
    path: str, entry_ids: list[Any], parents: list[Any], lines: list[int]
) -> list[Finding]:
    """Entries without an id, repeated ids, parents not in the file, from each entry's ``id``,
    ``parentId`` and 0-based line. A range is made only for what is reported."""
    findings: list[Finding] = []
    seen: set[str] = set()
    ids = {entry_id for entry_id in entry_ids if isinstance(entry_id, str)}
    for entry_id, parent, line in zip(entry_ids, parents, lines, strict=True):
        if not isinstance(entry_id, str):
            findings.append(
                Finding(
                    SourceRange.line(path, line),
                    "warning",
                    "session-entry-without-id",
                    f"line {line + 1}: the entry has no string id; nothing can follow it",
                )
            )
            continue
        if entry_id in seen:
            findings.append(
                Finding(
                    SourceRange.line(path, line),
                    "warning",
                    "session-duplicate-id",
                    f"line {line + 1}: id {entry_id} is used again; this entry replaces "
                    "the earlier one when entries are looked up by id",
                )
            )
        seen.add(entry_id)
        if isinstance(parent, str) and parent != entry_id and parent not in ids:
            findings.append(
                Finding(
                    SourceRange.line(path, line),
                    "warning",
                    "session-missing-parent",
                    f"line {line + 1}: parent {parent} of entry {entry_id} is not in the "
                    "file; the branch through this entry starts here",
                )
            )
    return findings


def read_session_header(path: str, limit: int = HEADER_SCAN_LIMIT) -> Entry | None:
    """The header of a session file if its first JSON object line (within ``limit`` bytes) is
    a session header with a string id; ``None`` otherwise or when unreadable."""
    try:
        head = read_regular_file(path, None, prefix=limit)
    except OSError:
        return None
    complete = head.endswith(b"\n") or len(head) < limit
    lines = head.split(b"\n")
    if not complete:
        lines.pop()  # cut off by the limit
    for raw in lines:
        text = raw.decode("utf-8", "replace")
        if not text.strip():
            continue
        try:
            value = parse_json(text)
        except JsonParseError:
            continue
        if not isinstance(value, dict):
            continue
        if value.get("type") == TYPE_SESSION and isinstance(value.get("id"), str):
            return value
        return None
    return None


def find_most_recent_session(session_dir: str, *, cwd: str | None = None) -> str | None:
    """The newest (by mtime) ``*.jsonl`` session file in ``session_dir``, or ``None``.

    Only files that start with a valid header count; with ``cwd``, only those whose header
    ``cwd`` resolves to it (Pi checks this when a custom session dir is in use).
    """
    try:
        names = os.listdir(session_dir)
    except OSError:
        return None
    wanted = resolve_path(cwd) if cwd is not None else None
    best: tuple[int, str] | None = None
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        file_path = os.path.join(session_dir, name)
        try:
            info = os.stat(file_path)
        except OSError:
            continue
        if not os.path.isfile(file_path):
            continue
        header = read_session_header(file_path)
        if header is None:
            continue
        if wanted is not None:
            header_cwd = header.get("cwd")
            if not isinstance(header_cwd, str) or resolve_path(header_cwd) != wanted:
                continue
        key = (info.st_mtime_ns, name)
        if best is None or key > best:
            best = key
    return os.path.join(session_dir, best[1]) if best is not None else None


def _needs_migration(parsed: ParsedLines) -> bool:
    header = parsed.records[0] if parsed.records else None
    if header is None:
        return False
    version = session_version(header)
    return version is not None and version < CURRENT_SESSION_VERSION


def _context_positions(store: IndexedEntries, leaf: int) -> list[int]:
    """Positions of the entries the context at ``leaf`` holds (as
    :func:`~pi_lsp.session.context.build_session_context` lays it out): the path back to the
    latest compaction and, before it, back to its first kept entry when that is on the path."""
    parents = store.parent_links()
    tail: list[int] = []
    kept: list[int] = []
    seen: set[int] = set()
    first_kept: Any = None
    compaction_found = False
    position = leaf
    while position >= 0 and position not in seen:
        seen.add(position)
        if compaction_found:
            kept.append(position)
            if store.entry_id(position) == first_kept:
                return tail + kept
        else:
            tail.append(position)
            if store.kind(position) == TYPE_COMPACTION:
                compaction_found = True
                first_kept = store[position].get("firstKeptEntryId")
        position = parents[position]
    return tail
