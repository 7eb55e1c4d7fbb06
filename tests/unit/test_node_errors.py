"""Node's wording of file errors, shared by read, edit, write and ls."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from pi_lsp.regular_files import file_kind
from pi_lsp.tools.base import ToolError
from pi_lsp.tools.node_errors import (
    EISDIR_READ,
    node_error_code,
    node_error_message,
    not_regular_file_message,
    read_regular_file,
)


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (errno.ENOENT, "ENOENT: no such file or directory, open '/x'"),
        (errno.ENFILE, "ENFILE: file table overflow, open '/x'"),  # was missing for writes
        (errno.EXDEV, "EXDEV: cross-device link not permitted, open '/x'"),  # was missing for reads
        (errno.EWOULDBLOCK, "EAGAIN: resource temporarily unavailable, open '/x'"),
        (errno.EOPNOTSUPP, "ENOTSUP: operation not supported on socket, open '/x'"),
        (errno.ECHILD, "ECHILD: no child processes, open '/x'"),  # not libuv's: the OS text
    ],
)
def test_message_is_libuvs(number: int, message: str) -> None:
    assert node_error_message(OSError(number, os.strerror(number)), "open", "/x") == message


def test_message_without_path_and_code() -> None:
    full = OSError(errno.ENOSPC, "No space left on device")
    assert node_error_message(full, "write", None) == "ENOSPC: no space left on device, write"
    assert node_error_code(full) == "ENOSPC"
    assert node_error_code(RuntimeError("no errno")) is None


def test_reading_a_directory_fails_as_node_does(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as failure:
        read_regular_file(str(tmp_path))
    assert failure.value.message == EISDIR_READ == "EISDIR: illegal operation on a directory, read"


def test_special_files_are_named_by_kind(tmp_path: Path) -> None:
    for mode, kind in ((stat.S_IFIFO, "named pipe"), (stat.S_IFSOCK, "socket")):
        named = not_regular_file_message("/p", file_kind(mode) or "")
        assert named == f"Not a regular file: /p ({kind})"
    assert file_kind(stat.S_IFBLK) == "block device" and file_kind(stat.S_IFREG) is None
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ToolError) as failure:
        read_regular_file(str(fifo))
    assert failure.value.message == f"Not a regular file: {fifo} (named pipe)"
