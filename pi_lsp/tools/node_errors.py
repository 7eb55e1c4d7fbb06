"""What Node's ``fs`` says when a file operation fails, and ``readFile`` with Node's limits.

Pi lets the raw Node error reach the model, so the tools word failures as ``error.message`` does:
``CODE: what happened, syscall 'path'`` with libuv's text for the code. Reading a whole file goes
through :func:`read_regular_file`, which refuses directories as Node does (``EISDIR``), files
over 2 GiB with Node's ``ERR_FS_FILE_TOO_LARGE`` text, and — unlike Node, which would block on a
pipe or read ``/dev/zero`` until memory runs out — anything that is not a regular file.
"""

from __future__ import annotations

import errno
import os

from pi_lsp.regular_files import RefusedFileError, file_kind, open_regular_file, read_fd
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


def not_regular_file_message(path: str, kind: str) -> str:
    """Why a pipe, socket or device node is not read (Node would block or never stop)."""
    return f"Not a regular file: {path} ({kind})"


def read_regular_file(path: str) -> bytes:
    """Every byte of the regular file at ``path``; failures raise ToolError in Node's words.

    The file is read through :func:`pi_lsp.regular_files.open_regular_file` (opened without
    blocking, checked on the open descriptor) with Node's own limit.
    """
    try:
        fd, _ = open_regular_file(path, MAX_FILE_SIZE)
    except RefusedFileError as exc:
        raise ToolError(_refusal_message(exc)) from exc
    except OSError as exc:
        raise ToolError(node_error_message(exc, "open", path)) from exc
    try:
        return read_fd(fd, path, MAX_FILE_SIZE)
    except RefusedFileError as exc:  # grew while being read
        raise ToolError(_refusal_message(exc)) from exc
    except OSError as exc:
        raise ToolError(node_error_message(exc, "read", None)) from exc
    finally:
        os.close(fd)


def refuse_special_file(path: str, mode: int) -> None:
    """Refuse, as :func:`read_regular_file` does, a path whose ``mode`` is neither a regular
    file's nor a directory's: a tool that hands paths to another program checks them first."""
    kind = file_kind(mode)
    if kind is not None and kind != "directory":
        raise ToolError(not_regular_file_message(path, kind))


def _refusal_message(exc: RefusedFileError) -> str:
    if exc.kind == "directory":
        return EISDIR_READ
    if exc.kind is not None:
        return not_regular_file_message(exc.path, exc.kind)
    return file_too_large_message(exc.size or 0)
