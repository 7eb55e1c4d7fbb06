"""A session file held open for writing: locked, appended to durably, replaced atomically.

* **One writer.** The writer holds ``flock(LOCK_EX)`` on the session file itself for as long
  as it is open. A second writer (another process, or a second open in this one) is refused
  with :class:`SessionLockedError` instead of interleaving its lines. Readers take no lock:
  every line is written with one ``write`` call, and a reader skips a line it sees half done.
* **Durable appends.** Each append is one ``write`` of whole lines followed by ``fsync``, so
  a crash loses at most the entry being appended: a write cut short (SIGKILL during a
  multi-page write, power loss) leaves at most a partial last line, which loading reports and
  skips. If a write fails part way with an error (disk full), the file is cut back to its
  previous length, so no partial line stays behind to glue onto the next one.
* **Atomic replacement.** A rewrite (after migration) goes to a temporary file in the same
  folder, locked and ``fsync``ed before it is renamed over the original, then the folder is
  ``fsync``ed: at any moment the path holds either the complete old file or the complete new
  one. The lock moves with it; a writer that was waiting on the old file sees that the path
  now names another file and tries again (and finds the new one locked).

* **One starter.** A session file that does not exist yet is only written at its first
  assistant message (as Pi defers it). Until then the path is claimed by
  :class:`NewFileClaim`: ``flock(LOCK_EX)`` on ``<file>.lock`` beside it, taken when the
  session is opened and given up (the lock file removed) once the session file exists and is
  locked itself, or when the session closes. A second writer starting the same path is refused
  at once, before it asks a model anything, instead of losing its answer when its exclusive
  create fails after the model replied.

Pi itself takes no lock, so this guards pi-lsp writers against each other, not against a
running ``pi``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat

from pi_lsp.regular_files import MAX_SESSION_FILE_BYTES, open_regular_file, too_large
from pi_lsp.session.errors import SessionFileError, SessionLockedError

__all__ = ["LockedSessionFile", "NewFileClaim", "fsync_directory"]

_OPEN_ATTEMPTS = 5
_READ_CHUNK = 1 << 20


def fsync_directory(directory: str) -> None:
    """Make a create or rename inside ``directory`` durable (best effort where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


_HELD_BY_WRITER = (
    "the session file is already open for writing (by another pi-lsp process or another "
    "session object); open it read-only, or close the other writer first"
)


def _lock(fd: int, path: str, held: str = _HELD_BY_WRITER) -> None:
    """``flock(LOCK_EX)`` without waiting; :class:`SessionLockedError` (saying ``held``) when
    another open file holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise SessionLockedError(path, held) from None
        raise SessionFileError(path, f"cannot lock the session file: {error.strerror}") from None


def _same_file(fd: int, path: str) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed or replaced)."""
    try:
        current = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (current.st_dev, current.st_ino) == (opened.st_dev, opened.st_ino)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class LockedSessionFile:
    """An exclusively locked, open session file. Not thread-safe; close it when done."""

    def __init__(self, path: str, fd: int, size: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self._size = size

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open_existing(cls, path: str) -> tuple[LockedSessionFile, bytes]:
        """Open and lock an existing file; return it with its current contents."""
        for _ in range(_OPEN_ATTEMPTS):
            try:
                fd, _ = open_regular_file(path, MAX_SESSION_FILE_BYTES, os.O_RDWR | os.O_APPEND)
            except OSError as error:
                raise SessionFileError(
                    path, f"cannot open the session file for writing: {error.strerror}"
                ) from None
            try:
                _lock(fd, path)
                if _same_file(fd, path):
                    data = cls.read_fd(fd, path)
                    return cls(path, fd, len(data)), data
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # replaced while we locked it: open the new file
        raise SessionFileError(path, "the session file keeps being replaced; try again")

    @classmethod
    def create_exclusive(cls, path: str, data: bytes) -> LockedSessionFile:
        """Create ``path`` (it must not exist), lock it, and write ``data`` durably."""
        directory = os.path.dirname(path) or "."
        try:
            os.makedirs(directory, exist_ok=True)
            fd = os.open(
                path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o666
            )
        except FileExistsError:
            raise SessionFileError(path, "a session file with this name already exists") from None
        except OSError as error:
            raise SessionFileError(
                path, f"cannot create the session file: {error.strerror}"
            ) from None
        handle = cls(path, fd, 0)
        try:
            _lock(fd, path)
        except BaseException:
            handle.close()
            raise
        try:
            handle.append(data)
        except BaseException:
            handle.close()
            with contextlib.suppress(OSError):
                os.unlink(path)  # created exclusively and locked by us: nobody else has it
            raise
        fsync_directory(directory)
        return handle

    @staticmethod
    def read_fd(fd: int, path: str) -> bytes:
        """Everything in the file behind ``fd``, read from offset 0 (refused past
        :data:`MAX_SESSION_FILE_BYTES`, should it grow that far while being read)."""
        chunks: list[bytes] = []
        offset = 0
        while True:
            chunk = os.pread(fd, _READ_CHUNK, offset)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            offset += len(chunk)
            if offset > MAX_SESSION_FILE_BYTES:
                raise too_large(path, offset, MAX_SESSION_FILE_BYTES)

    # -- writing ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._fd is None

    def _require_fd(self) -> int:
        if self._fd is None:
            raise SessionFileError(self.path, "the session file is closed")
        return self._fd

    def append(self, data: bytes) -> None:
        """Append ``data`` (whole lines) with one write, then ``fsync``; all or nothing."""
        fd = self._require_fd()
        if not data:
            return
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)
            raise SessionFileError(
                self.path, f"cannot append to the session file: {error.strerror}"
            ) from None
        self._size += len(data)

    def replace(self, data: bytes) -> None:
        """Replace the whole file with ``data`` atomically, keeping its permissions and lock."""
        old_fd = self._require_fd()
        directory = os.path.dirname(self.path) or "."
        base = os.path.basename(self.path)
        temp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            mode = stat.S_IMODE(os.fstat(old_fd).st_mode)
            new_fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, mode
            )
        except OSError as error:
            raise SessionFileError(
                self.path, f"cannot write the migrated session file: {error.strerror}"
            ) from None
        try:
            fcntl.flock(new_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            with contextlib.suppress(OSError):
                os.fchmod(new_fd, mode)
            _write_all(new_fd, data)
            os.fsync(new_fd)
            os.replace(temp, self.path)
        except OSError as error:
            os.close(new_fd)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise SessionFileError(
                self.path, f"cannot write the migrated session file: {error.strerror}"
            ) from None
        fsync_directory(directory)
        self._fd = new_fd
        self._size = len(data)
        os.close(old_fd)

    def open_for_reading(self) -> int | None:
        """A new read-only descriptor of this very file (not sharing the lock), or None when
        the path no longer leads to it."""
        fd = self._require_fd()
        try:
            reader, _ = open_regular_file(self.path, None)
        except OSError:
            return None
        mine, theirs = os.fstat(fd), os.fstat(reader)
        if (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino):
            os.close(reader)
            return None
        return reader

    def close(self) -> None:
        """Release the lock and the file (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()


class NewFileClaim:
    """The claim of one writer on a session file path that does not exist yet.

    The claim is ``flock(LOCK_EX)`` on ``<path>.lock``. Whoever gives it up removes the lock
    file while still holding the lock; a taker that locked a lock file which was removed (or
    replaced) meanwhile tries again, so two takers never both hold a claim. A lock file left
    by a killed process holds no lock and is simply taken over. Not thread-safe.
    """

    def __init__(self, path: str, lock_path: str, fd: int) -> None:
        self.path = path
        self.lock_path = lock_path
        self._fd: int | None = fd

    @classmethod
    def take(cls, path: str) -> NewFileClaim:
        """Claim ``path``; :class:`SessionLockedError` when another writer is starting it."""
        lock_path = path + ".lock"
        held = (
            f"another pi-lsp writer is starting this new session file (it holds {lock_path}); "
            "try again when it is done, or use another file"
        )
        directory = os.path.dirname(path) or "."
        for _ in range(_OPEN_ATTEMPTS):
            try:
                os.makedirs(directory, exist_ok=True)
                fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as error:
                raise SessionFileError(
                    path, f"cannot create the session's lock file {lock_path}: {error.strerror}"
                ) from None
            try:
                _lock(fd, path, held)
                if _same_file(fd, lock_path):
                    return cls(path, lock_path, fd)
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # given up while we waited for it: take the new one
        raise SessionFileError(path, f"the lock file {lock_path} keeps being replaced; try again")

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Give the claim up and remove the lock file (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if _same_file(fd, self.lock_path):
                with contextlib.suppress(OSError):
                    os.unlink(self.lock_path)
        finally:
            os.close(fd)

    def __del__(self) -> None:
        self.release()
