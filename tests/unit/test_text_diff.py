"""Line diff, Pi's display diff and the unified patch (expected texts from jsdiff 8 / Pi 0.85)."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.tools.text_diff import (
    MAX_EDIT_LENGTH,
    Change,
    diff_lines,
    diff_tokens,
    display_diff,
    tokenize_lines,
    unified_patch,
)


def _numbered(count: int) -> str:
    return "".join(f"l{i}\n" for i in range(1, count + 1))


# --------------------------------------------------------------------------------------------
# tokens


def test_lines_keep_their_line_breaks() -> None:
    assert tokenize_lines("a\nb\r\nc") == ["a\n", "b\r\n", "c"]


def test_trailing_newline_makes_no_empty_last_line() -> None:
    assert tokenize_lines("a\n") == ["a\n"]
    assert tokenize_lines("") == []
    assert tokenize_lines("\n\n") == ["\n", "\n"]


# --------------------------------------------------------------------------------------------
# diff_lines


def test_identical_texts_are_one_kept_run() -> None:
    assert diff_lines("a\nb\n", "a\nb\n") == [Change("a\nb\n", 2)]
    assert diff_lines("", "") == []


def test_replaced_line_lists_removal_before_addition() -> None:
    assert diff_lines("a\nb\nc\n", "a\nB\nc\n") == [
        Change("a\n", 1),
        Change("b\n", 1, removed=True),
        Change("B\n", 1, added=True),
        Change("c\n", 1),
    ]


def test_missing_final_newline_is_a_different_line() -> None:
    assert diff_lines("a\nb", "a\nb\n") == [
        Change("a\n", 1),
        Change("b", 1, removed=True),
        Change("b\n", 1, added=True),
    ]


def test_ambiguous_alignment_follows_jsdiff() -> None:
    # jsdiff keeps the furthest-reaching path and, on a tie, removes first
    assert diff_tokens(["a", "b", "a"], ["b", "a", "b"]) == [
        Change("a", 1, removed=True),
        Change("ba", 2),
        Change("b", 1, added=True),
    ]
    assert diff_tokens(["x", "y"], ["y", "x"]) == [
        Change("x", 1, removed=True),
        Change("y", 1),
        Change("x", 1, added=True),
    ]


_LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "a", "\n", "d\r\n"]), max_size=14)


@settings(max_examples=300, deadline=None)
@given(old=_LINES, new=_LINES)
def test_diff_rebuilds_both_texts(old: list[str], new: list[str]) -> None:
    old_text, new_text = "".join(old), "".join(new)
    changes = diff_lines(old_text, new_text)
    assert "".join(c.value for c in changes if not c.added) == old_text
    assert "".join(c.value for c in changes if not c.removed) == new_text


def _lcs_length(old: list[str], new: list[str]) -> int:
    row = [0] * (len(new) + 1)
    for token in old:
        diagonal = 0
        for j, other in enumerate(new, start=1):
            diagonal, row[j] = row[j], diagonal + 1 if token == other else max(row[j], row[j - 1])
    return row[-1]


@settings(max_examples=300, deadline=None)
@given(
    old=st.lists(st.sampled_from("abc"), max_size=12),
    new=st.lists(st.sampled_from("abc"), max_size=12),
)
def test_diff_is_a_shortest_edit_script(old: list[str], new: list[str]) -> None:
    changes = diff_tokens(old, new)
    edits = sum(c.count for c in changes if c.added or c.removed)
    assert edits == len(old) + len(new) - 2 * _lcs_length(old, new)
    # runs alternate: no two neighbouring runs of the same kind
    kinds = [(c.added, c.removed) for c in changes]
    assert all(a != b for a, b in itertools.pairwise(kinds))


# --------------------------------------------------------------------------------------------
# very different texts: the edit length cap


class _CountedLines(list[str]):
    """Lines that count how often the diff looks one up, and stop it past a budget."""

    def __init__(self, lines: list[str], budget: int) -> None:
        super().__init__(lines)
        self.reads = 0
        self.budget = budget

    def __getitem__(self, index: Any) -> Any:
        self.reads += 1
        if self.reads > self.budget:
            raise AssertionError(f"the diff looked up more than {self.budget} lines")
        return super().__getitem__(index)


# Searching every alignment of 4000 lines against 4000 other lines takes ~16 M comparisons
# (11 s); the edit length cap (1000 edits) stops the search after ~0.5 M, however many lines
# differ. The time itself is a bench figure: bench/tools_bench.py edit-4000.
_COMPARISON_BUDGET = 1_000_000


@pytest.mark.timeout(60)
def test_thousands_of_replaced_lines_are_one_removed_and_one_added_block() -> None:
    head, tail = _numbered(3), "end\n"
    old_block = "".join(f"old {i}\n" for i in range(4000))
    new_block = "".join(f"new {i}\n" for i in range(4000))
    # every comparison of the search reads one line of the new text
    new_lines = _CountedLines(tokenize_lines(head + new_block + tail), _COMPARISON_BUDGET)
    changes = diff_tokens(tokenize_lines(head + old_block + tail), new_lines)
    assert new_lines.reads > 100_000  # the search did run (and was counted) before giving up
    assert changes == [
        Change(head, 3),
        Change(old_block, 4000, removed=True),
        Change(new_block, 4000, added=True),
        Change(tail, 1),
    ]


def test_up_to_the_cap_the_diff_is_exact() -> None:
    quarter = MAX_EDIT_LENGTH // 4
    old = [f"a{i}\n" for i in range(quarter)] + ["same\n"] + [f"b{i}\n" for i in range(quarter)]
    new = [f"c{i}\n" for i in range(quarter)] + ["same\n"] + [f"d{i}\n" for i in range(quarter)]
    changes = diff_tokens(old, new)  # exactly MAX_EDIT_LENGTH edits: still aligned on "same"
    assert [(c.count, c.added, c.removed) for c in changes] == [
        (quarter, False, True),
        (quarter, True, False),
        (1, False, False),
        (quarter, False, True),
        (quarter, True, False),
    ]
    over = diff_tokens([*old, "e\n"], [*new, "f\n"])  # two more: one replaced block
    assert [(c.count, c.added, c.removed) for c in over] == [
        (2 * quarter + 2, False, True),
        (2 * quarter + 2, True, False),
    ]


@settings(max_examples=300, deadline=None)
@given(
    old=st.lists(st.sampled_from("abcd"), max_size=14),
    new=st.lists(st.sampled_from("abcd"), max_size=14),
    cap=st.integers(0, 6),
)
def test_capped_diff_is_exact_or_one_replaced_middle(
    old: list[str], new: list[str], cap: int
) -> None:
    capped = diff_tokens(old, new, max_edit_length=cap)
    exact = diff_tokens(old, new, max_edit_length=len(old) + len(new))
    assert "".join(c.value for c in capped if not c.added) == "".join(old)
    assert "".join(c.value for c in capped if not c.removed) == "".join(new)
    if sum(c.count for c in exact if c.is_edit) <= cap:
        assert capped == exact
    else:  # the kept prefix and suffix around one removed and one added block
        edits = [(c.added, c.removed) for c in capped if c.is_edit]
        assert edits in ([(False, True), (True, False)], [(False, True)], [(True, False)])
        kept = [index for index, c in enumerate(capped) if not c.is_edit]
        assert all(index in (0, len(capped) - 1) for index in kept)


# --------------------------------------------------------------------------------------------
# the same changes as Pi's jsdiff


def _ordinary_edits(seed: int, count: int) -> list[tuple[str, str]]:
    """Texts of repetitive lines with a few local changes (and some unrelated pairs)."""
    rng = random.Random(seed)
    alphabets = [
        ["a\n", "b\n", "c\n"],
        ["a\n", "b\n", "c\n", "d\n", "e\n", "\n", "}\n", "a", "x\r\n"],
        [f"line {i}\n" for i in range(30)] + ["\n", "}\n", "{\n"],
    ]
    cases = []
    for _ in range(count):
        alphabet = rng.choice(alphabets)
        old = [rng.choice(alphabet) for _ in range(rng.randint(0, 40))]
        new = list(old)
        for _ in range(rng.randint(0, 8)):
            roll, at = rng.random(), rng.randint(0, len(new))
            if roll < 0.4:
                new[at:at] = [rng.choice(alphabet) for _ in range(rng.randint(1, 4))]
            elif roll < 0.8:
                del new[at : at + rng.randint(1, 4)]
            else:
                new[at : at + 1] = [rng.choice(alphabet)]
        if rng.random() < 0.2:
            new = [rng.choice(alphabet) for _ in range(rng.randint(0, 40))]
        cases.append(("".join(old), "".join(new)))
    return cases


JSDIFF_DIGESTS = Path(__file__).parent / "data" / "jsdiff_ordinary_edits.txt"


def _digest(changes: list[list[object]]) -> str:
    text = json.dumps(changes, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_same_changes_as_jsdiff_on_12800_ordinary_edits() -> None:
    # The digests were recorded from jsdiff 8.0.4 (the diff package Pi 0.85.0 bundles) on the
    # same generated cases; each is the hash of jsdiff's change list for one case.
    lines = JSDIFF_DIGESTS.read_text().splitlines()
    expected = [line for line in lines if not line.startswith("#")]
    cases = _ordinary_edits(seed=20240601, count=12800)
    assert len(expected) == len(cases)
    differing = [
        index
        for index, ((old, new), want) in enumerate(zip(cases, expected, strict=True))
        if _digest([[c.value, c.count, c.added, c.removed] for c in diff_lines(old, new)]) != want
    ]
    assert differing == []


# --------------------------------------------------------------------------------------------
# display diff (details.diff)


def test_display_diff_numbers_each_side() -> None:
    shown = display_diff("alpha\nbeta\ngamma\ndelta\n", "ALPHA\nbeta\nGAMMA\ndelta\n")
    assert shown.diff == "-1 alpha\n+1 ALPHA\n 2 beta\n-3 gamma\n+3 GAMMA\n 4 delta"
    assert shown.first_changed_line == 1


def test_display_diff_pads_numbers_and_skips_far_lines() -> None:
    old = _numbered(20)
    new = old.replace("l2\n", "L2\n").replace("l18\n", "")
    shown = display_diff(old, new)
    assert shown.diff == (
        "  1 l1\n- 2 l2\n+ 2 L2\n  3 l3\n  4 l4\n  5 l5\n  6 l6\n    ...\n"
        " 14 l14\n 15 l15\n 16 l16\n 17 l17\n-18 l18\n 19 l19\n 20 l20"
    )
    assert shown.first_changed_line == 2


def test_display_diff_hides_leading_context_beyond_four_lines() -> None:
    old = _numbered(12)
    shown = display_diff(old, old.replace("l10\n", "ten\n"))
    assert shown.diff == (
        "    ...\n  6 l6\n  7 l7\n  8 l8\n  9 l9\n-10 l10\n+10 ten\n 11 l11\n 12 l12"
    )
    assert shown.first_changed_line == 10


def test_display_diff_keeps_short_gaps_whole() -> None:
    old = _numbered(10)
    new = old.replace("l1\n", "one\n").replace("l10\n", "ten\n")
    shown = display_diff(old, new)
    assert "..." not in shown.diff
    assert shown.diff.splitlines()[0] == "- 1 l1"
    assert shown.diff.splitlines()[-1] == "+10 ten"


def test_display_diff_of_equal_texts_is_empty() -> None:
    shown = display_diff("same\n", "same\n")
    assert (shown.diff, shown.first_changed_line) == ("", None)


# --------------------------------------------------------------------------------------------
# unified patch (details.patch)


def test_patch_always_writes_line_counts() -> None:
    assert unified_patch("legacy.txt", "keep old value\n", "keep new value\n") == (
        "--- legacy.txt\n+++ legacy.txt\n@@ -1,1 +1,1 @@\n-keep old value\n+keep new value\n"
    )


def test_patch_marks_missing_final_newline() -> None:
    assert unified_patch("f", "hi\n", "bye") == (
        "--- f\n+++ f\n@@ -1,1 +1,1 @@\n-hi\n+bye\n\\ No newline at end of file\n"
    )


def test_patch_for_empty_side_starts_one_line_earlier() -> None:
    assert unified_patch("f", "", "new\n") == "--- f\n+++ f\n@@ -0,0 +1,1 @@\n+new\n"
    assert unified_patch("f", "old\n", "") == "--- f\n+++ f\n@@ -1,1 +0,0 @@\n-old\n"


def test_patch_splits_hunks_more_than_eight_lines_apart() -> None:
    old = _numbered(20)
    new = old.replace("l2\n", "L2\n").replace("l18\n", "")
    assert unified_patch("long.txt", old, new) == (
        "--- long.txt\n+++ long.txt\n"
        "@@ -1,6 +1,6 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n l6\n"
        "@@ -14,7 +14,6 @@\n l14\n l15\n l16\n l17\n-l18\n l19\n l20\n"
    )


def test_patch_joins_changes_at_most_eight_lines_apart() -> None:
    old = _numbered(12)
    new = old.replace("l2\n", "L2\n").replace("l11\n", "L11\n")
    patch = unified_patch("f", old, new)
    assert patch.count("@@ -") == 1
    assert "@@ -1,12 +1,12 @@" in patch


def test_patch_of_equal_texts_has_only_headers() -> None:
    assert unified_patch("f", "a\n", "a\n") == "--- f\n+++ f\n"
