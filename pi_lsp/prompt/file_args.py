"""Files put into a prompt, as Pi 0.85.0 sends its ``@file`` arguments.

``pi @notes.md @shot.png "question"`` reads each named file before the first message and puts
it in front of that message's text:

* a text file becomes ``<file name="ABS">\\nCONTENT\\n</file>\\n`` (a leading BOM dropped,
  bytes that are not UTF-8 replaced);
* an image (recognized by its first bytes, as ``read`` recognizes one) is attached to the
  message, prepared as ``read`` prepares images (converted, fitted with auto-resize); its text
  is ``<file name="ABS"></file>\\n``, or the hint lines of what was done to it inside the tag;
  an image that cannot be sent leaves the reason inside the tag instead;
* an empty file is skipped;
* a file that does not exist, or cannot be read, stops everything: ``File not found: ABS`` /
  ``Could not read file ABS: REASON``.

``ABS`` is the path resolved against the working directory the way ``read`` resolves paths.
The same expansion serves ``pi-lsp chat @file`` and the editor's mentions (``pi/chat``
``files``); an editor selection is sent in the same wrapper with its line range
(:func:`selection_block`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.tools.base import ImageContent
from pi_lsp.tools.images import SNIFF_BYTES, InlineImage, prepare_image, sniff_image_mime
from pi_lsp.tools.paths import resolve_read_path

__all__ = [
    "FileArgumentError",
    "FileArguments",
    "auto_resize_setting",
    "read_file_arguments",
    "selection_block",
]


class FileArgumentError(Exception):
    """A named file is missing or unreadable (the message is Pi's line, without ``Error:``)."""


@dataclass(slots=True)
class FileArguments:
    """What the files add to a message: text to put before it, and images to attach."""

    text: str = ""
    images: list[ImageContent] = field(default_factory=list)

    def image_blocks(self) -> list[dict[str, str]]:
        return [{"type": "image", "data": i.data, "mimeType": i.mime_type} for i in self.images]


async def read_file_arguments(
    paths: Iterable[str], cwd: str, *, auto_resize_images: bool = True
) -> FileArguments:
    """The text and images of ``paths`` (as typed after ``@``), in order."""
    out = FileArguments()
    for path in paths:
        absolute = os.path.abspath(resolve_read_path(path, cwd))
        try:
            data = await asyncio.to_thread(_read_bytes, absolute)
        except FileNotFoundError as error:
            raise FileArgumentError(f"File not found: {absolute}") from error
        except OSError as error:
            reason = error.strerror or str(error)
            raise FileArgumentError(f"Could not read file {absolute}: {reason}") from error
        if not data:
            continue
        mime_type = sniff_image_mime(data[:SNIFF_BYTES])
        if mime_type is None:
            out.text += f'<file name="{absolute}">\n{_text_of(data)}\n</file>\n'
            continue
        prepared = await prepare_image(data, mime_type, auto_resize=auto_resize_images)
        if not isinstance(prepared, InlineImage):
            out.text += f'<file name="{absolute}">{prepared.message}</file>\n'
            continue
        out.images.append(prepared.content())
        out.text += f'<file name="{absolute}">{chr(10).join(prepared.hints)}</file>\n'
    return out


def auto_resize_setting(settings: Mapping[str, Any]) -> bool:
    """Pi's ``images.autoResize`` setting (on unless set to ``false``)."""
    images = settings.get("images")
    return not (isinstance(images, Mapping) and images.get("autoResize") is False)


def selection_block(path: str, start_line: int, end_line: int, text: str) -> str:
    """An editor selection in the wrapper of a file argument, with its 1-based line range."""
    lines = f"{start_line}" if start_line == end_line else f"{start_line}-{end_line}"
    return f'<file name="{path}" lines="{lines}">\n{text}\n</file>\n'


def _read_bytes(path: str) -> bytes:
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a directory, not a file", path)
    with open(path, "rb") as handle:
        return handle.read()


def _text_of(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")
