"""Line diff, Pi's display diff and the unified patch (expected texts from jsdiff 8 / Pi 0.85)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.tools.text_diff import (
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
