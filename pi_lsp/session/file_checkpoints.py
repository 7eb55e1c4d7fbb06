"""What the agent's file changes replaced, kept beside a session so they can be put back.

Every ``edit`` or ``write`` call that changed a file is one *change*: the file's path, the
session entry of the turn that made it (the assistant message that called the tool), its state
before (whether it existed, and its bytes) and the state the agent left (whether it exists, and
a hash of its bytes). :func:`restore_files` puts every file changed at or after an entry back to
its state before the first of those changes; a file whose content differs from what the agent
left was changed since by the user and is kept unless forced.

Where it lives: a folder beside the session file, ``<session file minus .jsonl>.checkpoints/``,
with ``changes.jsonl`` (one JSON object a line, only appended to) and ``blobs/<sha256>`` (the
before-contents, stored once per distinct content). The session JSONL itself is not touched, so
Pi reads it as before, and Pi's session listing only looks at ``*.jsonl`` files. Beside the file
(rather than under the agent dir) the checkpoints move, copy and get deleted with the session,
and any server that can read the session finds them. A session kept in memory keeps its
checkpoints in memory.

Bounds: a before-content over :data:`MAX_FILE_BYTES` is not kept (the change is recorded as not
restorable, with the reason), and once a session's blobs reach :data:`MAX_SESSION_BYTES` new
contents are not kept either. A line of ``changes.jsonl`` that cannot be read is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_lsp.tools.file_mutation import make_parent_dirs, write_file_atomically

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_SESSION_BYTES",
    "Change",
    "CheckpointStore",
    "FileRestore",
    "FileState",
    "read_state",
    "restore_files",
]

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_SESSION_BYTES = 64 * 1024 * 1024
SIDECAR_SUFFIX = ".checkpoints"

Action = Literal["restore", "delete", "unchanged", "keep", "notRestorable"]


def _json_line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


@dataclass(frozen=True, slots=True)
class FileState:
    """A file as read at one moment: missing, a regular file (bytes when kept), or unreadable."""

    exists: bool
    sha256: str | None = None
    size: int = 0
    data: bytes | None = None
    problem: str | None = None  # why the bytes are not kept (too large, not a file, unreadable)

    def same_content(self, other: FileState) -> bool:
        if not self.exists or not other.exists:
            return self.exists == other.exists
        return self.sha256 is not None and self.sha256 == other.sha256


def read_state(path: str, *, keep_up_to: int = MAX_FILE_BYTES) -> FileState:
    """The state of ``path`` now; its bytes kept when the file is at most ``keep_up_to`` bytes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return FileState(exists=False)
    except OSError as error:
        return FileState(exists=True, problem=f"could not be read ({error.strerror})")
    if not stat.S_ISREG(st.st_mode):
        return FileState(exists=True, problem="is not a regular file")
    digest = hashlib.sha256()
    kept: list[bytes] | None = [] if st.st_size <= keep_up_to else None
    size = 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1024 * 1024):
                digest.update(chunk)
                size += len(chunk)
                if kept is not None:
                    kept.append(chunk)
                    if size > keep_up_to:
                        kept = None
    except OSError as error:
        return FileState(exists=True, problem=f"could not be read ({error.strerror})")
    if kept is None:
        limit = f"the {_mib(keep_up_to)} checkpoint limit"
        return FileState(True, digest.hexdigest(), size, problem=f"is larger than {limit}")
    return FileState(True, digest.hexdigest(), size, b"".join(kept))


@dataclass(frozen=True, slots=True)
class Change:
    """One tool call's change of one file (see the module docstring)."""

    seq: int
    entry_id: str | None
    path: str
    tool: str
    tool_call_id: str
    existed: bool
    before_sha256: str | None  # None: the before-content was not kept
    exists_after: bool
    after_sha256: str | None
    not_restorable: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "change",
            "seq": self.seq,
            "entryId": self.entry_id,
            "path": self.path,
            "tool": self.tool,
            "toolCallId": self.tool_call_id,
            "before": {"exists": self.existed, "sha256": self.before_sha256},
            "after": {"exists": self.exists_after, "sha256": self.after_sha256},
            "notRestorable": self.not_restorable,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Change | None:
        before, after = raw.get("before"), raw.get("after")
        seq, path = raw.get("seq"), raw.get("path")
        if not (isinstance(before, Mapping) and isinstance(after, Mapping)):
            return None
        if not isinstance(seq, int) or not isinstance(path, str) or not path:
            return None

        def text(value: Any) -> str | None:
            return value if isinstance(value, str) else None

        return cls(
            seq=seq,
            entry_id=text(raw.get("entryId")),
            path=path,
            tool=text(raw.get("tool")) or "",
            tool_call_id=text(raw.get("toolCallId")) or "",
            existed=before.get("exists") is True,
            before_sha256=text(before.get("sha256")),
            exists_after=after.get("exists") is True,
            after_sha256=text(after.get("sha256")),
            not_restorable=text(raw.get("notRestorable")),
        )


