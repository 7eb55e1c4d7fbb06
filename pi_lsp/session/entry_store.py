"""A session's entries in file order, kept small: the bulk stays in the file until asked for.

A session file of 100,000 entries parses into some 450 MB of dicts, while what an agent needs
on every turn is the context at the leaf (since the latest compaction) plus a few small
entries (model and thinking changes, labels, names, compactions, summaries). An
:class:`IndexedEntries` keeps those as dicts ("live") and, for the other message and custom
entries, only where their line is in the file; reading such an entry parses its line again
(never kept, so a walk over the whole session does not pin it in memory). For every entry it
also keeps what walks need without the body: ``id``, ``parentId``, ``type``, whether it is an
assistant message, and its parent's position.

Entries appended while the session is open, and entries of sessions that are not backed by a
current-version file (new, in memory, migrated), are always live.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, overload

from pi_lsp.session.tree import branch

__all__ = [
    "LAZY_KINDS",
    "UNKNOWN",
    "EntryLoader",
    "EntryPath",
    "IndexedEntries",
    "Unknown",
    "entry_facts",
]

Entry = dict[str, Any]

#: Entry types whose bodies may stay in the file (everything else is small and always live).
LAZY_KINDS = frozenset({"message", "custom"})

#: Loads the entry at a position from the file (a fresh dict each time).
EntryLoader = Callable[[int], Entry]


class Unknown(enum.Enum):
    """Type of ``UNKNOWN``: a question the store cannot answer by positions."""

    UNKNOWN = "UNKNOWN"


UNKNOWN: Final = Unknown.UNKNOWN


def entry_facts(entry: Mapping[str, Any]) -> tuple[Any, Any, Any, bool]:
    """``id``, ``parentId``, ``type`` and whether ``entry`` holds an assistant message."""
    kind = entry.get("type")
    assistant = False
    if kind == "message":
        message = entry.get("message")
        assistant = isinstance(message, dict) and message.get("role") == "assistant"
    return entry.get("id"), entry.get("parentId"), kind, assistant


class _ById(Mapping[str, Entry]):
    """The entries by id (a later entry with the same id wins), read through the store."""

    __slots__ = ("_store",)

    def __init__(self, store: IndexedEntries) -> None:
        self._store = store

    def __getitem__(self, key: str) -> Entry:
        return self._store[self._store.positions[key]]

    def get(self, key: str, default: Any = None) -> Any:  # the hot path of walks
        position = self._store.positions.get(key)
        return default if position is None else self._store[position]

    def __contains__(self, key: object) -> bool:
        return key in self._store.positions

    def __iter__(self) -> Iterator[str]:
        return iter(self._store.positions)

    def __len__(self) -> int:
        return len(self._store.positions)


class IndexedEntries(Sequence[Entry]):
    """A session's entries in file order, with their index by id and parent links.

    :class:`~pi_lsp.session.session_file.SessionFile` holds its entries in one and adds to it
    only through :meth:`add`; everyone else reads it as a sequence. ``by_id`` maps ids to
    entries (later entries win). Entries whose body is in the file are parsed again on each
    access; :meth:`retain` makes chosen ones live.
    """

    __slots__ = (
        "_assistant",
        "_dangling",
        "_ids",
        "_kinds",
        "_loader",
        "_parent_ids",
        "_parents",
        "_slots",
        "positions",
    )

    def __init__(
        self,
        entries: Iterable[Entry | None] = (),
        *,
        keys: tuple[Sequence[Any], Sequence[Any], Sequence[Any], Sequence[int]] | None = None,
        loader: EntryLoader | None = None,
    ) -> None:
        """``entries``: the entries, or None where ``loader`` reads the body from the file.
        ``keys``: each entry's ``id``, ``parentId``, ``type`` and assistant flag (as
        :func:`entry_facts` gives them), when the caller has them at hand; required when some
        entries are None."""
        self._slots: list[Entry | None] = list(entries)
        self._loader = loader
        if keys is None:
            if loader is not None or any(slot is None for slot in self._slots):
                raise ValueError("entries kept in the file need their keys")
            facts = [entry_facts(entry) for entry in self._slots if entry is not None]
            keys = (
                [fact[0] for fact in facts],
                [fact[1] for fact in facts],
                [fact[2] for fact in facts],
                [fact[3] for fact in facts],
            )
        ids, parent_ids, kinds, assistant = keys
        self._ids: list[Any] = list(ids)
        self._parent_ids: list[Any] = list(parent_ids)
        self._kinds: list[Any] = list(kinds)
        self._assistant = bytearray(1 if flag else 0 for flag in assistant)
        if not (
            len(self._ids)
            == len(self._parent_ids)
            == len(self._kinds)
            == len(self._assistant)
            == len(self._slots)
        ):
            raise ValueError("one id, parent, type and assistant flag per entry")
        #: parent position of each entry (-1: a root), built on the first walk that needs it
        self._parents: list[int] | None = None
        #: parent ids that are no entry's id (yet)
        self._dangling: set[str] = set()
        #: position of each id (later entries win)
        self.positions: dict[str, int] = {
            key: at for at, key in enumerate(self._ids) if isinstance(key, str)
        }

    @property
    def by_id(self) -> Mapping[str, Entry]:
        """The entries by id, read through the store (a view made per call: the store does
        not hold it, so the two make no reference cycle and a dropped session is freed at
        once, its file descriptor closed)."""
        return _ById(self)

    # -- the sequence -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slots)

    @overload
    def __getitem__(self, index: int) -> Entry: ...
    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...
    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        if isinstance(index, slice):
            return [self._entry(at) for at in range(*index.indices(len(self._slots)))]
        slot = self._slots[index]
        if slot is None:
            return self._entry(index if index >= 0 else index + len(self._slots))
        return slot

    def __iter__(self) -> Iterator[Entry]:
        for at, slot in enumerate(self._slots):
            yield slot if slot is not None else self._entry(at)

    def __reversed__(self) -> Iterator[Entry]:
        for at in range(len(self._slots) - 1, -1, -1):
            yield self._entry(at)

    def __bool__(self) -> bool:
        return bool(self._slots)

    def __eq__(self, other: object) -> bool:
        # equal to any list, tuple, store or path of the same entries
        if isinstance(other, IndexedEntries | EntryPath | list | tuple):
            return _equal_entries(self, other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def _entry(self, position: int) -> Entry:
        slot = self._slots[position]
        if slot is not None:
            return slot
        assert self._loader is not None
        return self._loader(position)

    # -- what is known without the body ----------------------------------------------------

    def entry_id(self, position: int) -> Any:
        return self._ids[position]

    def kind(self, position: int) -> Any:
        return self._kinds[position]

    def is_assistant(self, position: int) -> bool:
        return bool(self._assistant[position])

    def is_live(self, position: int) -> bool:
        return self._slots[position] is not None

    @property
    def live_count(self) -> int:
        return sum(1 for slot in self._slots if slot is not None)

    def positions_of_kind(self, kind: str) -> list[int]:
        return [at for at, value in enumerate(self._kinds) if value == kind]

    def has_assistant(self) -> bool:
        return any(self._assistant)

    def children_positions(self, parent_id: str | None) -> list[int]:
        """Positions of the entries whose ``parentId`` is ``parent_id`` (``getChildren``)."""
        return [at for at, value in enumerate(self._parent_ids) if value == parent_id]

    def parent_links(self) -> Sequence[int]:
        """The parent position of every entry (-1 for a root); read-only."""
        return self._links()

    # -- changing ---------------------------------------------------------------------------

    def retain(self, positions: Iterable[int]) -> None:
        """Make the entries at ``positions`` live (parsed once, kept)."""
        for at in positions:
            if self._slots[at] is None:
                self._slots[at] = self._entry(at)

    def add(self, entry: Entry) -> None:
        """Append ``entry`` (live) and index it."""
        entry_id, parent_id, kind, assistant = entry_facts(entry)
        position = len(self._slots)
        self._slots.append(entry)
        self._ids.append(entry_id)
        self._parent_ids.append(parent_id)
        self._kinds.append(kind)
        self._assistant.append(1 if assistant else 0)
        if not isinstance(entry_id, str):
            if self._parents is not None:
                self._parents.append(self._parent_position_of(entry_id, parent_id))
            return
        known = entry_id in self.positions
        self.positions[entry_id] = position
        if self._parents is None:
            return
        if known or entry_id in self._dangling:
            # links to the earlier holder of this id, or to a parent that was missing until
            # now, lead here: build them again
            self._parents = None
            return
        self._parents.append(self._parent_position_of(entry_id, parent_id))

    # -- walks --------------------------------------------------------------------------------

    def _parent_position_of(self, entry_id: Any, parent: Any) -> int:
        if not isinstance(parent, str) or parent == entry_id:
            return -1
        position = self.positions.get(parent)
        if position is None:
            self._dangling.add(parent)
            return -1
        return position

    def _links(self) -> list[int]:
        if self._parents is None:
            find = self.positions.get
            parents: list[int] = []
            dangling: set[str] = set()
            for key, parent in zip(self._ids, self._parent_ids, strict=True):
                if not isinstance(parent, str) or parent == key:
                    parents.append(-1)
                    continue
                position = find(parent)
                if position is None:
                    dangling.add(parent)
                    parents.append(-1)
                else:
                    parents.append(position)
            self._dangling = dangling
            self._parents = parents
        return self._parents

    def branch_positions(self, leaf_id: str | None) -> list[int] | None:
        """Positions of the path from the root to ``leaf_id``, root first; ``[]`` for an
        unknown or None leaf, None when the parent links have a cycle (walk by id then)."""
        if leaf_id is None:
            return []
        position = self.positions.get(leaf_id)
        if position is None:
            return []
        parents = self._links()
        walked: list[int] = []
        step = walked.append
        limit = len(parents)
        while position >= 0:
            step(position)
            position = parents[position]
            if len(walked) > limit:
                return None
        walked.reverse()
        return walked

    def common_ancestor(self, a: str | None, b: str | None) -> str | Unknown | None:
        """``lowest_common_ancestor(self.by_id, a, b)`` by positions, reading no body;
        ``UNKNOWN`` when a walk meets a parent cycle (ask the walk by id then)."""
        if a is None or b is None:
            return None
        on_a = self.branch_positions(a)
        on_b = self.branch_positions(b)
        if on_a is None or on_b is None:
            return UNKNOWN
        held = set(on_a)
        for position in reversed(on_b):
            if position in held:
                key = self._ids[position]
                return key if isinstance(key, str) else None
        return None

    def branch(self, leaf_id: str | None) -> EntryPath | list[Entry]:
        """``branch(self.by_id, leaf_id)`` as a path over this store (bodies read when used)."""
        walked = self.branch_positions(leaf_id)
        if walked is None:  # a parentId cycle: the walk by id that stops at it
            return branch(self.by_id, leaf_id)
        return EntryPath(self, walked)


class EntryPath(Sequence[Entry]):
    """A root-to-leaf path of a store's entries: positions, with bodies read when used.

    Compares equal to a list of the same entries. ``store`` and ``positions`` let walks that
    know the store (the context projection) skip the bodies they do not need.
    """

    __slots__ = ("positions", "store")

    def __init__(self, store: IndexedEntries, positions: list[int]) -> None:
        self.store = store
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, index: int) -> Entry: ...
    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...
    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        if isinstance(index, slice):
            return [self.store[at] for at in self.positions[index]]
        return self.store[self.positions[index]]

    def __iter__(self) -> Iterator[Entry]:
        store = self.store
        for at in self.positions:
            yield store[at]

    def __reversed__(self) -> Iterator[Entry]:
        store = self.store
        for at in reversed(self.positions):
            yield store[at]

    def ids(self) -> list[Any]:
        """The path's entry ids, without reading a body."""
        return [self.store.entry_id(at) for at in self.positions]

    def kinds(self) -> list[Any]:
        """The path's entry types, without reading a body."""
        return [self.store.kind(at) for at in self.positions]

    def is_live(self, index: int) -> bool:
        """Whether entry ``index`` is held in memory (one read from the file is a new dict
        each time, never an object someone else holds)."""
        return self.store.is_live(self.positions[index])

    def __eq__(self, other: object) -> bool:
        # equal to any list, tuple, store or path of the same entries
        if isinstance(other, IndexedEntries | EntryPath | list | tuple):
            return _equal_entries(self, other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EntryPath({len(self.positions)} entries)"


def _equal_entries(entries: Sequence[Entry], other: Sequence[Entry]) -> bool:
    """Whether a store or path holds the same entries as ``other``, in order."""
    return len(entries) == len(other) and all(a == b for a, b in zip(entries, other, strict=True))
