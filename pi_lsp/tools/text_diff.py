"""Line diffs the way Pi's edit tool reports them.

* :func:`diff_lines` — a Myers O(ND) diff over lines (each line keeps its line break), with the
  same choices as jsdiff 8's ``diffLines``, which Pi uses: the furthest-reaching path wins, a tie
  goes to removing, diagonals past an edge of the edit graph are no longer explored, and the first
  path (in diagonal order) to reach the end is the answer. Its cost grows with the square of the
  number of changed lines, so past :data:`MAX_EDIT_LENGTH` of them (jsdiff's ``maxEditLength``
  idea) the lines between the common prefix and the common suffix are reported as one removed
  and one added block instead of being searched for an alignment.
* :func:`display_diff` — Pi's numbered diff for people (``details.diff``) and the first changed
  line of the new text.
* :func:`unified_patch` — a unified diff (``details.patch``) as jsdiff's ``createTwoFilesPatch``
  writes it with file headers only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: Unchanged lines shown around each change, by both the display diff and the patch.
CONTEXT_LINES = 4

#: Most removed plus added lines for which the shortest edit script is searched; the search
#: then gives up after about 0.4 s at worst (it took 11 s for 4000 lines replaced by 4000 other
#: lines without a cap). A larger difference is shown as one replaced block.
MAX_EDIT_LENGTH = 1000

NO_NEWLINE_MARKER = "\\ No newline at end of file"

_LINE_BREAK = re.compile(r"(\n|\r\n)")


@dataclass(frozen=True, slots=True)
class Change:
    """A run of lines: kept by both texts, or only in the old (removed) or new (added) one."""

    value: str
    count: int
    added: bool = False
    removed: bool = False

    @property
    def is_edit(self) -> bool:
        return self.added or self.removed


@dataclass(frozen=True, slots=True)
class DisplayDiff:
    """Pi's numbered diff and the first line (1-based, in the new text) that differs."""

    diff: str
    first_changed_line: int | None


# --------------------------------------------------------------------------------------------
# Myers diff


def tokenize_lines(text: str) -> list[str]:
    """Lines of ``text``, each with its ``\\n`` or ``\\r\\n``; no empty last line."""
    pieces = _LINE_BREAK.split(text)
    if not pieces[-1]:
        pieces.pop()
    lines: list[str] = []
    for index, piece in enumerate(pieces):
        if index % 2:
            lines[-1] += piece
        else:
            lines.append(piece)
    return [line for line in lines if line]


# A path's change runs form a linked list from its end back to its start: (count, kind,
# previous run). Tuples keep the inner loop cheap; jsdiff builds the same list.
_KEPT, _ADDED, _REMOVED = 0, 1, 2
_Run = tuple[int, int, "_Run | None"]

# No path on this diagonal (a real position is >= -1).
_NO_PATH = -2


def _extend(run: _Run | None, kind: int) -> _Run:
    """``run`` plus one token of ``kind``; a token of the same kind as the last run joins it."""
    if run is not None and run[1] == kind:
        return (run[0] + 1, kind, run[2])
    return (1, kind, run)


def _changes_from(run: _Run | None, old: Sequence[str], new: Sequence[str]) -> list[Change]:
    runs: list[_Run] = []
    while run is not None:
        runs.append(run)
        run = run[2]
    runs.reverse()
    changes: list[Change] = []
    old_pos = new_pos = 0
    for count, kind, _ in runs:
        if kind == _REMOVED:
            value = "".join(old[old_pos : old_pos + count])
            old_pos += count
        else:
            value = "".join(new[new_pos : new_pos + count])
            new_pos += count
            if kind == _KEPT:
                old_pos += count
        changes.append(Change(value, count, kind == _ADDED, kind == _REMOVED))
    return changes


def diff_tokens(
    old: Sequence[str], new: Sequence[str], max_edit_length: int = MAX_EDIT_LENGTH
) -> list[Change]:
    """Shortest edit script from ``old`` to ``new`` as kept/removed/added runs, as jsdiff picks.

    When more than ``max_edit_length`` tokens differ, the result is the common prefix and
    suffix kept and everything between them removed, then added.
    """
    prefix = _common_prefix_len(old, new)
    # Every token one side has more than the other is an edit: a lower bound of the length.
    if abs(len(old) - len(new)) <= max_edit_length:
        changes = _shortest_edit_script(old, new, prefix, max_edit_length)
        if changes is not None:
            return changes
    return _replaced_middle(old, new, prefix, _common_suffix_len(old, new, prefix))


def _common_prefix_len(old: Sequence[str], new: Sequence[str]) -> int:
    length = 0
    for left, right in zip(old, new, strict=False):
        if left != right:
            break
        length += 1
    return length


def _common_suffix_len(old: Sequence[str], new: Sequence[str], prefix: int) -> int:
    """Equal tokens at the ends of both, not reaching into the common prefix."""
    length = 0
    limit = min(len(old), len(new)) - prefix
    while length < limit and old[len(old) - 1 - length] == new[len(new) - 1 - length]:
        length += 1
    return length


