"""What compacting a branch would do, as JSON-ready data: the dry run of a compaction.

:func:`preview_compaction` takes a root-first branch through :func:`prepare_compaction_or_reason`
as a compaction would, and reports the context tokens as Pi counts them and whether they cross
the threshold (``window − reserveTokens``), where the cut falls, which entries would be
summarized and which kept, the requests a summary would take, an estimate of the tokens after
and the files the summary would list. No model is called and nothing is written.
``pi-lsp session compact --dry-run`` prints it; the language server answers
``pi/session/compact`` with ``dryRun`` from it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.js.text import utf16_len
from pi_lsp.session.compaction import (
    CompactionPreparation,
    compaction_requests,
    prepare_compaction_or_reason,
)
from pi_lsp.session.context import UNSET, build_session_context, entry_messages
from pi_lsp.session.file_ops import format_file_operations
from pi_lsp.session.summarizer import SummaryModel, SummaryRequest
from pi_lsp.session.tokens import (
    CompactionSettings,
    estimate_context_tokens,
    estimate_message_tokens,
    estimate_messages_tokens,
    should_compact,
)

__all__ = ["CompactPreview", "preview_compaction"]

_PREVIEW_CHARS = 72

Entry = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CompactPreview:
    """Everything the dry run reports, as JSON-ready data (see :meth:`to_json`)."""

    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.data


def _preview_text(message: Mapping[str, Any]) -> str:
    role = message.get("role")
    content = message.get("content")
    if role in ("branchSummary", "compactionSummary"):
        text = str(message.get("summary", ""))
    elif role == "bashExecution":
        text = f"!{message.get('command', '')}"
    elif isinstance(content, str):
        text = content
    elif isinstance(content, list):
        pieces: list[str] = []
        for block in content:
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text":
                pieces.append(str(block.get("text", "")))
            elif kind == "thinking":
                pieces.append("[thinking]")
            elif kind == "image":
                pieces.append("[image]")
            elif kind == "toolCall":
                arguments = json.dumps(block.get("arguments"), ensure_ascii=False)
                pieces.append(f"→ {block.get('name')}({arguments})")
        text = " ".join(pieces)
    else:
        text = ""
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW_CHARS else flat[: _PREVIEW_CHARS - 1] + "…"


def _entry_row(entry: Mapping[str, Any]) -> dict[str, Any]:
    messages = entry_messages(entry)
    message = messages[0] if messages else None
    return {
        "id": entry.get("id"),
        "type": entry.get("type"),
        "role": message.get("role") if message is not None else None,
        "tokens": sum(estimate_message_tokens(m) for m in messages),
        "preview": _preview_text(message) if message is not None else "",
    }


def _context_tokens_at(path: Sequence[Entry]) -> tuple[int, int, str | None, int]:
    """(tokens, usage tokens, id of the entry whose usage counts, estimated trailing tokens)."""
    if not path:
        return 0, 0, None, 0
    leaf = path[-1].get("id")
    context = build_session_context(path, leaf if isinstance(leaf, str) else UNSET)
    owners: list[Any] = []
    for entry in context.entries:
        owners.extend(entry.get("id") for _ in entry_messages(entry))
    estimate = estimate_context_tokens(context.messages)
    index = estimate.last_usage_index
    owner = owners[index] if index is not None and index < len(owners) else None
    return estimate.tokens, estimate.usage_tokens, owner, estimate.trailing_tokens


def _kept_tokens(preparation: CompactionPreparation) -> int:
    """Tokens of the context after the compaction, the summary left out: the path with a
    stand-in compaction entry, projected as Pi would."""
    # from the first kept entry on: all the stand-in's context can reach (and all it holds)
    path = list(preparation.path_entries[preparation.first_kept_entry_index :])
    stand_in: Entry = {
        "type": "compaction",
        "id": "\0dry-run",
        "parentId": preparation.path_entries[-1].get("id") if preparation.path_entries else None,
        "timestamp": "1970-01-01T00:00:00.000Z",
        "summary": "",
        "firstKeptEntryId": preparation.first_kept_entry_id,
        "tokensBefore": preparation.tokens_before,
    }
    context = build_session_context([*path, stand_in], "\0dry-run")
    return estimate_messages_tokens(context.messages[1:])


def _request_row(kind: str, request: SummaryRequest, *, update: bool) -> dict[str, Any]:
    return {"kind": kind, "update": update, "maxTokens": request.max_tokens}


def preview_compaction(
    path: Sequence[Entry],
    settings: CompactionSettings,
    context_window: int,
) -> CompactPreview:
    """The dry-run report for a root-first branch ``path``."""
    tokens, usage_tokens, usage_id, trailing = _context_tokens_at(path)
    threshold = context_window - settings.reserve_tokens
    data: dict[str, Any] = {
        "leaf": path[-1].get("id") if path else None,
        "branchEntries": len(path),
        "settings": {
            "contextWindow": context_window,
            "reserveTokens": settings.reserve_tokens,
            "keepRecentTokens": settings.keep_recent_tokens,
        },
        "tokensBefore": tokens,
        "usageTokens": usage_tokens,
        "usageEntryId": usage_id,
        "estimatedTrailingTokens": trailing,
        "threshold": threshold,
        "thresholdCrossed": should_compact(tokens, context_window, settings),
    }
    prepared = prepare_compaction_or_reason(path, settings)
    if isinstance(prepared, str):
        data.update(compactable=False, reason=prepared)
        return CompactPreview(data)

    preparation = prepared
    first_kept = preparation.first_kept_entry_index
    cut: dict[str, Any] = {
        "firstKeptEntryId": preparation.first_kept_entry_id,
        "index": first_kept,
        "isSplitTurn": preparation.is_split_turn,
        "turnStartEntryId": (
            path[preparation.turn_start_index].get("id") if preparation.is_split_turn else None
        ),
        "piCutEntryId": (
            path[preparation.moved_cut_from].get("id")
            if preparation.moved_cut_from is not None
            else None
        ),
    }
    previous = preparation.previous_compaction_index
    model = SummaryModel(context_window=context_window)
    history, prefix = compaction_requests(preparation, model)
    requests = []
    if history is not None:
        requests.append(_request_row("history", history, update=bool(preparation.previous_summary)))
    if prefix is not None:
        requests.append(_request_row("turnPrefix", prefix, update=False))
    read_files = preparation.file_ops.read_files
    modified_files = preparation.file_ops.modified_files
    lists = format_file_operations(read_files, modified_files)
    summary_budget = sum(r["maxTokens"] for r in requests) + math.ceil(utf16_len(lists) / 4)
    kept_tokens = _kept_tokens(preparation)
    data.update(
        compactable=True,
        reason=None,
        cut=cut,
        previousCompactionId=path[previous].get("id") if previous is not None else None,
        carriesPreviousSummary=preparation.carry_previous_summary,
        requests=requests,
        summarized=[_entry_row(entry) for entry in preparation.summarized_entries],
        kept=[_entry_row(entry) for entry in preparation.kept_entries],
        summaryBudget=summary_budget,
        keptTokens=kept_tokens,
        estimatedTokensAfter=summary_budget + kept_tokens,
        readFiles=read_files,
        modifiedFiles=modified_files,
    )
    return CompactPreview(data)
