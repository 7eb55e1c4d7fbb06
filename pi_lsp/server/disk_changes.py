"""Which file-system events are real changes to what feeds a prompt.

Watchers (watchfiles, or the client's) report every write they see; a rebuild follows only for
the events that can change a snapshot. Dropped are:

- bookkeeping: locks, atomic-write temps and the agent dir's sessions
  (:func:`~pi_lsp.resources.relevance.is_bookkeeping_path`) — among them the server's own
  ``trust.json.lock``, made and removed each time it reads a trust store;
- a path that is no resource by name and place and that the snapshots do not hold: not a file
  they read, not a file in a folder skill discovery listed, and — for a deletion — not a folder
  above either (a deleted folder may have been any name). A file read from a folder a setting
  or ``--skill`` names counts whatever its name (``team-prompts/review.md``);
- a file that is as it was when its previous change was reported (saved without an edit,
  touched), or as the server wrote it itself (:meth:`DiskChanges.written`).

"As it was" is a fingerprint: whether the path is a symlink and to what, the device and inode
it leads to, and a digest of its bytes — a copy swapped for a link with the same text is a
change (Pi tells a link to the file it reads from a copy), and so is an atomic save without an
edit (a new inode: one needless rebuild, never a missed one).

A fingerprint kept from an event stands for what the snapshots read only until a snapshot reads
the file again: a rebuild may read it after a later write, before that write's event (write A,
reported; write B, read by a rebuild; A again, one report for both: the snapshots hold B).
So every disk read made for a snapshot (:attr:`DiskChanges.source`) is compared with the kept
fingerprint and forgets it when they differ; the next event on that file then counts. A read
and an event's comparison take one lock, so neither falls between the other's read and check.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pi_lsp.regular_files import read_regular_file
from pi_lsp.resources.agent_dir import resolve_agent_dir
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.loader import Resources
from pi_lsp.resources.relevance import is_bookkeeping_path, is_resource_path
from pi_lsp.server.state import WorkspaceState
from pi_lsp.tools.paths import ancestor_dirs

#: files larger than this are taken as changed without reading them to compare
DIGEST_LIMIT = 4 * 1024 * 1024

#: (symlink target or ``None``, device, inode, digest of the bytes)
Fingerprint = tuple[str | None, int, int, bytes]


def _fingerprint(path: str, data: bytes | None = None) -> Fingerprint | None:
    """What ``path`` is now (``data``: its bytes, just read); ``None`` for no regular file."""
    try:
        link = os.readlink(path) if os.path.islink(path) else None
        target = os.stat(path)
        if data is None:  # RefusedFileError (an OSError): a pipe, a device, past the limit
            data = read_regular_file(path, DIGEST_LIMIT)
    except OSError:
        return None
    digest = hashlib.blake2b(data, digest_size=16).digest()
    return (link, target.st_dev, target.st_ino, digest)


def _key(path: str) -> str:
    """``path`` with its folders resolved but not its last part (a link is kept apart)."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


@dataclass(frozen=True, slots=True)
class _Held:
    """What one set of snapshots holds, for telling which events concern them."""

    files: frozenset[str]  # every file read
    by_name: Mapping[str, tuple[str, ...]]  # those files by base name
    listed: frozenset[str]  # folders skill discovery listed
    folders: frozenset[str]  # every folder above a working directory, a file or a listed folder

    @classmethod
    def of(cls, snapshots: Mapping[str, Resources]) -> _Held:
        files: set[str] = set()
        listed: set[str] = set()
        folders: set[str] = set()
        for resources in snapshots.values():
            read, walked = resources.watched_files, resources.skill_load.directories
            files.update(read)
            listed.update(walked)
            for path in (resources.cwd, *read, *walked):
                for above in ancestor_dirs(path):
                    if above in folders:
                        break
                    folders.add(above)
        by_name: dict[str, list[str]] = defaultdict(list)
        for file in files:
            by_name[os.path.basename(file)].append(file)
        return cls(
            frozenset(files),
            {name: tuple(paths) for name, paths in by_name.items()},
            frozenset(listed),
            frozenset(folders),
        )

    def read(self, path: str) -> bool:
        """Whether ``path`` is a file read, or one to read (in a listed folder)."""
        if path in self.files or os.path.dirname(path) in self.listed:
            return True
        same_name = self.by_name.get(os.path.basename(path), ())
        if not same_name:
            return False
        real = os.path.realpath(path)
        return any(os.path.realpath(file) == real for file in same_name)

    def above(self, path: str) -> bool:
        """Whether ``path`` is a folder the snapshots use (or a file they read)."""
        return path in self.folders or os.path.realpath(path) in self.folders