def _replaced_middle(
    old: Sequence[str], new: Sequence[str], prefix: int, suffix: int
) -> list[Change]:
    """Kept prefix, the rest of ``old`` removed, the rest of ``new`` added, kept suffix."""
    old_end, new_end = len(old) - suffix, len(new) - suffix
    changes = []
    if prefix:
        changes.append(Change("".join(old[:prefix]), prefix))
    if old_end > prefix:
        changes.append(Change("".join(old[prefix:old_end]), old_end - prefix, removed=True))
    if new_end > prefix:
        changes.append(Change("".join(new[prefix:new_end]), new_end - prefix, added=True))
    if suffix:
        changes.append(Change("".join(old[old_end:]), suffix))
    return changes


def _shortest_edit_script(
    old: Sequence[str], new: Sequence[str], prefix: int, max_edit_length: int
) -> list[Change] | None:
    """jsdiff's search; ``None`` when the script is longer than ``max_edit_length``.

    Positions are "last index consumed" (``-1`` before the start), as in jsdiff. Its first
    snake is the common prefix (``prefix`` tokens). For every edit length and diagonal, the
    path comes from the neighbour diagonal that got further in ``old`` (removal on a tie), then
    follows equal tokens.
    """
    old_len, new_len = len(old), len(new)
    offset = old_len + new_len + 1
    positions = [_NO_PATH] * (2 * offset + 1)  # per diagonal + offset: old index reached
    runs: list[_Run | None] = [None] * (2 * offset + 1)

    old_pos = new_pos = prefix - 1
    run: _Run | None = (old_pos + 1, _KEPT, None) if old_pos >= 0 else None
    if old_pos + 1 >= old_len and new_pos + 1 >= new_len:
        return _changes_from(run, old, new)
    positions[offset], runs[offset] = old_pos, run

    # Once a path touches the right (bottom) edge of the edit graph, diagonals beyond it
    # (below it) cannot lead to a shorter script and are skipped from then on.
    min_diagonal, max_diagonal = -offset, offset
    for edit_length in range(1, min(old_len + new_len, max_edit_length) + 1):
        diagonal = max(min_diagonal, -edit_length)
        # the upper bound is re-read every round: reaching the right edge lowers it at once
        while diagonal <= min(max_diagonal, edit_length):
            index = diagonal + offset
            remove_pos, remove_run = positions[index - 1], runs[index - 1]
            positions[index - 1], runs[index - 1] = _NO_PATH, None  # nobody needs it again
            add_pos = positions[index + 1]
            can_add = add_pos != _NO_PATH and 0 <= add_pos - diagonal < new_len
            can_remove = remove_pos != _NO_PATH and remove_pos + 1 < old_len
            if not can_add and not can_remove:
                positions[index], runs[index] = _NO_PATH, None
                diagonal += 2
                continue
            if not can_remove or (can_add and remove_pos < add_pos):
                old_pos, run = add_pos, _extend(runs[index + 1], _ADDED)
            else:
                old_pos, run = remove_pos + 1, _extend(remove_run, _REMOVED)
            new_pos = old_pos - diagonal
            snake_start = old_pos
            while (
                new_pos + 1 < new_len
                and old_pos + 1 < old_len
                and old[old_pos + 1] == new[new_pos + 1]
            ):
                old_pos += 1
                new_pos += 1
            if old_pos > snake_start:
                run = (old_pos - snake_start, _KEPT, run)
            if old_pos + 1 >= old_len and new_pos + 1 >= new_len:
                return _changes_from(run, old, new)
            positions[index], runs[index] = old_pos, run
            if old_pos + 1 >= old_len:
                max_diagonal = min(max_diagonal, diagonal - 1)
            if new_pos + 1 >= new_len:
                min_diagonal = max(min_diagonal, diagonal + 1)
            diagonal += 2
    return None


def diff_lines(old_text: str, new_text: str) -> list[Change]:
    """Line diff of two texts (jsdiff ``diffLines``): values keep their line breaks."""
    return diff_tokens(tokenize_lines(old_text), tokenize_lines(new_text))


# --------------------------------------------------------------------------------------------
# Pi's display diff


def _lines_of(change: Change) -> list[str]:
    lines = change.value.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


