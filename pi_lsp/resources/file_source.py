"""The one way context files are read, so an editor can lay unsaved buffers over the disk.

Disk reads go through :func:`pi_lsp.regular_files.read_regular_file`: a pipe, a device or a
file over :data:`~pi_lsp.regular_files.MAX_RESOURCE_FILE_BYTES` raises
:class:`~pi_lsp.regular_files.RefusedFileError` (an ``OSError``) instead of being read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol

from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, read_regular_file


class FileSource(Protocol):
    """Reads files by absolute path; raises ``OSError`` as the file system would."""

    def read_bytes(self, path: str) -> bytes: ...

    def is_file(self, path: str) -> bool: ...

    def version(self, path: str) -> object:
        """A value that changes whenever the content may have changed (for caches)."""
        ...


class DiskFileSource:
    """Files as they are on disk."""

    def read_bytes(self, path: str) -> bytes:
        return read_regular_file(path, MAX_RESOURCE_FILE_BYTES)

    def is_file(self, path: str) -> bool:
        return os.path.isfile(path)

    def version(self, path: str) -> object:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)


class OverlayFileSource:
    """Disk files, except those with an open buffer: their text comes from the buffer."""

    def __init__(self, buffers: Mapping[str, tuple[int, str]], base: FileSource | None = None):
        self._buffers = buffers  # path -> (version, text)
        self._base = base or DiskFileSource()

    def read_bytes(self, path: str) -> bytes:
        buffer = self._buffers.get(path)
        if buffer is not None:
            return buffer[1].encode("utf-8", "surrogatepass")
        return self._base.read_bytes(path)

    def is_file(self, path: str) -> bool:
        return path in self._buffers or self._base.is_file(path)

    def version(self, path: str) -> object:
        buffer = self._buffers.get(path)
        if buffer is not None:
            return ("buffer", buffer[0])
        return self._base.version(path)


DISK = DiskFileSource()
