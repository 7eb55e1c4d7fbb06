"""What every built-in tool shares: content blocks, the result, errors, the call context."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol


@dataclass(frozen=True, slots=True)
class TextContent:
    text: str
    type: Literal["text"] = "text"

    def to_json(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ImageContent:
    """An image for the model: base64 data and its mime type."""

    data: str
    mime_type: str
    type: Literal["image"] = "image"

    def to_json(self) -> dict[str, Any]:
        return {"type": "image", "data": self.data, "mimeType": self.mime_type}


Content = TextContent | ImageContent


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What the model receives from one tool call: content blocks, an error flag and details.

    ``details`` is for the user and the editor (truncation metadata, full-output path, diffs);
    the model never sees it. ``None`` means Pi's ``undefined`` (the key is omitted).
    """

    content: tuple[Content, ...]
    details: dict[str, Any] | None = None
    is_error: bool = False

    @classmethod
    def text(cls, text: str, details: dict[str, Any] | None = None) -> ToolResult:
        return cls(content=(TextContent(text),), details=details)

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """An error result exactly as Pi's loop makes one from a raised error."""
        return cls(content=(TextContent(message),), details={}, is_error=True)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": [block.to_json() for block in self.content]}
        if self.details is not None:
            out["details"] = self.details
        return out


class ToolError(Exception):
    """A tool failure whose message is what the model reads (Pi raises and the loop reports)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class AbortSignal:
    """Cooperative cancellation shared by a caller and a running tool (Pi's AbortSignal)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


ABORTED_MESSAGE = "Operation aborted"


@dataclass(slots=True)
class ToolContext:
    """Where and how one tool call runs.

    ``on_update`` receives partial results (Pi's throttled ``onUpdate``); ``on_output`` receives
    every decoded chunk of streamed output as it arrives, for editor panels.
    """

    cwd: Path
    signal: AbortSignal | None = None
    on_update: Callable[[ToolResult], None] | None = None
    on_output: Callable[[str], None] | None = None
    model_supports_images: bool = False
    auto_resize_images: bool = True
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    env: dict[str, str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def check_aborted(self) -> None:
        if self.signal is not None and self.signal.aborted:
            raise ToolError(ABORTED_MESSAGE)


class Tool(Protocol):
    """A built-in tool: a name, a schema the model fills in, and what running it does."""

    name: str
    label: str
    description: str
    parameters: dict[str, Any]

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """Repair common argument mistakes before validation (Pi's ``prepareArguments``)."""
        ...

    def execute(self, args: dict[str, Any], ctx: ToolContext) -> Awaitable[ToolResult]: ...
