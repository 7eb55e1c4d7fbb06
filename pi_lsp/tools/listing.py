"""What grep, find and ls share: the 50 KiB cap and the notice bracket."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_lsp.tools.base import ToolResult
from pi_lsp.tools.truncation import DEFAULT_MAX_BYTES, TruncationResult, format_size, truncate_head

#: JavaScript's ``Number.MAX_SAFE_INTEGER``: Pi's "no line limit" for these tools.
NO_LINE_LIMIT = 9007199254740991

BYTE_LIMIT_NOTICE = f"{format_size(DEFAULT_MAX_BYTES)} limit reached"

#: One thing to tell: the notice text, and the ``details`` key and value that record it.
Note = tuple[str, str, Any]


def cap_output(text: str) -> TruncationResult:
    """Keep whole lines from the start of ``text`` within 50 KiB (no line-count limit)."""
    return truncate_head(text, max_lines=NO_LINE_LIMIT)


def append_notices(text: str, notices: Sequence[str]) -> str:
    """``text`` followed by a blank line and all notices in one bracket, joined with ``". "``."""
    if not notices:
        return text
    return f"{text}\n\n[{'. '.join(notices)}]"


def details_or_none(details: dict[str, Any]) -> dict[str, Any] | None:
    """Pi leaves ``details`` undefined when nothing was noted."""
    return details or None


def capped_result(
    lines: Sequence[str], before: Sequence[Note] = (), after: Sequence[Note] = ()
) -> ToolResult:
    """``lines`` joined and capped at 50 KiB, with their notices and details in order:
    ``before``, the byte-limit note when the cap cut something, then ``after``."""
    truncation = cap_output("\n".join(lines))
    notes = list(before)
    if truncation.truncated:
        notes.append((BYTE_LIMIT_NOTICE, "truncation", truncation.to_json()))
    notes.extend(after)
    details = {key: value for _, key, value in notes}
    notices = [notice for notice, _, _ in notes]
    return ToolResult.text(append_notices(truncation.content, notices), details_or_none(details))
