"""The session tree: entries linked by ``parentId``, walked the way Pi's SessionManager does.

Entries are the plain dicts of a session file's lines after the header (spec §8.2). Every
function here is linear in the number of entries it looks at and iterative, so a chain of a
hundred thousand entries neither recurses nor goes quadratic.

Where Pi would loop forever (an entry that is its own parent, or a longer ``parentId`` cycle),
the walk stops at the first entry it has already seen: a self-parent is a root, as in Pi's
``getTree``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pi_lsp.js.dates import parse_timestamp_ms

__all__ = [
    "EntryT",
    "TreeNode",
    "branch",
    "children",
    "get_tree",
    "index_entries",
    "labels_by_target",
    "lowest_common_ancestor",
]

#: An entry: a parsed JSON line (a ``dict``, or any read-only mapping); functions give back the
#: objects they were given.
EntryT = TypeVar("EntryT", bound=Mapping[str, Any])


@dataclass(slots=True)
class TreeNode:
    """One entry of ``get_tree``: the entry, its children (by timestamp) and its label."""

    entry: dict[str, Any]
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None


def index_entries(entries: Iterable[EntryT]) -> dict[str, EntryT]:
    """Entries by id; with a repeated id the later entry wins (as Pi's ``Map.set``)."""
    by_id: dict[str, EntryT] = {}
    for entry in entries:
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            by_id[entry_id] = entry
    return by_id


def _parent_of(entry: Mapping[str, Any]) -> str | None:
    parent = entry.get("parentId")
    if not isinstance(parent, str) or parent == entry.get("id"):
        return None
    return parent


def branch(by_id: Mapping[str, EntryT], leaf_id: str | None) -> list[EntryT]:
    """The path from the root to ``leaf_id``, root first (``getBranch``).

    The walk follows ``parentId`` and stops at a missing parent (that entry starts the path) or
    at a self-parent. An unknown or ``None`` leaf gives ``[]``.
    """
    path: list[EntryT] = []
    seen: set[str] = set()
    current_id = leaf_id
    while current_id is not None and current_id not in seen:
        entry = by_id.get(current_id)
        if entry is None:
            break
        seen.add(current_id)
        path.append(entry)
        current_id = _parent_of(entry)
    path.reverse()
    return path


def children(entries: Iterable[EntryT], parent_id: str | None) -> list[EntryT]:
    """Entries whose ``parentId`` is ``parent_id``, in file order (``getChildren``)."""
    return [entry for entry in entries if entry.get("parentId") == parent_id]


def labels_by_target(entries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Current label of each entry: the last ``label`` entry per target wins, empty clears."""
    labels: dict[str, str] = {}
    for entry in entries:
        if entry.get("type") != "label":
            continue
        target = entry.get("targetId")
        if not isinstance(target, str):
            continue
        label = entry.get("label")
        if isinstance(label, str) and label:
            labels[target] = label
        else:
            labels.pop(target, None)
    return labels


def _timestamp_key(node: TreeNode) -> float:
    value = parse_timestamp_ms(node.entry.get("timestamp"))
    # Pi sorts with a NaN-producing comparator for unparsable timestamps (order unspecified);
    # here they go after every dated sibling, keeping their file order.
    return math.inf if math.isnan(value) else value


def get_tree(entries: Iterable[dict[str, Any]]) -> list[TreeNode]:
    """The whole tree (``getTree``): roots in file order, children sorted by timestamp.

    A root is an entry whose ``parentId`` is null, itself, or not the id of any entry. Sorting
    is stable, so children with equal timestamps keep their file order.
    """
    entry_list = list(entries)
    nodes: dict[str, TreeNode] = {}
    ordered: list[TreeNode] = []
    for entry in entry_list:
        node = TreeNode(entry)
        ordered.append(node)
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            nodes[entry_id] = node
    labels = labels_by_target(entry_list)
    roots: list[TreeNode] = []
    for node in ordered:
        entry_id = node.entry.get("id")
        if isinstance(entry_id, str):
            node.label = labels.get(entry_id)
        parent_id = _parent_of(node.entry)
        parent = nodes.get(parent_id) if parent_id is not None else None
        if parent is None or parent is node:
            roots.append(node)
        else:
            parent.children.append(node)
    for node in ordered:
        if len(node.children) > 1:
            node.children.sort(key=_timestamp_key)
    return roots


def lowest_common_ancestor(
    by_id: Mapping[str, Mapping[str, Any]], a: str | None, b: str | None
) -> str | None:
    """Id of the deepest entry on both root paths of ``a`` and ``b`` (None if disjoint).

    This is the ``commonAncestorId`` of tree navigation (spec §11.1): the deepest entry of
    ``b``'s path that also lies on ``a``'s path.
    """
    if a is None or b is None:
        return None
    on_a = {entry.get("id") for entry in branch(by_id, a)}
    for entry in reversed(branch(by_id, b)):
        if entry.get("id") in on_a:
            entry_id = entry.get("id")
            return entry_id if isinstance(entry_id, str) else None
    return None
