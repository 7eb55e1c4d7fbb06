"""Which file changes can change a Resources snapshot: for watchers and incremental rebuilds.

A change matters when it touches a file the snapshot was read from, a file whose name Pi looks
for (context files, SKILL.md, SYSTEM.md, settings, trust), anything inside the folders Pi reads
resources from (``.pi``, ``.agents``, ``skills``, ``prompts``, the agent dir), an ignore file
(skill discovery honours them), or a folder that held or now holds any of those.

Bookkeeping never matters, wherever it is: the locks Pi and pi-lsp take (``trust.json.lock`` is
made and removed on every read of a trust store), atomic-write temps (``.name.1a2b.tmp``), the
agent dir's sessions, and its ``auth.json`` and ``models.json``, which no snapshot reads.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator

from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES
from pi_lsp.resources.layout import (
    AGENTS_DIR_NAME,
    CONFIG_DIR_NAME,
    PROJECT_DIR_NAMES,
    PROMPTS_DIR_NAME,
    SKILLS_DIR_NAME,
)
from pi_lsp.resources.loader import Resources
from pi_lsp.tools.paths import ancestor_dirs

RESOURCE_FILE_NAMES = frozenset(
    {
        *CONTEXT_FILE_NAMES,
        "SKILL.md",
        "SYSTEM.md",
        "APPEND_SYSTEM.md",
        "settings.json",
        "trust.json",
        ".gitignore",
        ".ignore",
        ".fdignore",
    }
)
RESOURCE_FOLDER_NAMES = frozenset({*PROJECT_DIR_NAMES, SKILLS_DIR_NAME, PROMPTS_DIR_NAME})
#: Endings of names written only as bookkeeping: locks (a folder or a file) and write temps.
BOOKKEEPING_SUFFIXES = (".lock", ".tmp")
#: What the agent dir holds besides resources: chat sessions, credentials, model definitions.
AGENT_DIR_BOOKKEEPING = ("sessions", "auth.json", "models.json")

#: Glob patterns (relative to a workspace folder) for a client's file watcher.
WATCH_GLOBS = (
    "**/{AGENTS,CLAUDE}*.{md,MD}",
    "**/SKILL.md",
    "**/{SYSTEM,APPEND_SYSTEM}.md",
    f"**/{CONFIG_DIR_NAME}/**",
    f"**/{AGENTS_DIR_NAME}/**",
    "**/{.gitignore,.ignore,.fdignore}",
)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def is_bookkeeping_path(path: str, agent_dir: str | None = None) -> bool:
    """Whether ``path`` is a lock, a write temp or agent-dir bookkeeping (never a resource)."""
    if os.path.basename(path).endswith(BOOKKEEPING_SUFFIXES):
        return True
    if not agent_dir:
        return False
    return any(_under(path, os.path.join(agent_dir, name)) for name in AGENT_DIR_BOOKKEEPING)


def is_resource_path(path: str, agent_dir: str | None = None) -> bool:
    """Whether a change at ``path`` could matter to some snapshot (by name and place alone)."""
    if is_bookkeeping_path(path, agent_dir):
        return False
    if os.path.basename(path) in RESOURCE_FILE_NAMES:
        return True
    if agent_dir and _under(path, agent_dir):
        return True
    return any(part in RESOURCE_FOLDER_NAMES for part in path.split(os.sep))


def _ancestors(path: str) -> Iterator[str]:
    folder = os.path.dirname(path)
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def affecting_changes(
    resources: Resources, changed: Collection[str], read: Collection[str] | None = None
) -> set[str]:
    """The paths of ``changed`` that can make ``resources`` out of date.

    Place matters, not only name: an AGENTS.md counts only in a folder the snapshot's chain is
    looked up in, a SKILL.md only under a folder its skill discovery listed, ``.pi`` and
    ``.agents`` only in the snapshot's folder or above. A workspace with a hundred working
    directories rebuilds only those a change can reach.
    """
    if read is None:
        read = frozenset(resources.watched_files)
    listed = set(resources.skill_load.directories)
    chain = {*ancestor_dirs(resources.cwd), resources.agent_dir}
    out: set[str] = set()
    for path in changed:
        name = os.path.basename(path)
        folder = os.path.dirname(path)
        if is_bookkeeping_path(path, resources.agent_dir):
            continue
        if path in read or _under(path, resources.agent_dir):
            out.add(path)
        elif name in CONTEXT_FILE_NAMES:
            if folder in chain:
                out.add(path)
        elif any(a in listed for a in _ancestors(path)):
            out.add(path)  # inside a folder skill discovery walked
        elif any(
            os.path.basename(a) in PROJECT_DIR_NAMES and os.path.dirname(a) in chain
            for a in (path, *_ancestors(path))
        ):
            out.add(path)  # project resources of this snapshot's folder or above
        elif not os.path.exists(path) and (
            _under(resources.cwd, path) or any(_under(f, path) for f in read)
        ):
            out.add(path)  # a folder that held the cwd or a file we read went away
        elif os.path.isdir(path) and _under(resources.cwd, path):
            out.add(path)  # a folder above the cwd appeared (moved in)
    return out
