"""Which file-system events are real changes to what feeds a prompt.

Watchers (watchfiles, or the client's) report every write they see; a rebuild follows only for
the events that can change a snapshot. Dropped are:

- bookkeeping: locks, atomic-write temps and the agent dir's sessions
  (:func:`~pi_lsp.resources.relevance.is_bookkeeping_path`) — among them the server's own
  ``trust.json.lock``, made and removed each time it reads a trust store;
- a path that by name and place is no resource, unless it was deleted and held something the
  snapshots use (a working directory, a file they read, a folder skill discovery listed): a
  deleted folder may have been any name;
- a file whose bytes are those of its previous reported change (saved without an edit,
  touched), or those the server wrote itself (:meth:`DiskChanges.written`). Only reported
  contents are compared, never contents a rebuild read: a rebuild may read a file after it
  changed and before its event, and the snapshots it did not reload still need that event.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping

from pi_lsp.regular_files import read_regular_file
from pi_lsp.resources.agent_dir import resolve_agent_dir
from pi_lsp.resources.loader import Resources
from pi_lsp.resources.relevance import is_bookkeeping_path, is_resource_path
from pi_lsp.server.state import WorkspaceState
from pi_lsp.tools.paths import ancestor_dirs

#: files larger than this are taken as changed without reading them to compare
DIGEST_LIMIT = 4 * 1024 * 1024


def _digest(path: str) -> bytes | None:
    """The digest of a regular file's bytes; ``None`` when it is something else, or too big."""
    try:
        data = read_regular_file(path, DIGEST_LIMIT)
    except OSError:  # RefusedFileError among them: a pipe, a device, a file past the limit
        return None
    return hashlib.blake2b(data, digest_size=16).digest()


def _held_paths(snapshots: Mapping[str, Resources]) -> frozenset[str]:
    """Every folder and file the snapshots use, with every folder above them."""
    held: set[str] = set()
    for resources in snapshots.values():
        for path in (resources.cwd, *resources.watched_files, *resources.skill_load.directories):
            for above in ancestor_dirs(path):
                if above in held:
                    break
                held.add(above)
    return frozenset(held)


class DiskChanges:
    """The filter between the watchers and ``request_rebuild``, for one workspace."""

    def __init__(self, state: WorkspaceState) -> None:
        self._state = state
        self._digests: dict[str, bytes] = {}  # path -> digest of its last reported change
        self._held: tuple[Mapping[str, Resources], frozenset[str]] | None = None
        self._agent_dir: tuple[str | None, str] | None = None  # (setting, resolved)

    def agent_dir(self) -> str:
        setting = self._state.settings.agent_dir
        if self._agent_dir is None or self._agent_dir[0] != setting:
            self._agent_dir = (setting, resolve_agent_dir(setting))
        return self._agent_dir[1]

    def _holds_something(self, path: str) -> bool:
        snapshots = self._state.snapshots
        if self._held is None or self._held[0] is not snapshots:
            self._held = (snapshots, _held_paths(snapshots))
        held = self._held[1]
        return path in held or os.path.realpath(path) in held

    def may_matter(self, path: str, deleted: bool) -> bool:
        """Whether an event at ``path`` can change a snapshot (by name, place and what is held)."""
        agent_dir = self.agent_dir()
        if is_resource_path(path, agent_dir):
            return True
        return deleted and not is_bookkeeping_path(path, agent_dir) and self._holds_something(path)

    def real_changes(self, events: Iterable[tuple[str, bool]]) -> list[str]:
        """The paths of ``(path, deleted)`` events that can change a snapshot, each once."""
        out: list[str] = []
        for path, deleted in dict.fromkeys(events):
            if not self.may_matter(path, deleted):
                continue
            digest = None if deleted else _digest(path)
            if digest is None:
                self._digests.pop(path, None)
            elif self._digests.get(path) == digest:
                continue
            else:
                self._digests[path] = digest
            if path not in out:
                out.append(path)
        return out

    def written(self, path: str) -> None:
        """The server wrote ``path`` itself (and rebuilt for it): its report is no change."""
        digest = _digest(path)
        if digest is None:
            self._digests.pop(path, None)
        else:
            self._digests[path] = digest
