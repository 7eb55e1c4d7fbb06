"""Changing files safely: one mutation at a time per file, atomic replacement, Node-style errors.

``edit`` and ``write`` on the same file run one after the other (Pi's file mutation queue), and
a file is replaced by renaming a finished temporary file over it, so a reader or a crash never
sees half of the new content. What a rename would break — a pipe, a device node, the other
names of a hard-linked file, a file that is a mount point — is written in place, as Node does.
"""

from __future__ import annotations

import asyncio
import errno
import os
import re
import secrets
import stat
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TypeVar

from pi_lsp.tools.base import ToolError
from pi_lsp.tools.node_errors import node_error_code as node_error_code
from pi_lsp.tools.node_errors import node_error_message as node_error_message

_T = TypeVar("_T")

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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
    """What identifies a file for serialization: its real path, whether it exists yet or not.

    Symlinks are resolved as far as they exist, so the key does not change when the file (or
    the target of a dangling link) appears while a mutation of it is running.
    """
    return os.path.realpath(os.path.abspath(path))


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


async def run_to_completion(work: Callable[..., _T], *args: object) -> _T:
    """Run blocking file work in a thread; a cancelled caller still waits for it to end.

    A thread cannot be stopped, so without the wait a cancelled ``edit`` or ``write`` would
    release its file's lock while its thread still writes, and the next mutation would overlap
    it. The cancellation is passed on once the thread is done.
    """
    future = asyncio.ensure_future(asyncio.to_thread(work, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            with suppress(asyncio.CancelledError):
                await asyncio.wait({future})
        if not future.cancelled():
            future.exception()  # the caller hears of the cancellation; mark a failure as seen
        raise


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
    ``0o666`` minus the umask, like Node's ``writeFile``. The file is rewritten in place instead
    (what Node always does) when a rename would replace something else than the file's content:
    a pipe or device node, a file with other hard links, a file the system will not rename over
    (``EBUSY``: a mount point; ``EXDEV``), or when no temporary file can be created next to it
    (a directory we may not write to) but the file itself is writable. Failures raise
    :class:`FileMutationError` with Node's message for ``open '<path>'``.
    """
    target = os.path.realpath(path)
    try:
        existing = _stat_writable_target(target)
        if existing is not None and _needs_in_place_write(existing):
            _write_in_place(path, target, data)
            return
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
        if isinstance(exc, OSError) and exc.errno in (errno.EBUSY, errno.EXDEV):
            _write_in_place(path, target, data)
            return
        if isinstance(exc, OSError):
            raise _mutation_error(exc, "open", path) from exc
        raise


def _needs_in_place_write(existing: os.stat_result) -> bool:
    """A rename would swap a pipe or device for a file, or split a file from its hard links."""
    return not stat.S_ISREG(existing.st_mode) or existing.st_nlink > 1


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
    """Truncate and rewrite ``target`` itself (Node's ``writeFile``).

    The open does not wait for a pipe to get a reader (Node's would, for ever): a pipe nobody
    reads fails with ``ENXIO``. Once open, writing blocks as usual.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags, 0o666)
    except OSError as exc:
        raise _mutation_error(exc, "open", path) from exc
    try:
        os.set_blocking(fd, True)
        with open(fd, "wb", closefd=False) as handle:
            handle.write(data)
    except OSError as exc:
        raise FileMutationError(
            node_error_message(exc, "write", None), node_error_code(exc)
        ) from exc
    finally:
        os.close(fd)
