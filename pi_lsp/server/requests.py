"""What the request handlers of every feature share: the error a request fails with, the
readers of its params, and whether the client has asked the server to shut down.

The readers raise :class:`~pygls.exceptions.JsonRpcInvalidParams` naming the method and the
key, so each feature checks its params in the same words.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from pi_lsp.agent.providers.config import ModelsConfigError
from pi_lsp.resources.agent_dir import resolve_agent_dir
from pi_lsp.server.convert import path_of
from pi_lsp.server.event_stream import Event
from pi_lsp.server.language_server import PiLanguageServer

#: LSP's RequestFailed: the request was well formed but could not be carried out.
REQUEST_FAILED = int(types.LSPErrorCodes.RequestFailed)
#: Seconds the work of a cancelled request (a ``pi/runTool`` tool, a chat's agent run) gets to
#: wind down after its abort before it is cancelled outright. A chat's wind-down holds the
#: model stream's own grace (``agent.loop.ABORT_GRACE_SECONDS``) and then its tools'.
ABORT_GRACE = 10.0
#: The notification that carries the events of a long request (``pi/runTool``, ``pi/chat``, …).
EVENT_METHOD = "pi/event"
#: Seconds a feature's shutdown waits for its aborted requests to answer.
SHUTDOWN_WAIT = ABORT_GRACE + 1


# --- errors -----------------------------------------------------------------------------------


def failed(message: str, data: Any = None) -> JsonRpcException:
    return JsonRpcException(message, code=REQUEST_FAILED, data=data)


def config_failure(error: ModelsConfigError) -> JsonRpcException:
    return failed(str(error), {"path": error.path, "line": error.line, "column": error.column})


# --- params -----------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """JSON-like data as plain dicts and lists.

    pygls hands the params of a custom request over as namedtuples (nested ones too); tools
    want the dicts the client sent.
    """
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {str(k): plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def is_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def read_params(params: Any, method: str) -> dict[str, Any]:
    raw = plain(params)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise JsonRpcInvalidParams(f"{method}: params must be an object")
    return raw


def string_param(
    raw: Mapping[str, Any], key: str, method: str, *, required: bool = False
) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise JsonRpcInvalidParams(f"{method}: '{key}' must be a non-empty string")
    return value


def flag_param(raw: Mapping[str, Any], key: str, method: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise JsonRpcInvalidParams(f"{method}: '{key}' must be true or false")
    return value


def path_param(ls: PiLanguageServer, value: str) -> str:
    path = path_of(value) if value.startswith("file:") else value
    return os.path.abspath(os.path.join(ls.state.root, os.path.expanduser(path)))


def cwd_param(ls: PiLanguageServer, value: object, method: str) -> str:
    """The working directory a request names (a path or a ``file:`` URI, relative to the
    workspace root); the root when it names none."""
    if value is None or value == "":
        return ls.state.root
    if not isinstance(value, str):
        raise JsonRpcInvalidParams(f"{method}: cwd must be a path, got {value!r}")
    path = path_of(value) if value.startswith("file:") else value
    return os.path.abspath(os.path.join(ls.state.root, path))


# --- the server -------------------------------------------------------------------------------


def agent_dir_of(ls: PiLanguageServer) -> str:
    """The agent dir the server loads from (the setting, else the environment or the home)."""
    return resolve_agent_dir(ls.state.settings.agent_dir)


def shut_down(ls: PiLanguageServer) -> bool:
    """Whether the client asked the server to shut down: then nothing more is sent (the
    runs still going are being torn down, and the output may already be closed)."""
    return bool(getattr(ls.protocol, "_shutdown", False))


def event_sender(ls: PiLanguageServer) -> Callable[[Event], None]:
    """A sender of ``pi/event`` notifications that never raises: after shutdown it sends
    nothing, and when the client is gone the run must still end (its tools die), so a failed
    send is logged once and the rest are dropped."""
    failed_once = False

    def send(event: Event) -> None:
        nonlocal failed_once
        if shut_down(ls):
            return
        try:
            ls.protocol.notify(EVENT_METHOD, event)
        except Exception:
            if not failed_once:
                logging.getLogger(__name__).exception("sending %s failed", EVENT_METHOD)
            failed_once = True

    return send
