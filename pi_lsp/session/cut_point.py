"""Where a compaction cuts the history (spec §10.4).

Everything before the cut is summarized, everything from the cut on is kept verbatim. The cut
is placed so the kept part holds at least ``keepRecentTokens`` (by the chars/4 estimate) when
the history allows, and only on an entry a conversation can resume from: a user, assistant,
``!command``, custom or summary message — never a tool result, which would be cut off from the
call that produced it.

When the cut falls on an assistant message in the middle of a turn (after the user message
that opened it), the turn is *split*: its beginning is summarized on its own (the turn prefix)
and its end is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.session.context import entry_messages
from pi_lsp.session.tokens import estimate_message_tokens

__all__ = [
    "CUT_POINT_ROLES",
    "TURN_START_ROLES",
    "CutPoint",
    "entry_tokens",
    "find_cut_point",
    "is_context_visible",
    "is_cut_point",
    "is_turn_start",
    "settle_cut",
]

Entry = dict[str, Any]

#: Roles of the messages a kept part may start with.
CUT_POINT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
#: Roles that open a turn (an assistant message continues one).
TURN_START_ROLES = CUT_POINT_ROLES - {"assistant"}


@dataclass(frozen=True, slots=True)
class CutPoint:
    """``first_kept_entry_index``: the first entry kept; ``turn_start_index``: the entry that
    opened the turn the cut splits (-1 when the cut does not split a turn)."""

    first_kept_entry_index: int
    turn_start_index: int = -1
    is_split_turn: bool = False


def _first_role(entry: Entry) -> str | None:
    messages = entry_messages(entry)
    role = messages[0].get("role") if messages else None
    return role if isinstance(role, str) else None


def is_context_visible(entry: Entry) -> bool:
    """Whether the entry puts a message into the context."""
    return bool(entry_messages(entry))


def is_cut_point(entry: Entry) -> bool:
    """Whether a kept part may start at ``entry`` (never a compaction or a tool result)."""
    return entry.get("type") != "compaction" and _first_role(entry) in CUT_POINT_ROLES


def is_turn_start(entry: Entry) -> bool:
    """Whether ``entry`` opens a turn (user-side messages; compactions never do)."""
    return entry.get("type") != "compaction" and _first_role(entry) in TURN_START_ROLES


def entry_tokens(entry: Entry) -> int:
    """The estimate of the messages one entry contributes."""
    return sum(estimate_message_tokens(message) for message in entry_messages(entry))


def find_cut_point(
    entries: Sequence[Entry],
    start: int,
    end: int,
    keep_recent_tokens: int,
    *,
    pi_quirks: bool = False,
) -> CutPoint:
    """``findCutPoint``: the cut within ``entries[start:end]`` (a root-first path).

    1. Without any entry a kept part may start at, the cut is ``start``.
    2. Walking back from the newest entry, the estimates add up (compaction entries in the
       range count too); where the total first reaches ``keep_recent_tokens`` the cut is the
       first allowed entry at or after that point. If the total never gets there, the cut is
       the oldest allowed entry (everything is kept).
    3. Entries without a message (model or thinking changes, labels…) just before the cut are
       kept with it.
    4. A cut that does not start a turn splits the turn opened by the nearest turn start
       before it, if there is one in range.

    Two of Pi's rules are corrected unless ``pi_quirks`` (spec §15.4 and a consequence of
    step 3):

    * when no allowed entry lies at or after the crossing point (the newest entry alone, a
      large tool result, holds ``keep_recent_tokens``), Pi falls back to the oldest allowed
      entry and compacts nothing; pi-lsp cuts at the nearest allowed entry before it, which
      still keeps at least ``keep_recent_tokens``;
    * Pi decides step 4 on the entry the cut was moved back to, so a cut moved onto a model
      or thinking-level change in front of a user message "splits" the previous, finished
      turn; pi-lsp decides it on the first entry from the cut on that carries a message.
    """
    cut_points = [i for i in range(start, end) if is_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(start)

    cut = cut_points[0]
    total = 0
    for index in range(end - 1, start - 1, -1):
        tokens = entry_tokens(entries[index])
        if tokens == 0:
            continue
        total += tokens
        if total >= keep_recent_tokens:
            after = [c for c in cut_points if c >= index]
            if after:
                cut = after[0]
            elif not pi_quirks:
                cut = cut_points[-1]  # every cut point lies before ``index`` here
            break

    return settle_cut(entries, cut, start, end, pi_quirks=pi_quirks)


def settle_cut(
    entries: Sequence[Entry], cut: int, start: int, end: int, *, pi_quirks: bool = False
) -> CutPoint:
    """Steps 3 and 4 of :func:`find_cut_point` for a chosen cut (an allowed entry's index):
    take in the message-less entries just before it, then tell whether it splits a turn."""
    while cut > start:
        before = entries[cut - 1]
        if before.get("type") == "compaction" or is_context_visible(before):
            break
        cut -= 1

    deciding = cut
    if not pi_quirks:
        deciding = next((i for i in range(cut, end) if is_context_visible(entries[i])), cut)
    if is_turn_start(entries[deciding]):
        return CutPoint(cut)
    turn_start = next((i for i in range(cut, start - 1, -1) if is_turn_start(entries[i])), -1)
    return CutPoint(cut, turn_start, turn_start != -1)
