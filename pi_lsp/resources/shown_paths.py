"""How a path is written for a person: relative to the folder they work in, ``~/`` under home.

One rule for every place pi-lsp names a file to a reader (``pi-lsp check`` in every format,
``pi-lsp prompt``'s diagnostics, hovers): inside ``root`` the path is relative to it (the root
itself is ``.``), under the home folder it is ``~/…``, anywhere else it stays absolute.
Folders are compared through symbolic links, but a file keeps its own name (a ``CLAUDE.md``
that links to ``AGENTS.md`` is still shown as ``CLAUDE.md``).
"""

from __future__ import annotations

import os

from pi_lsp.resources.agent_dir import home_dir


def _real(path: str) -> str:
    """``path`` with its folders resolved, its last part as written."""
    parent, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(parent), name) if name else os.path.realpath(parent)


def _same_folder(path: str, folder: str) -> bool:
    return path == folder or os.path.realpath(path) == os.path.realpath(folder)


def shown_path(path: str, root: str, home: str | None = None) -> str:
    """``path`` as a reader finds it quickest (see the module text); ``home`` defaults to the
    user's home folder, and an empty ``home`` or ``root`` is skipped."""
    if home is None:
        home = home_dir()
    for folder, name in ((root, "."), (home, "~")):
        if not folder:
            continue
        if _same_folder(path, folder):
            return name
        real_folder = os.path.realpath(folder).rstrip(os.sep) + os.sep
        real_path = _real(path)
        if real_path.startswith(real_folder):
            inner = real_path[len(real_folder) :]
            return inner if name == "." else f"~/{inner}"
    return path
