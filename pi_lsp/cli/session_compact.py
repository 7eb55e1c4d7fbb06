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
from collections.abc import Mapping, Sequence
from typing import Any

from pi_lsp.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    report,
    write_escaped,
    write_json,
)
from pi_lsp.cli.session import read_session_for_command, require_leaf
from pi_lsp.session.compaction_preview import preview_compaction
from pi_lsp.session.tokens import CompactionSettings

__all__ = ["DEFAULT_CONTEXT_WINDOW", "run_compact_command"]

DEFAULT_CONTEXT_WINDOW = 128000


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
        return EXIT_FAILED

    if not require_leaf(session, file, opts.leaf):
        return EXIT_USAGE
    leaf = opts.leaf if opts.leaf is not None else session.leaf_id
    path = session.get_branch(leaf) if leaf is not None else []
    preview = preview_compaction(path, settings, window)
    if opts.json:
        write_json({"file": file, **preview.to_json()})
    else:
        write_escaped(_text(file, preview.to_json()))
    return EXIT_OK
