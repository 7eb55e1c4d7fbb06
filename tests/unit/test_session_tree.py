"""The session tree: paths, children, the whole tree and common ancestors (spec §8.5, §11.1)."""

from __future__ import annotations

import inspect
import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pi_lsp.js.dates import parse_timestamp_ms
from pi_lsp.session.tree import (
    TreeNode,
    branch,
    children,
    get_tree,
    index_entries,
    labels_by_target,
    lowest_common_ancestor,
)
from tests.growth import assert_linear_growth


@contextmanager
def recursion_limit(limit: int) -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def entry(entry_id: str, parent: str | None, second: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "type": extra.pop("type", "custom"),
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2025-01-01T00:00:{second:02d}.000Z",
        **extra,
    }


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries]


# A─B─C─D and A─E─F
TREE = [
    entry("A", None, 1),
    entry("B", "A", 2),
    entry("C", "B", 3),
    entry("D", "C", 4),
    entry("E", "A", 5),
    entry("F", "E", 6),
]


def test_branch_is_root_first_and_follows_the_leaf() -> None:
    by_id = index_entries(TREE)
    assert ids(branch(by_id, "D")) == ["A", "B", "C", "D"]
    assert ids(branch(by_id, "F")) == ["A", "E", "F"]
    assert ids(branch(by_id, "A")) == ["A"]


def test_branch_of_an_unknown_or_null_leaf_is_empty() -> None:
    by_id = index_entries(TREE)
    assert branch(by_id, "nope") == []
    assert branch(by_id, None) == []


def test_branch_stops_at_a_missing_parent() -> None:
    entries = [entry("A", None), entry("C", "gone"), entry("D", "C")]
    assert ids(branch(index_entries(entries), "D")) == ["C", "D"]


def test_self_parent_and_cycles_end_the_walk() -> None:
    entries = [entry("A", "A"), entry("B", "A"), entry("X", "Y"), entry("Y", "X")]
    by_id = index_entries(entries)
    assert ids(branch(by_id, "B")) == ["A", "B"]
    assert ids(branch(by_id, "X")) == ["Y", "X"]


def _chain(length: int) -> list[dict[str, Any]]:
    return [entry("e0", None)] + [entry(f"e{i}", f"e{i - 1}") for i in range(1, length)]


def _walk(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[TreeNode]]:
    return branch(index_entries(entries), entries[-1]["id"]), get_tree(entries)


def test_long_chain_is_walked_without_recursion() -> None:
    entries = _chain(5000)
    # a few frames above the test's own depth: a walk that recurses once per entry runs out
    with recursion_limit(len(inspect.stack()) + 30):
        path, roots = _walk(entries)
    assert len(path) == 5000 and path[0]["id"] == "e0" and path[-1]["id"] == "e4999"
    assert len(roots) == 1 and roots[0].children[0].entry["id"] == "e1"


@pytest.mark.timeout(60)
def test_long_chain_costs_linear_time() -> None:
    small, large = _chain(25_000), _chain(200_000)
    walked: list[tuple[list[dict[str, Any]], list[TreeNode]]] = []
    assert_linear_growth(
        lambda: walked.append(_walk(small)), lambda: walked.append(_walk(large)), factor=8
    )
    path, roots = walked[-1]
    assert len(path) == 200_000 and path[0]["id"] == "e0"
    assert len(roots) == 1


def test_index_keeps_the_later_entry_for_a_repeated_id() -> None:
    first, second = entry("A", None, 1), entry("A", None, 2)
    assert index_entries([first, second])["A"] is second


def test_children_in_file_order() -> None:
    assert ids(children(TREE, "A")) == ["B", "E"]
    assert ids(children(TREE, None)) == ["A"]
    assert children(TREE, "F") == []


