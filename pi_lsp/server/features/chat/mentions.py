"""What the editor's prompt box can put into a prompt: ``@`` files, ``/`` commands, attachments.

- ``pi/complete/files`` — workspace files and folders for an ``@`` mention, best fuzzy matches
  first (:mod:`pi_lsp.server.file_index`, one index per root, kept between queries);
- ``pi/complete/commands`` — the prompt templates (``/name``) and skills (``/skill:name``) of
  the loaded resources, with their descriptions;
- :func:`attachments` — ``pi/chat``'s ``files``, ``selections`` and ``images``: the files read
  as Pi reads its ``@file`` arguments (:mod:`pi_lsp.prompt.file_args`), put in front of the
  (already expanded) text; images refused with a clear error when the model takes none.

The protocol is described in ``docs/protocol.md``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.agent.model_api import ModelInfo
from pi_lsp.prompt.file_args import FileArgumentError, read_file_arguments, selection_block
from pi_lsp.server.file_index import FileIndex
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import failed, path_param, read_params, string_param
from pi_lsp.tools.images import InlineImage, prepare_image

COMPLETE_FILES = "pi/complete/files"
COMPLETE_COMMANDS = "pi/complete/commands"

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
#: Image types a pasted or dropped image may have (what providers take inline).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class FileIndexes:
    """The server's file indexes, by root (a feature state: :meth:`shutdown` drops them)."""

    def __init__(self) -> None:
        self.by_root: dict[str, FileIndex] = {}

    def of(self, root: str) -> FileIndex:
        index = self.by_root.get(root)
        if index is None:
            index = self.by_root[root] = FileIndex(root)
        return index

    async def shutdown(self) -> None:
        self.by_root.clear()


def _cwd(ls: PiLanguageServer, raw: Mapping[str, Any], method: str) -> str:
    cwd = string_param(raw, "cwd", method)
    return path_param(ls, cwd) if cwd is not None else ls.state.root


def _limit(raw: Mapping[str, Any], method: str) -> int:
    limit = raw.get("limit", DEFAULT_LIMIT)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise JsonRpcInvalidParams(f"{method}: 'limit' must be a whole number from 1 to 500")
    return limit


async def complete_files(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
    raw = read_params(params, COMPLETE_FILES)
    query = raw.get("query", "")
    if not isinstance(query, str):
        raise JsonRpcInvalidParams(f"{COMPLETE_FILES}: 'query' must be text")
    index = ls.feature_state(FileIndexes).of(_cwd(ls, raw, COMPLETE_FILES))
    matches = await index.search(query, _limit(raw, COMPLETE_FILES))
    return {
        "cwd": index.root,
        "items": [
            {"path": m.path + ("/" if m.is_dir else ""), "kind": "folder" if m.is_dir else "file"}
            for m in matches
        ],
        "indexed": len(index.entries or ()),
        "truncated": index.truncated,
    }


def complete_commands(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
    raw = read_params(params, COMPLETE_COMMANDS)
    prefix = (string_param(raw, "prefix", COMPLETE_COMMANDS) or "").removeprefix("/").lower()
    resources = ls.state.snapshot(_cwd(ls, raw, COMPLETE_COMMANDS))
    items = [
        {"name": t.name, "insert": f"/{t.name}", "description": t.description, "kind": "template"}
        for t in resources.templates
    ] + [
        {
            "name": f"skill:{s.name}",
            "insert": f"/skill:{s.name}",
            "description": s.description,
            "kind": "skill",
        }
        for s in resources.skills
    ]
    chosen = [item for item in items if item["name"].lower().startswith(prefix)]
    chosen += [i for i in items if prefix and prefix in i["name"].lower() and i not in chosen]
    return {"items": chosen[: _limit(raw, COMPLETE_COMMANDS)]}


# --- pi/chat attachments ------------------------------------------------------------------


@dataclass(slots=True)
class Attached:
    """What a prompt's attachments add: text before the prompt, images after it."""

    text: str
    images: list[dict[str, str]]


def has_attachments(raw: Mapping[str, Any]) -> bool:
    return any(raw.get(key) for key in ("files", "selections", "images"))


async def attachments(
    raw: Mapping[str, Any], method: str, cwd: str, model: ModelInfo, auto_resize: bool
) -> Attached:
    """The files, selections and images a ``pi/chat`` request attaches (checked first)."""
    files = _list_of(raw, "files", method, lambda v: isinstance(v, str) and v != "")
    selections = _list_of(raw, "selections", method, _is_selection)
    pasted = _list_of(raw, "images", method, _is_image)
    try:
        read = await read_file_arguments(files, cwd, auto_resize_images=auto_resize)
    except FileArgumentError as error:
        raise failed(f"{method}: {error}") from error
    text = read.text + "".join(
        selection_block(s["path"], s["startLine"], s["endLine"], s["text"]) for s in selections
    )
    images = read.image_blocks()
    for image in pasted:
        data = base64.b64decode(image["data"])
        prepared = await prepare_image(data, image["mimeType"], auto_resize=auto_resize)
        if not isinstance(prepared, InlineImage):
            raise failed(f"{method}: a pasted image cannot be sent: {prepared.message}")
        images.append({"type": "image", "data": prepared.data, "mimeType": prepared.mime_type})
    if images and not model.accepts_images:
        raise failed(
            f"{method}: {model.provider}/{model.id} does not accept images; "
            "remove the images or choose a model that accepts them"
        )
    return Attached(text, images)


def _list_of(raw: Mapping[str, Any], key: str, method: str, check: Any) -> list[Any]:
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(check(item) for item in value):
        raise JsonRpcInvalidParams(f"{method}: '{key}' is not a list of {_SHAPES[key]}")
    return value


_SHAPES = {
    "files": "paths",
    "selections": "{path, startLine, endLine, text}",
    "images": "{mimeType, data} with a PNG, JPEG, GIF or WEBP image in base64",
}


def _is_selection(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    start, end = value.get("startLine"), value.get("endLine")
    return (
        isinstance(value.get("path"), str)
        and isinstance(value.get("text"), str)
        and isinstance(start, int)
        and isinstance(end, int)
        and 1 <= start <= end
    )


def _is_image(value: Any) -> bool:
    if not isinstance(value, Mapping) or value.get("mimeType") not in IMAGE_TYPES:
        return False
    data = value.get("data")
    if not isinstance(data, str) or not data:
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def register(server: PiLanguageServer) -> None:
    server.feature_state(FileIndexes)

    @server.feature(COMPLETE_FILES)
    async def files(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return await complete_files(ls, params)

    @server.feature(COMPLETE_COMMANDS)
    def commands(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return complete_commands(ls, params)
