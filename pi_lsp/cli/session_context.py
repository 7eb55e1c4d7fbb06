"""``pi-lsp session context FILE [--leaf ID] [--json]``: the messages a model would get.

The session is read with ``SessionFile.read`` (no lock; an old version is migrated in memory
only: the file is never written), projected at the leaf as Pi projects it
(``build_session_context``) and converted with ``convert_to_llm``. The terminal listing shows
each message's role and text, tool calls with their arguments, tool results, and a placeholder
for each image; ``--json`` prints the converted messages as they are.

Pi's projection falls back to the last entry for an unknown leaf; this command refuses an
unknown ``--leaf`` instead (a stale or mistyped id would otherwise show another branch).
Exit codes: 0 done, 1 the file cannot be read or is not a Pi session, 2 usage (unknown
``--leaf``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from pi_lsp.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    write_escaped,
    write_json,
)
from pi_lsp.cli.session import read_session_for_command, require_leaf
from pi_lsp.js.json import json_stringify
from pi_lsp.session.context import UNSET, SessionContext, Unset, build_session_context
from pi_lsp.session.llm_messages import convert_to_llm

__all__ = ["run_context_command"]


# --- terminal listing ----------------------------------------------------------------------------


def _compact_json(value: Any) -> str:
    return json_stringify(value, key_order="insertion")


def _image_placeholder(block: Mapping[str, Any]) -> str:
    data = block.get("data")
    size = ""
    if isinstance(data, str):
        size = f", {len(data) * 3 // 4 - len(data) + len(data.rstrip('='))} bytes"
    return f"[image {block.get('mimeType', '?')}{size}]"


def _block_lines(block: Any) -> list[str]:
    if not isinstance(block, Mapping):
        return [_compact_json(block)]
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", ""))]
    if kind == "image":
        return [_image_placeholder(block)]
    if kind == "thinking":
        if block.get("redacted"):
            return ["[thinking, redacted]"]
        return ["[thinking]", str(block.get("thinking", ""))]
    if kind == "toolCall":
        arguments = _compact_json(block.get("arguments"))
        return [f"→ tool call {block.get('name')} ({block.get('id')}) {arguments}"]
    return [_compact_json(block)]


def _content_lines(content: Any) -> list[str]:
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [line for block in content for line in _block_lines(block)]
    return [_compact_json(content)]


def _title(number: int, message: Mapping[str, Any]) -> str:
    role = message.get("role")
    if role == "toolResult":
        title = f"[{number}] tool result {message.get('toolName')} ({message.get('toolCallId')})"
        return title + (" — error" if message.get("isError") else "")
    if role == "assistant":
        stop = message.get("stopReason")
        if stop in ("error", "aborted"):
            detail = message.get("errorMessage")
            suffix = f": {detail}" if detail else ""
            return f"[{number}] assistant — {stop}, not replayed to the model{suffix}"
        return f"[{number}] assistant" + (f" ({stop})" if stop else "")
    return f"[{number}] {role}"


def _model_text(model: Mapping[str, Any] | None) -> str:
    if model is None:
        return "none"
    return f"{model.get('provider')}/{model.get('modelId')}"


def _listing(leaf: str | None, context: SessionContext, messages: list[dict[str, Any]]) -> str:
    count = len(messages)
    header = (
        f"leaf {leaf or 'none'} · {count} message{'' if count == 1 else 's'} · "
        f"thinking {context.thinking_level} · model {_model_text(context.model)}"
    )
    blocks = [header]
    for number, message in enumerate(messages, start=1):
        blocks.append("\n".join([_title(number, message), *_content_lines(message.get("content"))]))
    return "\n\n".join(blocks) + "\n"


def run_context_command(opts: argparse.Namespace) -> int:
    path = str(opts.file)
    session = read_session_for_command(path)
    if session is None:
        return EXIT_FAILED

    if not require_leaf(session, path, opts.leaf):
        return EXIT_USAGE
    entries = session.entries  # read through the session: entries kept in its file stay there
    leaf_arg: str | Unset = UNSET if opts.leaf is None else opts.leaf
    leaf = session.leaf_id if opts.leaf is None else opts.leaf
    context = build_session_context(entries, leaf_arg)
    messages = convert_to_llm(context.messages)

    if opts.json:
        payload = {
            "leaf": leaf,
            "thinkingLevel": context.thinking_level,
            "model": context.model,
            "messages": messages,
        }
        write_json(payload)
    else:
        write_escaped(_listing(leaf, context, messages))
    return EXIT_OK
