"""The active-path projection: what the agent's context holds at a leaf (spec §8.6).

``build_session_context`` walks from a leaf to the root, keeps the thinking level and model the
path last set, and lays out the messages after the latest compaction: its summary first, then
the kept entries from before it, then everything after it. Entries and messages are plain dicts
in Pi's JSON shape; nothing here copies or mutates an entry except where a message has to be
made (custom messages and summaries, or a ``null`` content turned into ``[]``).

Pi quirk kept on purpose: every ``compaction`` entry contributes a summary message, so an older
compaction that lies inside the latest compaction's kept range is projected too, as a second
summary in the middle of the context (conformance case compaction-split-after-compaction).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pi_lsp.js.dates import parse_timestamp_ms
from pi_lsp.session.entry_store import EntryPath, IndexedEntries
from pi_lsp.session.tree import branch, index_entries

__all__ = [
    "UNSET",
    "SessionContext",
    "Unset",
    "build_session_context",
    "entry_messages",
]

Entry = Mapping[str, Any]
Message = dict[str, Any]


class Unset(enum.Enum):
    """Type of ``UNSET``: no leaf given (Pi's ``undefined``), as opposed to ``None`` (``null``)."""

    UNSET = "UNSET"


UNSET: Final = Unset.UNSET


@dataclass(frozen=True, slots=True)
class SessionContext:
    """What ``buildSessionContext`` returns, plus the entries the projection took messages from.

    ``entries`` are the path entries inside the projection, in context order (with a compaction:
    the compaction, its kept entries, the entries after it), whether or not they contribute a
    message. ``model`` is ``{"provider", "modelId"}`` or None.
    """

    messages: list[Message] = field(default_factory=list)
    thinking_level: str = "off"
    model: dict[str, Any] | None = None
    entries: list[Entry] = field(default_factory=list)


def _custom_message(entry: Mapping[str, Any], timestamp: float) -> Message:
    message: Message = {
        "role": "custom",
        "customType": entry.get("customType"),
        "content": entry.get("content"),
        "display": entry.get("display"),
    }
    if "details" in entry:
        message["details"] = entry["details"]
    message["timestamp"] = timestamp
    return message


def entry_messages(entry: Mapping[str, Any]) -> list[Message]:
    """The message(s) one entry contributes to the context (none, or one).

    * ``message``: its message; a ``null`` content becomes ``[]`` (in a copy);
    * ``custom_message``: a ``custom`` message;
    * ``branch_summary`` with a non-empty summary: a ``branchSummary`` message;
    * ``compaction`` (any, not only the latest): a ``compactionSummary`` message;
    * every other type: nothing.

    Made messages carry ``Date.parse(entry.timestamp)`` as their timestamp (NaN if unparsable).
    """
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return []
        if "content" in message and message["content"] is None:
            return [{**message, "content": []}]
        return [message]
    if kind == "custom_message":
        return [_custom_message(entry, parse_timestamp_ms(entry.get("timestamp")))]
    if kind == "branch_summary":
        summary = entry.get("summary")
        if not summary:
            return []
        return [
            {
                "role": "branchSummary",
                "summary": summary,
                "fromId": entry.get("fromId"),
                "timestamp": parse_timestamp_ms(entry.get("timestamp")),
            }
        ]
    if kind == "compaction":
        return [
            {
                "role": "compactionSummary",
                "summary": entry.get("summary"),
                "tokensBefore": entry.get("tokensBefore"),
                "timestamp": parse_timestamp_ms(entry.get("timestamp")),
            }
        ]
    return []


def _context_entries(path: Sequence[Entry], compaction_index: int | None) -> list[Entry]:
    """The path entries in context order: all of them, or the layout around a compaction."""
    if compaction_index is None:
        return list(path)
    compaction = path[compaction_index]
    first_kept = compaction.get("firstKeptEntryId")
    kept_start = next(
        (i for i in range(compaction_index) if path[i].get("id") == first_kept),
        compaction_index,
    )
    return [compaction, *path[kept_start:compaction_index], *path[compaction_index + 1 :]]


def _backward(index: Mapping[str, Entry], leaf: Entry, leaf_id: str) -> SessionContext:
    """The context at ``leaf`` (``index[leaf_id]``), walking from the leaf towards the root.

    Gives what the forward pass over the whole root path gives, but stops as soon as nothing
    further back can change it: the latest compaction and its first kept entry are found, and
    so are the latest thinking level and model (the last change on the path decides each).
    Without a compaction the whole path is the context and the walk goes to the root.
    """
    thinking_level: str | None = None
    model: dict[str, Any] | None = None
    model_found = False
    compaction: Entry | None = None
    first_kept: Any = None
    kept_found = False
    tail: list[Entry] = []  # after the compaction (or the whole path), leaf first
    kept: list[Entry] = []  # before the compaction, nearest first
    seen: set[str] = set()
    entry: Entry | None = leaf
    entry_id: Any = leaf_id
    while entry is not None:
        seen.add(entry_id)
        kind = entry.get("type")
        if compaction is None:
            if kind == "compaction":
                compaction = entry
                first_kept = entry.get("firstKeptEntryId")
            else:
                tail.append(entry)
        elif not kept_found:
            kept.append(entry)
            if entry_id == first_kept:
                kept_found = True
        if kind == "thinking_level_change":
            if thinking_level is None:
                level = entry.get("thinkingLevel")
                if isinstance(level, str):
                    thinking_level = level
        elif kind == "model_change":
            if not model_found:
                model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
                model_found = True
        elif kind == "message" and not model_found:
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
                model_found = True
        if kept_found and model_found and thinking_level is not None:
            break
        parent = entry.get("parentId")
        if not isinstance(parent, str) or parent == entry_id or parent in seen:
            break
        entry_id = parent
        entry = index.get(parent)
    return _walked_context(compaction, kept if kept_found else [], tail, thinking_level, model)


def _walked_context(
    compaction: Entry | None,
    kept: list[Entry],
    tail: list[Entry],
    thinking_level: str | None,
    model: dict[str, Any] | None,
) -> SessionContext:
    """The context a walk from the leaf found: ``tail`` (leaf first, back to the compaction or
    the root) and ``kept`` (the kept entries before the compaction, nearest first; empty when
    the first kept entry is not on the path)."""
    tail.reverse()
    if compaction is None:
        context_entries = tail
    else:
        kept.reverse()
        context_entries = [compaction, *kept, *tail]
    messages = [message for entry in context_entries for message in entry_messages(entry)]
    return SessionContext(
        messages=messages,
        thinking_level="off" if thinking_level is None else thinking_level,
        model=model,
        entries=context_entries,
    )


def build_session_context(
    entries: Sequence[Entry],
    leaf_id: str | Unset | None = UNSET,
    *,
    by_id: Mapping[str, Entry] | None = None,
) -> SessionContext:
    """``buildSessionContext(entries, leafId)``: the context at ``leaf_id`` (spec §8.6).

    ``leaf_id`` None is Pi's ``null`` (before the first entry: an empty context); ``UNSET``, an
    empty string or an unknown id mean the last entry. ``by_id`` may pass a ready index of
    ``entries`` (a session's :class:`IndexedEntries` carry theirs). Apart from building that
    index, the cost is linear in the part of the path the context reaches back to.
    """
    if leaf_id is None:
        return SessionContext()
    if by_id is None and isinstance(entries, IndexedEntries | EntryPath):
        position = _leaf_position(entries, leaf_id)
        if position is not None:
            store = entries if isinstance(entries, IndexedEntries) else entries.store
            return _backward_indexed(store, position)
    if by_id is not None:
        index = by_id
    elif isinstance(entries, IndexedEntries):
        index = entries.by_id
    else:
        index = index_entries(entries)
    leaf = index.get(leaf_id) if isinstance(leaf_id, str) and leaf_id else None
    if leaf is None:
        if not entries:
            return SessionContext()
        leaf = entries[-1]
    leaf_key = leaf.get("id")
    if isinstance(leaf_key, str) and index.get(leaf_key) is leaf:
        return _backward(index, leaf, leaf_key)
    return _forward(index, leaf, leaf_key)


def _forward(index: Mapping[str, Entry], leaf: Entry, leaf_key: Any) -> SessionContext:
    """The context over the whole root path, for a leaf that is not its id's entry."""
    path = branch(index, leaf_key) if isinstance(leaf_key, str) else []
    if not path or path[-1] is not leaf:
        # A leaf without an id string is not in the index; it still ends its own path.
        parent = leaf.get("parentId")
        path = [*(branch(index, parent) if isinstance(parent, str) else []), leaf]

    thinking_level = "off"
    model: dict[str, Any] | None = None
    compaction_index: int | None = None
    for position, entry in enumerate(path):
        kind = entry.get("type")
        if kind == "thinking_level_change":
            level = entry.get("thinkingLevel")
            if isinstance(level, str):
                thinking_level = level
        elif kind == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif kind == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
        elif kind == "compaction":
            compaction_index = position

    context_entries = _context_entries(path, compaction_index)
    messages = [message for entry in context_entries for message in entry_messages(entry)]
    return SessionContext(
        messages=messages, thinking_level=thinking_level, model=model, entries=context_entries
    )


def _leaf_position(entries: IndexedEntries | EntryPath, leaf_id: str | Unset) -> int | None:
    """Where the context's leaf is in the store, when the walk over the store can start there
    (the leaf is its id's entry); None sends the caller the general way."""
    if isinstance(entries, EntryPath):
        store, last = entries.store, (entries.positions[-1] if entries.positions else None)
    else:
        store, last = entries, (len(entries) - 1 if len(entries) else None)
    if last is None:
        return None
    position = store.positions.get(leaf_id) if isinstance(leaf_id, str) and leaf_id else None
    if position is None or (isinstance(entries, EntryPath) and position != last):
        # unknown leaf: the last entry (of a path, a leaf other than its end: the general way)
        if position is not None:
            return None
        position = last
    key = store.entry_id(position)
    return position if isinstance(key, str) and store.positions.get(key) == position else None


def _backward_indexed(store: IndexedEntries, position: int) -> SessionContext:
    """:func:`_backward` over a store: the same walk by parent positions, reading an entry's
    body only where it matters (the context itself, thinking and model changes, the first
    assistant message found), so a walk past the context to the root reads no message."""
    thinking_level: str | None = None
    model: dict[str, Any] | None = None
    model_found = False
    compaction: Entry | None = None
    first_kept: Any = None
    kept_found = False
    tail: list[Entry] = []
    #: positions before the compaction, nearest first: read only once the first kept entry is
    #: found on the path (else nothing before the compaction is kept, and nothing is read)
    kept: list[int] = []
    seen: set[int] = set()
    parents = store.parent_links()
    while position >= 0 and position not in seen:
        seen.add(position)
        kind = store.kind(position)
        entry: Entry | None = None
        if compaction is None:
            entry = store[position]
            if kind == "compaction":
                compaction = entry
                first_kept = entry.get("firstKeptEntryId")
            else:
                tail.append(entry)
        elif not kept_found:
            kept.append(position)
            if store.entry_id(position) == first_kept:
                kept_found = True
        if kind == "thinking_level_change":
            if thinking_level is None:
                level = (entry if entry is not None else store[position]).get("thinkingLevel")
                if isinstance(level, str):
                    thinking_level = level
        elif kind == "model_change":
            if not model_found:
                entry = entry if entry is not None else store[position]
                model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
                model_found = True
        elif kind == "message" and not model_found and store.is_assistant(position):
            message = (entry if entry is not None else store[position]).get("message")
            if isinstance(message, dict):
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
                model_found = True
        if kept_found and model_found and thinking_level is not None:
            break
        position = parents[position]
    held: list[Entry] = [store[at] for at in kept] if kept_found else []
    return _walked_context(compaction, held, tail, thinking_level, model)