def test_tree_roots_and_timestamp_order() -> None:
    entries = [
        entry("A", None, 1),
        entry("late", "A", 9),
        entry("early", "A", 3),
        entry("orphan", "gone", 4),
        entry("self", "self", 5),
        entry("same1", "A", 6),
        entry("same2", "A", 6),
    ]
    roots = get_tree(entries)
    assert [node.entry["id"] for node in roots] == ["A", "orphan", "self"]
    assert [node.entry["id"] for node in roots[0].children] == ["early", "same1", "same2", "late"]


def test_tree_labels_last_wins_and_empty_clears() -> None:
    entries = [
        *TREE,
        entry("L1", "F", 7, type="label", targetId="B", label="first"),
        entry("L2", "L1", 8, type="label", targetId="B", label="second"),
        entry("L3", "L2", 9, type="label", targetId="C", label="gone soon"),
        entry("L4", "L3", 10, type="label", targetId="C"),
        entry("L5", "L4", 11, type="label", targetId="D", label="x"),
        entry("L6", "L5", 12, type="label", targetId="D", label=""),
    ]
    assert labels_by_target(entries) == {"B": "second"}
    root = get_tree(entries)[0]
    b_node = root.children[0]
    assert b_node.entry["id"] == "B" and b_node.label == "second"
    assert b_node.children[0].label is None


def test_lowest_common_ancestor() -> None:
    by_id = index_entries(TREE)
    assert lowest_common_ancestor(by_id, "D", "F") == "A"
    assert lowest_common_ancestor(by_id, "D", "C") == "C"
    assert lowest_common_ancestor(by_id, "C", "D") == "C"
    assert lowest_common_ancestor(by_id, "D", "D") == "D"
    assert lowest_common_ancestor(by_id, None, "D") is None
    disjoint = index_entries([*TREE, entry("Z", None)])
    assert lowest_common_ancestor(disjoint, "D", "Z") is None


def test_timestamps_parse_as_date_parse() -> None:
    assert parse_timestamp_ms("2025-12-09T00:53:29.825Z") == 1765241609825
    assert parse_timestamp_ms("1970-01-01T00:00:00Z") == 0
    assert parse_timestamp_ms("1970-01-01") == 0
    assert parse_timestamp_ms("1970-01-01T01:00:00.5+01:00") == 500
    assert parse_timestamp_ms("1970-01-01T00:00:00.123456Z") == 123
    assert parse_timestamp_ms("2023-02-30T00:00:00Z") == parse_timestamp_ms("2023-03-02T00:00:00Z")
    assert parse_timestamp_ms("1970-01-01T24:00:00Z") == 86_400_000
    assert parse_timestamp_ms("-000001-01-01T00:00:00Z") == -62198755200000
    assert parse_timestamp_ms("+275760-09-13T00:00:00Z") == 8.64e15
    assert parse_timestamp_ms("2025-12-09 00:53:29.5z") == 1765241609500
    assert parse_timestamp_ms("2025-12-09T00:53:29.5+0100") == 1765238009500
    too_late = "+275760-09-13T00:00:00.001Z"
    for bad in ("{ISO}", "", "2025-13-01", "1970-01-01T24:00:01Z", "-000000", too_late, None, 5):
        assert math.isnan(parse_timestamp_ms(bad)), bad


def test_date_time_without_offset_is_local_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        # 12:00 EDT and 08:30 EST, as node -e 'Date.parse(…)' gives with TZ=America/New_York
        assert parse_timestamp_ms("2024-06-01T12:00:00") == 1717257600000
        assert parse_timestamp_ms("2024-01-15T08:30") == 1705325400000
        assert parse_timestamp_ms("2024-06-01") == 1717200000000  # a date alone is UTC
        # clocks set forward at 02:00: the skipped 02:30 is read with the old offset (EST)
        assert parse_timestamp_ms("2024-03-10T02:30") == 1710055800000
        # clocks set back at 02:00: the repeated 01:30 is its earlier instant (EDT)
        assert parse_timestamp_ms("2024-11-03T01:30") == 1730611800000
    finally:
        monkeypatch.undo()
        time.tzset()