class _ComparedDisk:
    """The disk as snapshots read it, each read compared with the fingerprint kept for it."""

    def __init__(self, changes: DiskChanges, base: FileSource = DISK) -> None:
        self._changes = changes
        self._base = base

    def read_bytes(self, path: str) -> bytes:
        with self._changes.lock:
            data = self._base.read_bytes(path)
            self._changes.was_read(path, data)
        return data

    def is_file(self, path: str) -> bool:
        return self._base.is_file(path)

    def version(self, path: str) -> object:
        return self._base.version(path)


class DiskChanges:
    """The filter between the watchers and ``request_rebuild``, for one workspace."""

    def __init__(self, state: WorkspaceState) -> None:
        self._state = state
        self._seen: dict[str, Fingerprint] = {}  # key -> fingerprint of its last reported change
        self._held: tuple[Mapping[str, Resources], _Held] | None = None
        self._agent_dir: tuple[str | None, str] | None = None  # (setting, resolved)
        self.lock = threading.Lock()  # rebuilds read in a worker thread
        #: the disk for snapshots to read from (``WorkspaceState.disk``)
        self.source: FileSource = _ComparedDisk(self)

    def agent_dir(self) -> str:
        setting = self._state.settings.agent_dir
        if self._agent_dir is None or self._agent_dir[0] != setting:
            self._agent_dir = (setting, resolve_agent_dir(setting))
        return self._agent_dir[1]

    def _holding(self) -> _Held:
        snapshots = self._state.snapshots
        if self._held is None or self._held[0] is not snapshots:
            self._held = (snapshots, _Held.of(snapshots))
        return self._held[1]

    def may_matter(self, path: str, deleted: bool) -> bool:
        """Whether an event at ``path`` can change a snapshot (by name, place and what is held)."""
        agent_dir = self.agent_dir()
        if is_resource_path(path, agent_dir):
            return True
        if is_bookkeeping_path(path, agent_dir):
            return False
        held = self._holding()
        return held.read(path) or (deleted and held.above(path))

    def real_changes(self, events: Iterable[tuple[str, bool]]) -> list[str]:
        """The paths of ``(path, deleted)`` events that can change a snapshot, each once."""
        out: list[str] = []
        for path, deleted in dict.fromkeys(events):
            if not self.may_matter(path, deleted):
                continue
            with self.lock:
                key = _key(path)
                fingerprint = None if deleted else _fingerprint(path)
                if fingerprint is None:
                    self._seen.pop(key, None)
                elif self._seen.get(key) == fingerprint:
                    continue
                else:
                    self._seen[key] = fingerprint
            if path not in out:
                out.append(path)
        return out

    def written(self, path: str) -> None:
        """The server wrote ``path`` itself (and rebuilt for it): its report is no change."""
        with self.lock:
            fingerprint = _fingerprint(path)
            if fingerprint is None:
                self._seen.pop(_key(path), None)
            else:
                self._seen[_key(path)] = fingerprint

    def was_read(self, path: str, data: bytes) -> None:
        """A snapshot read ``data`` from ``path`` (under :attr:`lock`): forget what no longer is."""
        if not self._seen:
            return
        key = _key(path)
        known = self._seen.get(key)
        if known is not None and _fingerprint(path, data) != known:
            del self._seen[key]
