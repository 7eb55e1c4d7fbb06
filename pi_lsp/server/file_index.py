"""The workspace's files and folders for ``@`` mentions, and a fuzzy match over them.

:class:`FileIndex` walks a root once the way Pi's ``@`` completion lists files (fd with hidden
entries, ``.git`` and what ignore files exclude left out: :class:`~pi_lsp.tools.file_walk.FdWalk`),
keeps the list, and walks again in a worker thread when a query comes more than
:data:`REFRESH_AFTER` seconds after the last walk (the query is answered from the list it has).
At most :data:`MAX_ENTRIES` entries are kept.

:func:`fuzzy_score` is linear in the path's length: the query's characters must appear in order
(case-insensitive); a match in the file name, at a word start, or in one run scores higher, and
a shorter path wins a tie.
"""

from __future__ import annotations

import asyncio
import heapq
import os
import threading
import time
from dataclasses import dataclass

from pi_lsp.tools.file_walk import FdWalk

__all__ = ["FileIndex", "IndexedPath", "Match", "fuzzy_score"]

#: Seconds after which a query starts a new walk in the background.
REFRESH_AFTER = 5.0
#: Entries kept at most (a walk stops there; the answer says the list was cut).
MAX_ENTRIES = 300_000

_WORD_STARTS = frozenset("/_-. ")


@dataclass(frozen=True, slots=True)
class IndexedPath:
    path: str  # relative to the root, "/"-separated, no trailing "/"
    is_dir: bool
    lower: str
    name_start: int  # where the last component starts in ``lower``


@dataclass(frozen=True, slots=True)
class Match:
    path: str
    is_dir: bool
    score: float


def fuzzy_score(query: str, entry: IndexedPath) -> float | None:
    """How well ``query`` (lower case) matches ``entry``; ``None`` when it does not."""
    text = entry.lower
    if not query:
        return -float(text.count("/")) - len(text) / 1000
    position = -1
    score = 0.0
    previous = -2
    for char in query:
        position = text.find(char, position + 1)
        if position < 0:
            return None
        if position == previous + 1:
            score += 3
        if position == 0 or text[position - 1] in _WORD_STARTS:
            score += 5
        if position >= entry.name_start:
            score += 2
        previous = position
    name = text[entry.name_start :]
    found = name.find(query)
    if found >= 0:
        score += 100 if found == 0 else 60
        if name == query or name.rsplit(".", 1)[0] == query:
            score += 50
    elif query in text:
        score += 30
    return score - len(text) / 100


class FileIndex:
    """The mentionable entries below one root."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.entries: list[IndexedPath] | None = None
        self.truncated = False
        self.walked_at = 0.0
        self._walking: asyncio.Future[None] | None = None

    async def search(self, query: str, limit: int) -> list[Match]:
        """The best ``limit`` entries for ``query``, best first."""
        if self.entries is None:
            await self._walk()
        elif time.monotonic() - self.walked_at > REFRESH_AFTER and self._walking is None:
            self._walking = asyncio.ensure_future(self._walk())
        entries = self.entries or []
        wanted = query.strip().removeprefix("./").lower()
        return await asyncio.to_thread(_best, entries, wanted, limit)

    async def _walk(self) -> None:
        try:
            entries, truncated = await asyncio.to_thread(_list_entries, self.root)
            self.entries, self.truncated = entries, truncated
            self.walked_at = time.monotonic()
        finally:
            self._walking = None


def _best(entries: list[IndexedPath], query: str, limit: int) -> list[Match]:
    scored = (
        (score, -index)  # a tie goes to the entry walked first
        for index, entry in enumerate(entries)
        if (score := fuzzy_score(query, entry)) is not None
    )
    best = heapq.nlargest(limit, scored)
    return [Match(entries[-i].path, entries[-i].is_dir, score) for score, i in best]


def _list_entries(root: str) -> tuple[list[IndexedPath], bool]:
    walk = FdWalk(root, require_git=True, cancelled=threading.Event())
    out: list[IndexedPath] = []
    for found in walk.entries():
        path = os.fsdecode(found.relative)
        lower = path.lower()
        out.append(IndexedPath(path, found.is_dir, lower, lower.rfind("/") + 1))
        if len(out) >= MAX_ENTRIES:
            return out, True
    return out, False
