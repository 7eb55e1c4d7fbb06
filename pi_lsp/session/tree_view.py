"""A session's entry tree as something to look at: one short line per entry, drawn as a tree.

Long linear runs are the common case (a thousand entries without a fork), so the view is
built from *segments*: a run of entries where each one is the only child of the one before,
followed by the segments that fork off its last entry. Drawn as text, a segment stays at one
indentation level and only forks indent; as JSON, nesting depth grows with the number of forks
on a path, not with its length. Both walks are iterative.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.session.entries import (
    TYPE_BRANCH_SUMMARY,
    TYPE_COMPACTION,
    TYPE_CUSTOM,
    TYPE_CUSTOM_MESSAGE,
    TYPE_LABEL,
    TYPE_MESSAGE,
    TYPE_MODEL_CHANGE,
    TYPE_SESSION_INFO,
    TYPE_THINKING_LEVEL_CHANGE,
    Entry,
)
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.tree import TreeNode

__all__ = [
    "EntryBrief",
    "Segment",
    "TreeView",
    "brief_text",
    "build_tree_view",
    "describe_entry",
    "render_tree_text",
    "tree_view_json",
]

_TEXT_WIDTH = 60
_SPACES = re.compile(r"\s+")


@dataclass(slots=True)
class EntryBrief:
    """What one line of the tree says about an entry."""

    entry_id: str | None
    parent_id: str | None
    entry_type: str
    timestamp: str | None
    description: str
    label: str | None = None
    is_leaf: bool = False
    on_active_path: bool = False
    fields: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.entry_id,
            "parentId": self.parent_id,
            "type": self.entry_type,
            "timestamp": self.timestamp,
            "description": self.description,
        }
        out.update(self.fields)
        if self.label is not None:
            out["label"] = self.label
        out["leaf"] = self.is_leaf
        out["activePath"] = self.on_active_path
        return out


@dataclass(slots=True)
class Segment:
    """A run of entries, each the only child of the previous, and the forks after the last."""

    entries: list[EntryBrief] = field(default_factory=list)
    children: list[Segment] = field(default_factory=list)


@dataclass(slots=True)
class TreeView:
    """The whole picture: header facts, the segments from each root, and counts by type."""

    path: str | None
    session_id: str
    version: Any
    migrated_from: int | float | None
    cwd: str
    parent_session: str | None
    name: str | None
    leaf_id: str | None
    entry_count: int
    counts: dict[str, int]
    roots: list[Segment]


# ---------------------------------------------------------------------------------------------
# Describing entries


def brief_text(text: str, width: int = _TEXT_WIDTH) -> str:
    """The first words of ``text`` on one line (whitespace runs become one space)."""
    flat = _SPACES.sub(" ", text).strip()
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return brief_text(line)
    return ""


def _content_text(content: Any) -> tuple[str, int]:
    """Text of a message content (a string or blocks) and how many images it holds."""
    if isinstance(content, str):
        return content, 0
    texts: list[str] = []
    images = 0
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "image":
                images += 1
    return "\n".join(texts), images


def _quoted(text: str) -> str:
    short = brief_text(text)
    return f'"{short}"' if short else ""


def _join(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def _describe_message(message: Mapping[str, Any], fields: dict[str, Any]) -> str:
    role = message.get("role")
    role_text = role if isinstance(role, str) else "?"
    fields["role"] = role_text
    content = message.get("content")
    text, images = _content_text(content)
    image_note = f"+{images} image{'s' if images != 1 else ''}" if images else ""
    if role == "assistant":
        tools = [
            str(block.get("name"))
            for block in content or []
            if isinstance(block, dict) and block.get("type") == "toolCall"
        ]
        if tools:
            fields["toolNames"] = tools
        notes = ""
        stop = message.get("stopReason")
        if stop == "error":
            error = message.get("errorMessage")
            notes = f"[error: {brief_text(error, 40)}]" if isinstance(error, str) else "[error]"
        elif stop == "aborted":
            notes = "[aborted]"
        calls = "→ " + ", ".join(tools) if tools else ""
        if not text and not tools and not notes:
            thinking = any(
                isinstance(b, dict) and b.get("type") == "thinking" for b in content or []
            )
            notes = "(thinking only)" if thinking else "(empty)"
        return _join("assistant", _quoted(text), calls, notes)
    if role == "toolResult":
        name = message.get("toolName")
        if isinstance(name, str):
            fields["toolNames"] = [name]
        error = "[error]" if message.get("isError") is True else ""
        return _join(
            "toolResult", name if isinstance(name, str) else "", _quoted(text), image_note, error
        )
    if role == "bashExecution":
        command = message.get("command")
        code = message.get("exitCode")
        exit_note = f"(exit {code})" if isinstance(code, int) and code != 0 else ""
        cancelled = "(cancelled)" if message.get("cancelled") is True else ""
        excluded = "[not in context]" if message.get("excludeFromContext") is True else ""
        shown = "$ " + brief_text(command) if isinstance(command, str) else ""
        return _join("bashExecution", shown, exit_note, cancelled, excluded)
    if role == "custom":
        custom_type = message.get("customType")
        return _join("custom", custom_type if isinstance(custom_type, str) else "", _quoted(text))
    return _join(role_text, _quoted(text), image_note)


def describe_entry(entry: Entry, fields: dict[str, Any]) -> str:
    """A one-line description of ``entry``; facts worth a JSON field go into ``fields``."""
    entry_type = entry.get("type")
    if entry_type == TYPE_MESSAGE:
        message = entry.get("message")
        if isinstance(message, dict):
            return _describe_message(message, fields)
        return "message (no message)"
    if entry_type == TYPE_MODEL_CHANGE:
        fields["provider"] = entry.get("provider")
        fields["modelId"] = entry.get("modelId")
        return f"model_change {entry.get('provider')}/{entry.get('modelId')}"
    if entry_type == TYPE_THINKING_LEVEL_CHANGE:
        fields["thinkingLevel"] = entry.get("thinkingLevel")
        return f"thinking_level_change {entry.get('thinkingLevel')}"
    if entry_type == TYPE_COMPACTION:
        summary = entry.get("summary")
        first = _first_line(summary) if isinstance(summary, str) else ""
        fields["summary"] = first
        fields["firstKeptEntryId"] = entry.get("firstKeptEntryId")
        fields["tokensBefore"] = entry.get("tokensBefore")
        kept = entry.get("firstKeptEntryId")
        tokens = entry.get("tokensBefore")
        return _join(
            "compaction",
            f'"{first}"' if first else "(empty summary)",
            f"(keeps from {kept if isinstance(kept, str) else 'nothing'}"
            + (f", {tokens} tokens before)" if isinstance(tokens, int | float) else ")"),
        )
    if entry_type == TYPE_BRANCH_SUMMARY:
        summary = entry.get("summary")
        first = _first_line(summary) if isinstance(summary, str) else ""
        fields["summary"] = first
        fields["fromId"] = entry.get("fromId")
        return _join(
            "branch_summary", f"from {entry.get('fromId')}", f'"{first}"' if first else "(empty)"
        )
    if entry_type == TYPE_LABEL:
        fields["targetId"] = entry.get("targetId")
        label = entry.get("label")
        shown = f'"{brief_text(label)}"' if isinstance(label, str) and label else "cleared"
        return f"label on {entry.get('targetId')} {shown}"
    if entry_type == TYPE_SESSION_INFO:
        name = entry.get("name")
        return _join("session_info", f'"{brief_text(name)}"' if isinstance(name, str) else "")
    if entry_type in (TYPE_CUSTOM, TYPE_CUSTOM_MESSAGE):
        custom_type = entry.get("customType")
        fields["customType"] = custom_type
        text = ""
        if entry_type == TYPE_CUSTOM_MESSAGE:
            text = _quoted(_content_text(entry.get("content"))[0])
        return _join(str(entry_type), str(custom_type), text)
    return str(entry_type) if entry_type is not None else "(no type)"


# ---------------------------------------------------------------------------------------------
# Building the view


def _brief(entry: Entry, session: SessionFile, active: set[str]) -> EntryBrief:
    fields: dict[str, Any] = {}
    description = describe_entry(entry, fields)
    entry_id = entry.get("id")
    parent_id = entry.get("parentId")
    timestamp = entry.get("timestamp")
    key = entry_id if isinstance(entry_id, str) else None
    return EntryBrief(
        entry_id=key,
        parent_id=parent_id if isinstance(parent_id, str) else None,
        entry_type=str(entry.get("type")),
        timestamp=timestamp if isinstance(timestamp, str) else None,
        description=description,
        label=session.get_label(key) if key is not None else None,
        is_leaf=key is not None and key == session.leaf_id,
        on_active_path=key is not None and key in active,
        fields=fields,
    )


def build_tree_view(session: SessionFile) -> TreeView:
    """The tree of ``session`` as segments, with the leaf and active path marked."""
    active = {entry_id for entry_id in session.get_branch_ids() if isinstance(entry_id, str)}
    roots: list[Segment] = []
    pending: list[tuple[Segment, TreeNode]] = []
    for node in session.get_tree():
        segment = Segment()
        roots.append(segment)
        pending.append((segment, node))
    while pending:
        segment, node = pending.pop()
        while True:
            segment.entries.append(_brief(node.entry, session, active))
            if len(node.children) != 1:
                break
            node = node.children[0]
        for child in node.children:
            child_segment = Segment()
            segment.children.append(child_segment)
            pending.append((child_segment, child))
    counts: dict[str, int] = {}
    for kind in session.entry_types():
        counts[str(kind)] = counts.get(str(kind), 0) + 1
    parent = session.header.get("parentSession")
    return TreeView(
        path=session.path,
        session_id=session.session_id,
        version=session.header.get("version"),
        migrated_from=session.migrated_from,
        cwd=session.cwd,
        parent_session=parent if isinstance(parent, str) else None,
        name=session.session_name,
        leaf_id=session.leaf_id,
        entry_count=len(session.entries),
        counts=counts,
        roots=roots,
    )


# ---------------------------------------------------------------------------------------------
# Text


def _count(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _entry_line(brief: EntryBrief, tree_prefix: str) -> str:
    mark = "* " if brief.on_active_path else "  "
    parts = [f"{mark}{tree_prefix}{brief.entry_id or '(no id)'} {brief.description}"]
    if brief.label is not None:
        parts.append(f"[label: {brief.label}]")
    if brief.is_leaf:
        parts.append("← leaf")
    return "  ".join(parts)


def render_tree_text(view: TreeView) -> str:
    """The view as text: a few header lines, then one line per entry.

    ``*`` marks the active path (root to leaf); forks are drawn with ``├─``/``└─``.
    """
    version = f"version {view.version}"
    if view.migrated_from is not None:
        version += f" (migrated in memory from version {view.migrated_from})"
    lines = [f"Session {view.session_id}  {version}"]
    if view.path is not None:
        lines.append(f"File    {view.path}")
    lines.append(f"Cwd     {view.cwd}")
    if view.parent_session is not None:
        lines.append(f"Parent  {view.parent_session}")
    if view.name is not None:
        lines.append(f'Name    "{view.name}"')
    facts = [_count(view.entry_count, "entry", "entries")]
    facts.append(f"leaf {view.leaf_id}" if view.leaf_id is not None else "no leaf")
    if view.counts.get(TYPE_COMPACTION):
        facts.append(_count(view.counts[TYPE_COMPACTION], "compaction", "compactions"))
    if view.counts.get(TYPE_BRANCH_SUMMARY):
        facts.append(_count(view.counts[TYPE_BRANCH_SUMMARY], "branch summary", "branch summaries"))
    lines.append("Tree    " + " · ".join(facts))
    lines.append("")
    if not view.roots:
        lines.append("(no entries)")
        return "\n".join(lines) + "\n"
    single_root = len(view.roots) == 1
    # (segment, prefix for its lines, connector for its first line, continuation after it)
    stack: list[tuple[Segment, str, str, str]] = []
    for index, root in reversed(list(enumerate(view.roots))):
        if single_root:
            stack.append((root, "", "", ""))
        else:
            last = index == len(view.roots) - 1
            stack.append((root, "", "└─ " if last else "├─ ", "   " if last else "│  "))
    while stack:
        segment, prefix, connector, continuation = stack.pop()
        for position, brief in enumerate(segment.entries):
            lines.append(
                _entry_line(brief, prefix + (connector if position == 0 else continuation))
            )
        child_prefix = prefix + continuation
        count = len(segment.children)
        for index in range(count - 1, -1, -1):
            last = index == count - 1
            stack.append(
                (
                    segment.children[index],
                    child_prefix,
                    "└─ " if last else "├─ ",
                    "   " if last else "│  ",
                )
            )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# JSON


def _segments_json(roots: Sequence[Segment]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack: list[tuple[Segment, list[dict[str, Any]]]] = [(root, out) for root in reversed(roots)]
    while stack:
        segment, target = stack.pop()
        children: list[dict[str, Any]] = []
        target.append(
            {"entries": [brief.to_json() for brief in segment.entries], "children": children}
        )
        stack.extend((child, children) for child in reversed(segment.children))
    return out


def tree_view_json(view: TreeView) -> dict[str, Any]:
    """The view as JSON data: header facts and ``roots``, a list of segments
    (``{"entries": [...], "children": [segments forking off the last entry]}``)."""
    return {
        "file": view.path,
        "sessionId": view.session_id,
        "version": view.version,
        "migratedFrom": view.migrated_from,
        "cwd": view.cwd,
        "parentSession": view.parent_session,
        "name": view.name,
        "leafId": view.leaf_id,
        "entryCount": view.entry_count,
        "countsByType": view.counts,
        "roots": _segments_json(view.roots),
    }
