"""Changing files safely: one mutation at a time per file, atomic replacement, Node-style errors.

``edit`` and ``write`` on the same file run one after the other (Pi's file mutation queue), and
a file is replaced by renaming a finished temporary file over it, so a reader or a crash never
sees half of the new content.
"""

from __future__ import annotations

import asyncio
import errno
import os
import re
import secrets
import stat
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

from pi_lsp.tools.base import ToolError

# libuv's wording for the error codes a file operation meets (what Node puts in ``error.message``).
_NODE_ERROR_TEXTS = {
    "EACCES": "permission denied",
    "EBUSY": "resource busy or locked",
    "EEXIST": "file already exists",
    "EFBIG": "file too large",
    "EINVAL": "invalid argument",
    "EIO": "i/o error",
    "EISDIR": "illegal operation on a directory",
    "ELOOP": "too many symbolic links encountered",
    "EMFILE": "too many open files",
    "ENAMETOOLONG": "name too long",
    "ENOENT": "no such file or directory",
    "ENOSPC": "no space left on device",
    "ENOTDIR": "not a directory",
    "EPERM": "operation not permitted",
    "EROFS": "read-only file system",
    "ETXTBSY": "text file is busy",
    "EXDEV": "cross-device link not permitted",
}

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def node_error_code(exc: BaseException) -> str | None:
    """The code Node gives this failure (``ENOENT``, ``EACCES`` …), or None if it has none."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return errno.errorcode.get(exc.errno, f"E{exc.errno}")
    return None


def node_error_message(exc: OSError, syscall: str, path: str | None) -> str:
    """Node's ``error.message`` for a failed call: ``CODE: what happened, syscall 'path'``."""
    code = node_error_code(exc) or "EIO"
    text = _NODE_ERROR_TEXTS.get(code) or os.strerror(exc.errno or errno.EIO).lower()
    where = f"{syscall} '{path}'" if path is not None else syscall
    return f"{code}: {text}, {where}"


def node_utf8(text: str) -> bytes:
    """UTF-8 bytes as Node writes a string: a lone surrogate becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


class FileMutationError(ToolError):
    """A file could not be written; ``message`` is worded as Node words the failure."""

    def __init__(self, message: str, code: str | None) -> None:
        super().__init__(message)
        self.code = code


def write_text_file(path: str, text: str) -> None:
    """Write ``text`` as UTF-8 (as Node encodes it) through :func:`write_file_atomically`."""
    write_file_atomically(path, node_utf8(text))


def _mutation_error(exc: OSError, syscall: str, path: str) -> FileMutationError:
    return FileMutationError(node_error_message(exc, syscall, path), node_error_code(exc))


# --------------------------------------------------------------------------------------------
# Per-file serialization


@dataclass(slots=True)
class _FileQueue:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


_queues_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _FileQueue]] = (
    weakref.WeakKeyDictionary()
)


def mutation_key(path: str) -> str:
    """What identifies a file for serialization: its real path, or the plain one if missing."""
    absolute = os.path.abspath(path)
    try:
        return os.path.realpath(absolute, strict=True)
    except (FileNotFoundError, NotADirectoryError):
        return absolute
    except OSError:
        # a symlink loop or an unreadable directory: the later file operation reports it
        return absolute


@asynccontextmanager
async def file_mutation_lock(path: str) -> AsyncIterator[None]:
    """Hold the file's turn: mutations of one file run in arrival order, others in parallel."""
    queues = _queues_by_loop.setdefault(asyncio.get_running_loop(), {})
    key = mutation_key(path)
    queue = queues.get(key)
    if queue is None:
        queue = queues[key] = _FileQueue()
    queue.users += 1
    try:
        async with queue.lock:
            yield
    finally:
        queue.users -= 1
        if queue.users == 0 and queues.get(key) is queue:
            del queues[key]


# --------------------------------------------------------------------------------------------
# Atomic replacement


def make_parent_dirs(directory: str) -> None:
    """``mkdir -p`` with Node's error text on failure (``ENOTDIR: not a directory, mkdir '…'``)."""
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise _mutation_error(exc, "mkdir", directory) from exc


def write_file_atomically(path: str, data: bytes) -> None:
    """Replace the file at ``path`` (following symlinks) with ``data`` in one rename.

    The new file keeps the old one's permission bits (and owner, where allowed); a new file gets
    ``0o666`` minus the umask, like Node's ``writeFile``. If no temporary file can be created next
    to the target (a directory we may not write to) but the file itself is writable, it is
    rewritten in place, which is what Node does anyway. Failures raise
    :class:`FileMutationError` with Node's message for ``open '<path>'``.
    """
    target = os.path.realpath(path)
    try:
        existing = _stat_writable_target(target)
        temp = _create_temp_beside(target, existing)
    except PermissionError as exc:
        if _is_writable_file(target):
            _write_in_place(path, target, data)
            return
        raise _mutation_error(exc, "open", path) from exc
    except OSError as exc:
        raise _mutation_error(exc, "open", path) from exc
    try:
        _fill_and_close(temp, data)
        os.replace(temp.path, target)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(temp.path)
        if isinstance(exc, OSError):
            raise _mutation_error(exc, "open", path) from exc
        raise


@dataclass(frozen=True, slots=True)
class _TempFile:
    path: str
    fd: int


def _stat_writable_target(target: str) -> os.stat_result | None:
    """The target's stat if it exists; fail as ``open`` would on a directory or read-only file."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    if not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), target)
    return st


def _is_writable_file(target: str) -> bool:
    """True if ``target`` is an existing regular file this process may write."""
    return os.path.isfile(target) and os.access(target, os.W_OK)


def _create_temp_beside(target: str, existing: os.stat_result | None) -> _TempFile:
    directory, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temp_path = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temp_path, flags, 0o666)
        except FileExistsError:
            continue
        if existing is not None:
            try:
                _copy_mode_and_owner(fd, existing)
            except OSError:
                os.close(fd)
                with suppress(OSError):
                    os.unlink(temp_path)
                raise
        return _TempFile(temp_path, fd)
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)


def _copy_mode_and_owner(fd: int, original: os.stat_result) -> None:
    os.fchmod(fd, stat.S_IMODE(original.st_mode))
    with suppress(OSError):
        own = os.fstat(fd)
        if (own.st_uid, own.st_gid) != (original.st_uid, original.st_gid):
            os.fchown(fd, original.st_uid, original.st_gid)
            os.fchmod(fd, stat.S_IMODE(original.st_mode))  # chown may clear setuid/setgid


def _fill_and_close(temp: _TempFile, data: bytes) -> None:
    with open(temp.fd, "wb", closefd=True) as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _write_in_place(path: str, target: str, data: bytes) -> None:
    try:
        with open(target, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise _mutation_error(exc, "open", path) from exc
