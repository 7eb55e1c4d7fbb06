"""Reading files that end: the one guarded way pi-lsp opens a file to read it.

A path a user (or a model) names can lead anywhere: ``/dev/zero`` never ends, a named pipe
blocks until someone writes to it, a socket cannot be read at all. Every read in pi-lsp —
session files, context files, skills, prompt templates, settings, ``trust.json``,
``models.json``, ``auth.json``, ignore files, hover targets, tool arguments — goes through
:func:`open_regular_file` or :func:`read_regular_file`, which refuse what is not a regular
file and what is larger than the limit the caller states, with :class:`RefusedFileError`
naming the path.

The file is opened with ``O_NONBLOCK`` (a pipe swapped in after a check cannot hang the
open) and the checks are made on the open descriptor (``fstat``), so what is checked is
what is read. Reading stops one byte past the limit, so a file that grows while it is read,
or one whose size the kernel reports as 0, cannot run past it either.
"""

from __future__ import annotations

import errno
import os
import stat

#: Session files (``*.jsonl``): large ones are read lazily (``session/lines.py``), so the
#: limit only stops what is not a session at all.
MAX_SESSION_FILE_BYTES = 1 << 30  # 1 GiB

#: Every file pi-lsp reads to build a prompt or a configuration: context files (AGENTS.md,
#: CLAUDE.md), SYSTEM.md, skills, prompt templates, settings, trust.json, models.json,
#: auth.json, .gitignore-style files, and files shown in hovers.
MAX_RESOURCE_FILE_BYTES = 1 << 27  # 128 MiB

_KINDS = (
    (stat.S_ISDIR, "directory"),
    (stat.S_ISFIFO, "named pipe"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)

_CHUNK = 1 << 20


class RefusedFileError(OSError):
    """A file pi-lsp will not read: a directory, a pipe, a socket, a device, or too large.

    An :class:`OSError`, so every caller that already turns a failed read into a finding or
    an error message does the same for these; ``str()`` is one line naming the path.
    """

    def __init__(
        self, path: str, reason: str, code: int, *, kind: str | None = None, size: int | None = None
    ) -> None:
        super().__init__(code, reason, path)
        self.path = path
        self.reason = reason
        self.kind = kind
        """What the path is when it is not a regular file (``"named pipe"`` …), else None."""
        self.size = size
        """The size seen when the file is too large, else None."""

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def file_kind(mode: int) -> str | None:
    """``"directory"``, ``"named pipe"``, ``"socket"``, ``"character device"``, ``"block
    device"`` (or ``"special file"``) for a mode that is not a regular file's; None for one."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "special file")


def format_limit(limit: int) -> str:
    """A limit in the largest binary unit that divides it (``1 GiB``, ``128 MiB``)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if limit >= size and limit % size == 0:
            return f"{limit // size} {unit}"
    return f"{limit} bytes"


def too_large(path: str, size: int, limit: int) -> RefusedFileError:
    return RefusedFileError(
        path,
        f"file too large ({size} bytes; the limit is {format_limit(limit)})",
        errno.EFBIG,
        size=size,
    )


def check_regular(path: str, info: os.stat_result, limit: int | None) -> None:
    """Raise :class:`RefusedFileError` unless ``info`` is a regular file within ``limit``."""
    kind = file_kind(info.st_mode)
    if kind == "directory":
        raise RefusedFileError(path, "is a directory", errno.EISDIR, kind=kind)
    if kind is not None:
        raise RefusedFileError(path, f"not a regular file ({kind})", errno.EINVAL, kind=kind)
    if limit is not None and info.st_size > limit:
        raise too_large(path, info.st_size, limit)


def open_regular_file(
    path: str, limit: int | None, flags: int = os.O_RDONLY
) -> tuple[int, os.stat_result]:
    """A blocking descriptor of the regular file at ``path`` (opened with ``flags``) and its
    ``fstat``; the caller closes it. Raises ``OSError``, :class:`RefusedFileError` for a
    file that is not regular or larger than ``limit`` (None: any size)."""
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        check_regular(path, info, limit)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_fd(fd: int, path: str, limit: int | None) -> bytes:
    """The rest of an open regular file, refusing it once more than ``limit`` bytes came.

    The first read asks for the whole file as ``fstat`` sizes it (one copy for a file that
    does not change), then chunks follow until the end.
    """
    chunks: list[bytes] = []
    total = 0
    first = max(_CHUNK, os.fstat(fd).st_size + 1)
    while True:
        want = first if not chunks else _CHUNK
        if limit is not None:
            want = min(want, limit + 1 - total)
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if limit is not None and total > limit:
            raise too_large(path, total, limit)
    return b"".join(chunks)


def read_regular_file(path: str, limit: int | None, *, prefix: int | None = None) -> bytes:
    """Every byte of the regular file at ``path`` (or its first ``prefix`` bytes, whatever
    its size); raises ``OSError``, :class:`RefusedFileError` as :func:`open_regular_file`."""
    fd, _ = open_regular_file(path, None if prefix is not None else limit)
    try:
        if prefix is not None:
            return os.read(fd, prefix)
        return read_fd(fd, path, limit)
    finally:
        os.close(fd)


def read_regular_text(path: str, limit: int | None = MAX_RESOURCE_FILE_BYTES) -> str:
    """The file's text, decoded as lossy UTF-8 (as Node's ``readFileSync(path, "utf-8")``)."""
    return read_regular_file(path, limit).decode("utf-8", "replace")
