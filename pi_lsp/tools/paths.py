"""Path handling shared by the tools: what the model writes to where the file is."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import AnyStr
from urllib.parse import unquote, urlparse

# Spaces a model (or a macOS screenshot name) may put where the file system has a plain space.
_UNICODE_SPACES = (
    "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
)
_SPACE_TABLE = str.maketrans(dict.fromkeys(_UNICODE_SPACES, " "))


def expand_path(path: str) -> str:
    """Normalize a path as the model wrote it: odd spaces, a leading ``@``, ``~``, ``file://``."""
    path = path.translate(_SPACE_TABLE)
    if path.startswith("@"):
        path = path[1:]
    if path.startswith("file://"):
        path = unquote(urlparse(path).path)
    if path == "~":
        return str(Path.home())
    if path.startswith("~/"):
        return str(Path.home()) + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str | os.PathLike[str]) -> str:
    """Absolute path for ``path`` (after :func:`expand_path`) relative to ``cwd``."""
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(os.fspath(cwd), expanded))


def resolve_read_path(path: str, cwd: str | os.PathLike[str]) -> str:
    """Like :func:`resolve_to_cwd`, trying the spellings macOS and editors give file names.

    When the plain path does not exist: the screenshot form (narrow no-break space before
    ``AM.``/``PM.``), the NFD form, a curly apostrophe, and NFD with a curly apostrophe.
    """
    resolved = resolve_to_cwd(path, cwd)
    if os.path.lexists(resolved):
        return resolved
    screenshot = resolved.replace(" AM.", "\u202fAM.").replace(" PM.", "\u202fPM.")
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", "\u2019")
    nfd_curly = nfd.replace("'", "\u2019")
    for candidate in (screenshot, nfd, curly, nfd_curly):
        if candidate != resolved and os.path.lexists(candidate):
            return candidate
    return resolved


def ancestor_dirs(start: AnyStr) -> Iterator[AnyStr]:
    """``start``, then each parent directory of it, up to the file-system root (no I/O)."""
    directory = start
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def find_git_root(start: str, *, follow_symlinks: bool = True) -> str | None:
    """The nearest of ``start`` and its ancestors that holds a ``.git`` entry, else ``None``.

    With ``follow_symlinks`` false a ``.git`` symbolic link counts even when it is broken.
    """
    exists = os.path.exists if follow_symlinks else os.path.lexists
    for directory in ancestor_dirs(start):
        if exists(os.path.join(directory, ".git")):
            return directory
    return None
