"""``pi-lsp session compact FILE --dry-run``: what compacting the active branch would do.

The file is read with ``SessionFile.read`` (no lock, never written) and the branch ending at
the leaf (or ``--leaf``) goes through :func:`prepare_compaction` as a compaction would see it.
The preview shows the context tokens as Pi counts them and whether they cross the threshold
(``window − reserveTokens``), where the cut falls (entry, index on the branch, split turn),
which entries would be summarized and which kept, the requests a summary would take, an
estimate of the tokens after (the summary's output budget plus the kept messages) and the
files the summary would list. No model is called and nothing is written.

Settings come from the flags, else Pi's defaults (window 128000, reserve 16384, keep 20000).
Exit codes: 0 done (also when there is nothing to compact), 1 the file cannot be read or is
not a Pi session (the message names the file and line), 2 usage (unknown ``--leaf``, a
negative number).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.cli.output import (
    EXIT_BAD_FILE,
    EXIT_OK,
    EXIT_USAGE,
    read_session_for_command,
    report,
    require_leaf,
    write_json,
    write_text,
)
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
from pi_lsp.tools.truncation import utf16_len

__all__ = ["DEFAULT_CONTEXT_WINDOW", "CompactPreview", "preview_compaction", "run_compact_command"]

DEFAULT_CONTEXT_WINDOW = 128000
_PREVIEW_CHARS = 72

Entry = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# The preview


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


# ---------------------------------------------------------------------------------------------
# Text


def _rows(rows: Sequence[Mapping[str, Any]], limit: int = 12) -> list[str]:
    lines = []
    shown = rows if len(rows) <= limit else [*rows[: limit // 2], None, *rows[-limit // 2 :]]
    for row in shown:
        if row is None:
            lines.append(f"    … {len(rows) - 2 * (limit // 2)} more")
            continue
        role = row["role"] or row["type"]
        lines.append(f"    {row['id']}  {role:<17} {row['tokens']:>6}  {row['preview']}")
    return lines


def _text(file: str, data: Mapping[str, Any]) -> str:
    settings = data["settings"]
    out = [
        f"session   {file}",
        f"leaf      {data['leaf']} ({data['branchEntries']} entries on the branch)",
        (
            f"settings  context window {settings['contextWindow']}, reserve "
            f"{settings['reserveTokens']}, keep recent {settings['keepRecentTokens']}"
        ),
    ]
    if data["usageEntryId"] is not None:
        source = (
            f"usage {data['usageTokens']} reported at {data['usageEntryId']} + "
            f"{data['estimatedTrailingTokens']} estimated after it"
        )
    else:
        source = "no usable usage: chars/4 estimate of every message"
    out.append(f"tokens    {data['tokensBefore']} ({source})")
    crossed = "yes" if data["thresholdCrossed"] else "no"
    out.append(
        f"threshold {data['threshold']} (window - reserve): crossed {crossed}"
        + (" — Pi would compact automatically" if data["thresholdCrossed"] else "")
    )
    if not data["compactable"]:
        out.append(f"compact   nothing to do: {data['reason']}")
        return "\n".join(out) + "\n"

    cut = data["cut"]
    split = (
        f"splits the turn opened at {cut['turnStartEntryId']}"
        if cut["isSplitTurn"]
        else "at a turn start"
    )
    out.append(f"cut       before {cut['firstKeptEntryId']} (index {cut['index']}), {split}")
    if cut["piCutEntryId"] is not None:
        out.append(
            f"          Pi would cut before {cut['piCutEntryId']}, inside the range the previous "
            "compaction kept; pi-lsp cuts after that compaction instead"
        )
    if data["previousCompactionId"] is not None:
        how = (
            "carried over as the history of the split turn"
            if data["carriesPreviousSummary"]
            else "updated"
        )
        out.append(f"previous  summary of {data['previousCompactionId']} {how}")
    for request in data["requests"]:
        kind = "turn prefix" if request["kind"] == "turnPrefix" else "history"
        update = " (update)" if request["update"] else ""
        out.append(f"request   {kind} summary{update}, at most {request['maxTokens']} tokens")
    out.append(f"summarize {len(data['summarized'])} entries")
    out.extend(_rows(data["summarized"]))
    out.append(f"keep      {len(data['kept'])} entries")
    out.extend(_rows(data["kept"]))
    out.append(
        f"after     ~{data['estimatedTokensAfter']} tokens (summary budget "
        f"{data['summaryBudget']} + kept {data['keptTokens']})"
    )
    out.append("read      " + (", ".join(data["readFiles"]) or "(none)"))
    out.append("modified  " + (", ".join(data["modifiedFiles"]) or "(none)"))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# The command


def _settings(opts: argparse.Namespace) -> tuple[CompactionSettings, int] | str:
    defaults = CompactionSettings()
    values = {
        "--context-window": opts.context_window,
        "--reserve-tokens": opts.reserve_tokens,
        "--keep-recent-tokens": opts.keep_recent_tokens,
    }
    for flag, value in values.items():
        if value is not None and value < 0:
            return f"{flag} must not be negative (got {value})"
    window = opts.context_window if opts.context_window is not None else DEFAULT_CONTEXT_WINDOW
    reserve = opts.reserve_tokens if opts.reserve_tokens is not None else defaults.reserve_tokens
    keep = (
        opts.keep_recent_tokens
        if opts.keep_recent_tokens is not None
        else defaults.keep_recent_tokens
    )
    return CompactionSettings(True, reserve, keep), window


def run_compact_command(opts: argparse.Namespace) -> int:
    file = str(opts.file)
    chosen = _settings(opts)
    if isinstance(chosen, str):
        report(chosen)
        return EXIT_USAGE
    settings, window = chosen
    session = read_session_for_command(file)
    if session is None:
        return EXIT_BAD_FILE

    if not require_leaf(session, file, opts.leaf):
        return EXIT_USAGE
    leaf = opts.leaf if opts.leaf is not None else session.leaf_id
    path = session.get_branch(leaf) if leaf is not None else []
    preview = preview_compaction(path, settings, window)
    if opts.json:
        write_json({"file": file, **preview.to_json()})
    else:
        write_text(_text(file, preview.to_json()))
    return EXIT_OK