@dataclass
class CheckpointStore:
    """The changes of one session and the before-contents they need (see the module docstring).

    ``folder`` None keeps everything in memory (a session that is not saved).
    """

    folder: str | None
    changes: list[Change] = field(default_factory=list)
    reverted: set[int] = field(default_factory=set)
    _memory_blobs: dict[str, bytes] = field(default_factory=dict)
    _blob_bytes: int = 0

    @classmethod
    def beside(cls, session_path: str | None) -> CheckpointStore:
        """The store of the session saved at ``session_path`` (loaded if it exists)."""
        if session_path is None:
            return cls(None)
        base = session_path[: -len(".jsonl")] if session_path.endswith(".jsonl") else session_path
        store = cls(base + SIDECAR_SUFFIX)
        store._load()
        return store

    # -- reading ----------------------------------------------------------------------------

    @property
    def _log(self) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, "changes.jsonl")

    def _blob_path(self, sha256: str) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, "blobs", sha256)

    def _load(self) -> None:
        try:
            with open(self._log, "rb") as handle:
                lines = handle.read().split(b"\n")
        except OSError:
            return
        for line in lines:
            try:
                raw = json.loads(line)
            except ValueError:
                continue  # a torn last line, or not ours
            if not isinstance(raw, dict):
                continue
            if raw.get("type") == "change":
                change = Change.from_json(raw)
                if change is not None:
                    self.changes.append(change)
            elif raw.get("type") == "reverted" and isinstance(raw.get("seqs"), list):
                self.reverted.update(s for s in raw["seqs"] if isinstance(s, int))
        with contextlib.suppress(OSError):
            blobs = os.path.join(self.folder or "", "blobs")
            self._blob_bytes = sum(entry.stat().st_size for entry in os.scandir(blobs))

    def blob(self, sha256: str) -> bytes | None:
        if self.folder is None:
            return self._memory_blobs.get(sha256)
        try:
            with open(self._blob_path(sha256), "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == sha256 else None

    # -- writing ----------------------------------------------------------------------------

    def _append(self, records: Iterable[Mapping[str, Any]]) -> None:
        if self.folder is None:
            return
        os.makedirs(self.folder, exist_ok=True)
        text = "".join(_json_line(record) for record in records)
        with open(self._log, "a", encoding="utf-8") as handle:
            handle.write(text)

    def _keep_blob(self, data: bytes, sha256: str) -> str | None:
        """Store ``data``; None when stored, else why not (the session's limit)."""
        if self.blob(sha256) is not None:
            return None
        if self._blob_bytes + len(data) > MAX_SESSION_BYTES:
            return f"the session's checkpoints reached their {_mib(MAX_SESSION_BYTES)} limit"
        if self.folder is None:
            self._memory_blobs[sha256] = data
        else:
            os.makedirs(os.path.dirname(self._blob_path(sha256)), exist_ok=True)
            write_file_atomically(self._blob_path(sha256), data)
        self._blob_bytes += len(data)
        return None

    def record(
        self,
        *,
        entry_id: str | None,
        path: str,
        tool: str,
        tool_call_id: str,
        before: FileState,
        after: FileState,
    ) -> Change | None:
        """Record one call's change of ``path``; None when the file did not change."""
        if before.exists == after.exists and before.same_content(after):
            return None
        problem = before.problem
        sha = before.sha256
        if before.exists and problem is None and before.data is not None and sha is not None:
            try:
                problem = self._keep_blob(before.data, sha)
            except OSError as error:
                problem = f"its content could not be saved ({error.strerror})"
        change = Change(
            seq=max((c.seq for c in self.changes), default=0) + 1,
            entry_id=entry_id,
            path=path,
            tool=tool,
            tool_call_id=tool_call_id,
            existed=before.exists,
            before_sha256=sha if before.exists and problem is None else None,
            exists_after=after.exists,
            after_sha256=after.sha256,
            not_restorable=f"before this change the file {problem}" if problem else None,
        )
        self.changes.append(change)
        self._append([change.to_json()])
        return change

    def mark_reverted(self, seqs: Sequence[int]) -> None:
        if seqs:
            self.reverted.update(seqs)
            self._append([{"type": "reverted", "seqs": list(seqs)}])


# --- restoring ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileRestore:
    """What a restore does (or did) to one file."""

    path: str
    action: Action
    user_changed: bool
    reason: str | None = None

    def to_json(self, cwd: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "relativePath": os.path.relpath(self.path, cwd),
            "action": self.action,
            "userChanged": self.user_changed,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def _changes_from(
    store: CheckpointStore, entry_order: Mapping[str, int], entry_id: str, after: bool
) -> dict[str, list[Change]]:
    """The changes made at (unless ``after``) or after ``entry_id`` (not yet reverted), by real
    path, in order.

    Session entries are only appended, so their order in the file is the order they were made.
    A change whose entry the session does not have is taken as the newest.
    """
    cut = entry_order[entry_id] + (1 if after else 0)
    newest = len(entry_order)
    by_file: dict[str, list[Change]] = {}
    for change in sorted(store.changes, key=lambda c: c.seq):
        if change.seq in store.reverted:
            continue
        position = entry_order.get(change.entry_id or "", newest)
        if position >= cut:
            by_file.setdefault(os.path.realpath(change.path), []).append(change)
    return by_file


def _plan(store: CheckpointStore, changes: list[Change], force: bool) -> FileRestore:
    first, last = changes[0], changes[-1]
    path = first.path
    now = read_state(path, keep_up_to=0)
    if first.not_restorable is not None:
        return FileRestore(path, "notRestorable", False, first.not_restorable)
    if not first.existed:
        before = FileState(exists=False)
    else:
        assert first.before_sha256 is not None
        before = FileState(True, first.before_sha256)
    if now.exists == before.exists and now.same_content(before):
        return FileRestore(path, "unchanged", False)
    left = FileState(last.exists_after, last.after_sha256)
    user_changed = not (now.exists == left.exists and now.same_content(left))
    if now.problem is not None and now.sha256 is None:
        return FileRestore(path, "notRestorable", user_changed, f"the file now {now.problem}")
    if user_changed and not force:
        return FileRestore(path, "keep", True, "changed since the agent's last change")
    if first.before_sha256 is not None and store.blob(first.before_sha256) is None:
        return FileRestore(path, "notRestorable", user_changed, "its saved content is missing")
    return FileRestore(path, "restore" if first.existed else "delete", user_changed)


def _apply(store: CheckpointStore, plan: FileRestore, first: Change) -> FileRestore:
    try:
        if plan.action == "delete":
            with contextlib.suppress(FileNotFoundError):
                os.unlink(plan.path)
        else:
            assert first.before_sha256 is not None
            data = store.blob(first.before_sha256)
            assert data is not None
            make_parent_dirs(os.path.dirname(plan.path))
            write_file_atomically(plan.path, data)
    except Exception as error:  # an OSError or a FileMutationError, worded for the user
        reason = getattr(error, "message", None) or str(error)
        return FileRestore(plan.path, "notRestorable", plan.user_changed, reason)
    return plan


def restore_files(
    store: CheckpointStore,
    entry_ids: Sequence[str],
    entry_id: str,
    *,
    force: bool = False,
    dry_run: bool = False,
    after: bool = False,
) -> list[FileRestore]:
    """Put every file changed at or after ``entry_id`` back as it was before (see the module
    docstring); ``entry_ids`` are the session's entries in file order. With ``after`` the changes
    of ``entry_id`` itself stay (the files as they were right after it). With ``dry_run`` nothing
    is written: the result says what would be done."""
    order = {eid: index for index, eid in enumerate(entry_ids)}
    results: list[FileRestore] = []
    for changes in _changes_from(store, order, entry_id, after).values():
        plan = _plan(store, changes, force)
        if not dry_run and plan.action in ("restore", "delete"):
            plan = _apply(store, plan, changes[0])
        if not dry_run and plan.action in ("restore", "delete", "unchanged"):
            store.mark_reverted([c.seq for c in changes])
        results.append(plan)
    return sorted(results, key=lambda r: r.path)


def change_of(store: CheckpointStore, tool_call_id: str) -> Change | None:
    """The recorded change of one tool call (an edit or write changes one file), or None."""
    return next((c for c in store.changes if c.tool_call_id == tool_call_id), None)


def revert_change(
    store: CheckpointStore, tool_call_id: str, *, force: bool = False, dry_run: bool = False
) -> list[FileRestore]:
    """Put the file one tool call changed back as it was before that call — kept (``keep``)
    when it no longer holds what the call left, unless ``force``. Empty when the call changed
    nothing or was reverted already."""
    change = change_of(store, tool_call_id)
    if change is None or change.seq in store.reverted:
        return []
    plan = _plan(store, [change], force)
    if not dry_run and plan.action in ("restore", "delete"):
        plan = _apply(store, plan, change)
    if not dry_run and plan.action in ("restore", "delete", "unchanged"):
        store.mark_reverted([change.seq])
    return [plan]
