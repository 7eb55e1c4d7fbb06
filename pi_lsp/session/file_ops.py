"""Which files a stretch of conversation read and changed (spec §10.8).

Summaries end with the files the summarized work touched, so the model that continues knows
what to look at again. Only the assistant's tool calls count: ``read`` adds to the read set,
``write`` and ``edit`` to the modified ones, with the ``path`` argument exactly as the model
wrote it (never normalized). A summary's lists carry over to the next summary through the
``details`` of the entry that stored it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.js.text import utf16_sort_key

__all__ = ["FileOperations", "format_file_operations", "js_sorted"]


def js_sorted(values: Iterable[str]) -> list[str]:
    """``Array.prototype.sort()`` on strings: ordered by UTF-16 code units."""
    return sorted(values, key=utf16_sort_key)


def _string_list(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


@dataclass(slots=True)
class FileOperations:
    """The read, written and edited paths collected so far."""

    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def seed_from_details(self, details: Any) -> None:
        """Carry over an earlier summary's lists: ``readFiles`` as read, ``modifiedFiles`` as
        edited (anything that is not a list of strings is ignored)."""
        if not isinstance(details, Mapping):
            return
        self.read.update(_string_list(details.get("readFiles")))
        self.edited.update(_string_list(details.get("modifiedFiles")))

    def add_message(self, message: Mapping[str, Any]) -> None:
        """Record the file tool calls of an assistant message (other roles have none)."""
        if message.get("role") != "assistant":
            return
        content = message.get("content")
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, Mapping) or block.get("type") != "toolCall":
                continue
            arguments = block.get("arguments")
            path = arguments.get("path") if isinstance(arguments, Mapping) else None
            if not isinstance(path, str) or not path:
                continue
            name = block.get("name")
            if name == "read":
                self.read.add(path)
            elif name == "write":
                self.written.add(path)
            elif name == "edit":
                self.edited.add(path)

    def add_messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        for message in messages:
            self.add_message(message)

    @property
    def modified_files(self) -> list[str]:
        """Written or edited, sorted."""
        return js_sorted(self.written | self.edited)

    @property
    def read_files(self) -> list[str]:
        """Read and never written or edited, sorted."""
        return js_sorted(self.read - self.written - self.edited)

    def details(self) -> dict[str, list[str]]:
        """The ``details`` a summary entry stores: ``{readFiles, modifiedFiles}``."""
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}


def format_file_operations(read_files: Iterable[str], modified_files: Iterable[str]) -> str:
    """The tail appended to a summary: ``<read-files>`` and ``<modified-files>`` blocks, each
    after a blank line, one path per line; empty when both lists are."""
    blocks = []
    read = list(read_files)
    modified = list(modified_files)
    if read:
        blocks.append("<read-files>\n" + "\n".join(read) + "\n</read-files>")
    if modified:
        blocks.append("<modified-files>\n" + "\n".join(modified) + "\n</modified-files>")
    if not blocks:
        return ""
    return "\n\n" + "\n\n".join(blocks)
