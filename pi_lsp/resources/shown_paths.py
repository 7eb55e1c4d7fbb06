"""How a path is written for a person: relative to the folder they work in, ``~/`` under home.

One rule for every place pi-lsp names a file to a reader (``pi-lsp check`` in every format,
``pi-lsp prompt``'s diagnostics, hovers): inside ``root`` the path is relative to it (the root
itself is ``.``), under the home folder it is ``~/…``, anywhere else it stays absolute.
Folders are compared through symbolic links, but a file keeps its own name (a ``CLAUDE.md``
that links to ``AGENTS.md`` is still shown as ``CLAUDE.md``).

One file naming another (a finding's message, the note a quick fix writes) uses
:func:`reference_from`: relative to the naming file's folder, ``~/…`` for a file under home
outside that folder's chain — never an absolute path of this machine.
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


def reference_from(here: str, other: str, home: str | None = None) -> str:
    """How the file ``here`` names ``other``: ``~/…`` for a file under the home folder when
    ``here`` is not in one of its folders (the global ``~/.pi/agent/AGENTS.md``), else relative
    to ``here``'s folder (``../AGENTS.md``). Symbolic links are resolved first, so a workspace
    opened through a link still gets ``../AGENTS.md``; ``home`` defaults to the user's home
    folder, an empty one is skipped."""
    if home is None:
        home = home_dir()
    here, other = os.path.realpath(here), os.path.realpath(other)
    base, folder = os.path.dirname(here), os.path.dirname(other)
    real_home = os.path.realpath(home) if home else None
    outside = os.path.commonpath([base, folder]) != folder
    if outside and real_home is not None and os.path.commonpath([real_home, other]) == real_home:
        return "~/" + os.path.relpath(other, real_home)
    return os.path.relpath(other, base)
