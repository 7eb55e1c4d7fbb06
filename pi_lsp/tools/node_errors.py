"""What Node's ``fs`` says when a file operation fails, and ``readFile`` with Node's limits.

Pi lets the raw Node error reach the model, so the tools word failures as ``error.message`` does:
``CODE: what happened, syscall 'path'`` with libuv's text for the code. Reading a whole file goes
through :func:`read_regular_file`, which refuses directories as Node does (``EISDIR``), files
over 2 GiB with Node's ``ERR_FS_FILE_TOO_LARGE`` text, and — unlike Node, which would block on a
pipe or read ``/dev/zero`` until memory runs out — anything that is not a regular file.
"""

from __future__ import annotations

import errno
import io
import os
import stat

from pi_lsp.tools.base import ToolError

# libuv's wording (``uv_strerror``, Node's ``util.getSystemErrorMap()``) for the codes a file
# operation can meet.
_LIBUV_TEXTS = {
    "EACCES": "permission denied",
    "EAGAIN": "resource temporarily unavailable",
    "EBADF": "bad file descriptor",
    "EBUSY": "resource busy or locked",
    "ECANCELED": "operation canceled",
    "EEXIST": "file already exists",
    "EFAULT": "bad address in system call argument",
    "EFBIG": "file too large",
    "EILSEQ": "illegal byte sequence",
    "EINTR": "interrupted system call",
    "EINVAL": "invalid argument",
    "EIO": "i/o error",
    "EISDIR": "illegal operation on a directory",
    "ELOOP": "too many symbolic links encountered",
    "EMFILE": "too many open files",
    "EMLINK": "too many links",
    "ENAMETOOLONG": "name too long",
    "ENFILE": "file table overflow",
    "ENODATA": "no data available",
    "ENODEV": "no such device",
    "ENOENT": "no such file or directory",
    "ENOMEM": "not enough memory",
    "ENOSPC": "no space left on device",
    "ENOSYS": "function not implemented",
    "ENOTDIR": "not a directory",
    "ENOTEMPTY": "directory not empty",
    "ENOTSUP": "operation not supported on socket",
    "ENOTTY": "inappropriate ioctl for device",
    "ENXIO": "no such device or address",
    "EOVERFLOW": "value too large for defined data type",
    "EPERM": "operation not permitted",
    "EPIPE": "broken pipe",
    "ERANGE": "result too large",
    "EREMOTEIO": "remote I/O error",
    "EROFS": "read-only file system",
    "ESPIPE": "invalid seek",
    "ETIMEDOUT": "connection timed out",
    "ETXTBSY": "text file is busy",
    "EXDEV": "cross-device link not permitted",
}
# By number, so aliases (EWOULDBLOCK = EAGAIN, EOPNOTSUPP = ENOTSUP) get libuv's name.
_BY_ERRNO = {
    getattr(errno, name): (name, text)
    for name, text in _LIBUV_TEXTS.items()
    if hasattr(errno, name)
}

#: Node's ``kIoMaxLength``: ``readFile`` refuses anything larger (2 GiB - 1).
MAX_FILE_SIZE = 2**31 - 1

#: Node's message for reading a directory (``readFile`` fails in ``read``, without a path).
EISDIR_READ = "EISDIR: illegal operation on a directory, read"

_KINDS = (
    (stat.S_ISFIFO, "named pipe"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def node_error_code(exc: BaseException) -> str | None:
    """The code Node gives this failure (``ENOENT``, ``EACCES`` …), or None if it has none."""
    if isinstance(exc, OSError) and exc.errno is not None:
        known = _BY_ERRNO.get(exc.errno)
        if known is not None:
            return known[0]
        return errno.errorcode.get(exc.errno, f"E{exc.errno}")
    return None


def node_error_message(exc: OSError, syscall: str, path: str | None) -> str:
    """Node's ``error.message`` for a failed call: ``CODE: what happened, syscall 'path'``."""
    number = exc.errno if exc.errno is not None else errno.EIO
    code, text = _BY_ERRNO.get(number) or (
        errno.errorcode.get(number, f"E{number}"),
        os.strerror(number).lower(),
    )
    where = f"{syscall} '{path}'" if path is not None else syscall
    return f"{code}: {text}, {where}"


def file_too_large_message(size: int) -> str:
    """Node's ``ERR_FS_FILE_TOO_LARGE`` message (what Pi's loop passes on)."""
    return f"File size ({size}) is greater than 2 GiB"


def not_regular_file_message(path: str, mode: int) -> str:
    """Why a pipe, socket or device node is not read (Node would block or never stop)."""
    kind = next((name for test, name in _KINDS if test(mode)), "special file")
    return f"Not a regular file: {path} ({kind})"


def _check_kind(mode: int, path: str) -> None:
    if stat.S_ISDIR(mode):
        raise ToolError(EISDIR_READ)
    if not stat.S_ISREG(mode):
        raise ToolError(not_regular_file_message(path, mode))


def read_regular_file(path: str) -> bytes:
    """Every byte of the regular file at ``path``; failures raise ToolError in Node's words.

    The file is opened without blocking (a pipe swapped in after the check cannot hang the
    call) and checked again on the open descriptor.
    """
    try:
        _check_kind(os.stat(path).st_mode, path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ToolError(node_error_message(exc, "open", path)) from exc
    try:
        info = os.fstat(fd)
        _check_kind(info.st_mode, path)
        if info.st_size > MAX_FILE_SIZE:
            raise ToolError(file_too_large_message(info.st_size))
        os.set_blocking(fd, True)
        with io.FileIO(fd, "rb", closefd=False) as handle:
            data = handle.readall()
    except OSError as exc:
        raise ToolError(node_error_message(exc, "read", None)) from exc
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_SIZE:  # grew while being read
        raise ToolError(file_too_large_message(len(data)))
    return data
