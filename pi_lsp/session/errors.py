"""What can go wrong with a session file, as exceptions that name the file (and the line)."""

from __future__ import annotations

__all__ = [
    "EntryNotFoundError",
    "NotASessionError",
    "SessionFileError",
    "SessionLockedError",
    "SessionReadOnlyError",
]


class SessionFileError(Exception):
    """A session file that cannot be read or written; ``line`` is 1-based when known."""

    def __init__(self, path: str, message: str, *, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.detail = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


class NotASessionError(SessionFileError):
    """The file is not empty but its first JSON line is not a session header (left untouched).

    Pi says ``Session file is not a valid pi session: {path}`` for the same file.
    """


class SessionLockedError(SessionFileError):
    """Another writer holds the session file; appending too would interleave lines."""


class SessionReadOnlyError(SessionFileError):
    """An append to a session that was opened for reading only."""


class EntryNotFoundError(LookupError):
    """A tree operation named an entry id the session lacks (Pi: ``Entry {id} not found``)."""

    def __init__(self, entry_id: str) -> None:
        self.entry_id = entry_id
        super().__init__(f"Entry {entry_id} not found")

    def __str__(self) -> str:
        return f"Entry {self.entry_id} not found"