class _DisplayWriter:
    """Numbers and collects display lines while walking the changes in order."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.output: list[str] = []
        self.old_line = 1
        self.new_line = 1

    def kept(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.output.append(f" {str(self.old_line).rjust(self.width)} {line}")
            self.old_line += 1
            self.new_line += 1

    def added(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.output.append(f"+{str(self.new_line).rjust(self.width)} {line}")
            self.new_line += 1

    def removed(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.output.append(f"-{str(self.old_line).rjust(self.width)} {line}")
            self.old_line += 1

    def skipped(self, count: int, *, marker: bool = True) -> None:
        if marker:
            self.output.append(f" {''.rjust(self.width)} ...")
        self.old_line += count
        self.new_line += count


def display_diff(old_text: str, new_text: str, context_lines: int = CONTEXT_LINES) -> DisplayDiff:
    """Pi's ``generateDiffString``: ``-N``/``+N``/`` N`` lines, context, `` ...`` for gaps.

    Line numbers are right-aligned to the width of the larger line count (counted with a plain
    split on ``\\n``, so a trailing newline adds one).
    """
    return format_display_diff(diff_lines(old_text, new_text), old_text, new_text, context_lines)


def format_display_diff(
    changes: Sequence[Change], old_text: str, new_text: str, context_lines: int = CONTEXT_LINES
) -> DisplayDiff:
    """:func:`display_diff` from changes already computed by :func:`diff_lines`."""
    line_count = max(len(old_text.split("\n")), len(new_text.split("\n")))
    writer = _DisplayWriter(len(str(line_count)))
    first_changed: int | None = None
    after_change = False
    for index, change in enumerate(changes):
        lines = _lines_of(change)
        if change.is_edit:
            if first_changed is None:
                first_changed = writer.new_line
            (writer.added if change.added else writer.removed)(lines)
            after_change = True
            continue
        before_change = index < len(changes) - 1 and changes[index + 1].is_edit
        _write_context(writer, lines, after_change, before_change, context_lines)
        after_change = False
    return DisplayDiff("\n".join(writer.output), first_changed)


def _write_context(
    writer: _DisplayWriter,
    lines: list[str],
    after_change: bool,
    before_change: bool,
    context_lines: int,
) -> None:
    """Unchanged lines: a few next to each change, `` ...`` for what lies between."""
    if after_change and before_change:
        if len(lines) <= context_lines * 2:
            writer.kept(lines)
            return
        leading = lines[:context_lines]
        trailing = lines[len(lines) - context_lines :]
        writer.kept(leading)
        writer.skipped(len(lines) - len(leading) - len(trailing))
        writer.kept(trailing)
    elif after_change:
        shown = lines[:context_lines]
        writer.kept(shown)
        if len(lines) > len(shown):
            writer.skipped(len(lines) - len(shown))
    elif before_change:
        hidden = max(0, len(lines) - context_lines)
        if hidden:
            writer.skipped(hidden)
        writer.kept(lines[hidden:])
    else:
        writer.skipped(len(lines), marker=False)


# --------------------------------------------------------------------------------------------
# Unified patch


@dataclass(slots=True)
class _Hunk:
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: list[str]


def _split_keeping_breaks(text: str) -> list[str]:
    """Lines of ``text`` with their ``\\n`` (jsdiff's ``splitLines`` for patches)."""
    lines = [line + "\n" for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1]
    return lines


def _hunks(changes: Sequence[Change], context: int) -> list[_Hunk]:
    """Group changes into hunks with ``context`` lines around them (jsdiff ``structuredPatch``)."""
    blocks = [_split_keeping_breaks(change.value) for change in changes]
    blocks.append([])  # a final empty "kept" block closes the last hunk
    kinds = [change.is_edit for change in changes] + [False]
    added = [change.added for change in changes] + [False]
    hunks: list[_Hunk] = []
    open_range: list[str] | None = None
    old_start = new_start = 0
    old_line = new_line = 1
    for index, lines in enumerate(blocks):
        if kinds[index]:
            if open_range is None:
                open_range = (
                    [" " + line for line in blocks[index - 1][-context:]]
                    if index > 0 and context > 0
                    else []
                )
                old_start = old_line - len(open_range)
                new_start = new_line - len(open_range)
            open_range.extend(("+" if added[index] else "-") + line for line in lines)
            if added[index]:
                new_line += len(lines)
            else:
                old_line += len(lines)
            continue
        if open_range is not None:
            if len(lines) <= context * 2 and index < len(blocks) - 2:
                open_range.extend(" " + line for line in lines)
            else:
                shown = min(len(lines), context)
                open_range.extend(" " + line for line in lines[:shown])
                hunks.append(
                    _Hunk(
                        old_start,
                        old_line - old_start + shown,
                        new_start,
                        new_line - new_start + shown,
                        open_range,
                    )
                )
                open_range = None
        old_line += len(lines)
        new_line += len(lines)
    for hunk in hunks:
        hunk.lines = _mark_missing_newlines(hunk.lines)
    return hunks


def _mark_missing_newlines(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line[:-1])
        else:
            out.extend((line, NO_NEWLINE_MARKER))
    return out


def unified_patch(path: str, old_text: str, new_text: str, context: int = CONTEXT_LINES) -> str:
    """Unified diff with ``--- path``/``+++ path`` headers; jsdiff's format, counts always shown."""
    return format_unified_patch(path, diff_lines(old_text, new_text), context)


def format_unified_patch(path: str, changes: Sequence[Change], context: int = CONTEXT_LINES) -> str:
    """:func:`unified_patch` from changes already computed by :func:`diff_lines`."""
    out = [f"--- {path}", f"+++ {path}"]
    for hunk in _hunks(changes, context):
        # an empty side of a hunk starts one line earlier (unified diff convention)
        old_start = hunk.old_start - 1 if hunk.old_lines == 0 else hunk.old_start
        new_start = hunk.new_start - 1 if hunk.new_lines == 0 else hunk.new_start
        out.append(f"@@ -{old_start},{hunk.old_lines} +{new_start},{hunk.new_lines} @@")
        out.extend(hunk.lines)
    return "\n".join(out) + "\n"
