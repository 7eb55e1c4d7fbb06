"""An in-process Provider that answers from a script, as the conformance oracle's fake model does.

Each request takes the next item of the script (``shared/oracle/fake_openai.py``,
``shared/conformance/README.md``) and streams what Pi 0.85's OpenAI-compatible provider makes
of the fake model's answer:

* ``{"text": …}`` — ``start``, ``text_start``, one ``text_delta`` per 40 characters (the
  fake model's chunks), ``text_end``, ``done``;
* ``{"tool_calls": [{"name", "arguments", "id"?}]}`` — one ``toolcall_start`` / ``_delta`` /
  ``_end`` per call, ids ``call_{request}_{n}`` unless given;
* ``{"error": status, "message", "code"?}`` — only an ``error`` event (no ``start``: the HTTP
  error comes before any stream), ``errorMessage = "{status}: " + JSON of the error object``;
* ``"finish_reason"`` (``stop`` / ``length`` / ``tool_calls``), ``"usage": {"prompt_tokens",
  "completion_tokens"}`` (default 100 / 10), ``responseId = "chatcmpl-{request}"``;
* when the script runs out: ``{"text": "ok"}``.

Test-only items: ``{"hang": true, "text"?, "usage"?}`` streams the text, then waits for the
abort signal (``hold`` lets a test release it instead); ``{"raise": "msg"}`` raises inside the
stream; ``{"ignore_abort": true}`` waits forever, whatever the signal says;
``"retry_after_ms"`` rides on an error event. Every request is recorded in ``requests``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import Any

from pi_lsp.agent.model_api import ModelInfo, ModelRequest, empty_usage
from pi_lsp.js.json import json_stringify
from pi_lsp.tools.base import AbortSignal

__all__ = ["ORACLE_MODEL", "ScriptedProvider", "oracle_model", "oracle_usage"]

CHUNK = 40
_STOP_REASONS = {"stop": "stop", "length": "length", "tool_calls": "toolUse"}


def oracle_model(context_window: int = 128_000, max_tokens: int = 16_384) -> ModelInfo:
    """The oracle's fake model (``models.json`` of ``pi-oracle``)."""
    return ModelInfo(
        id="oracle-model",
        provider="oracle",
        api="openai-completions",
        base_url="http://127.0.0.1:9/v1",
        context_window=context_window,
        max_tokens=max_tokens,
        cost={"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    )


ORACLE_MODEL = oracle_model()


def oracle_usage(prompt_tokens: int = 100, completion_tokens: int = 10) -> dict[str, Any]:
    """The usage Pi stores for the fake model's usage chunk."""
    return {
        "input": prompt_tokens,
        "output": completion_tokens,
        "cacheRead": 0,
        "cacheWrite": 0,
        "reasoning": 0,
        "totalTokens": prompt_tokens + completion_tokens,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


class ScriptedProvider:
    """See the module docstring. ``hold`` (set by a test) releases ``hang`` items."""

    def __init__(self, script: Iterable[Mapping[str, Any]] = ()) -> None:
        self.script = [dict(item) for item in script]
        self.requests: list[ModelRequest] = []
        self.hold = asyncio.Event()
        #: set when a ``hang`` item has streamed its text and waits
        self.hanging = asyncio.Event()

    @classmethod
    def from_case(cls, case: Path) -> ScriptedProvider:
        path = case / "script.json"
        return cls(json.loads(path.read_text()) if path.exists() else [])

    def stream(
        self, request: ModelRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        index = len(self.requests)
        self.requests.append(request)
        item = self.script[index] if index < len(self.script) else {"text": "ok"}
        return self._stream(index, item, request.model, signal)

    async def _stream(
        self, index: int, item: dict[str, Any], model: ModelInfo, signal: AbortSignal | None
    ) -> AsyncIterator[dict[str, Any]]:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": [],
            "api": model.api,
            "provider": model.provider,
            "model": model.id,
            "usage": empty_usage(),
            "stopReason": "pending",
            "timestamp": int(time.time() * 1000),
        }
        if "raise" in item:
            raise RuntimeError(str(item["raise"]))
        if "error" in item:
            body = {
                "message": item.get("message", "error"),
                "type": "invalid_request_error",
                "code": item.get("code"),
            }
            message["stopReason"] = "error"
            message["errorMessage"] = f"{item['error']}: {json_stringify(body)}"
            event: dict[str, Any] = {"type": "error", "reason": "error", "error": message}
            if "retry_after_ms" in item:
                event["retryAfterMs"] = item["retry_after_ms"]
            yield event
            return

        yield {"type": "start", "partial": message}
        text = item.get("text") or ""
        if text:
            blocks = message["content"]
            blocks.append({"type": "text", "text": ""})
            position = len(blocks) - 1
            yield {"type": "text_start", "contentIndex": position, "partial": message}
            for start in range(0, len(text), CHUNK):
                await asyncio.sleep(0)
                if signal is not None and signal.aborted:
                    yield self._aborted(message)
                    return
                delta = text[start : start + CHUNK]
                blocks[position]["text"] += delta
                yield {
                    "type": "text_delta",
                    "contentIndex": position,
                    "delta": delta,
                    "partial": message,
                }
            yield {
                "type": "text_end",
                "contentIndex": position,
                "content": text,
                "partial": message,
            }
        for number, call in enumerate(item.get("tool_calls") or []):
            block = {
                "type": "toolCall",
                "id": call.get("id", f"call_{index}_{number}"),
                "name": call["name"],
                "arguments": {},
            }
            message["content"].append(block)
            position = len(message["content"]) - 1
            yield {"type": "toolcall_start", "contentIndex": position, "partial": message}
            arguments = call.get("arguments", {})
            block["arguments"] = arguments
            yield {
                "type": "toolcall_delta",
                "contentIndex": position,
                "delta": json.dumps(arguments),
                "partial": message,
            }
            yield {
                "type": "toolcall_end",
                "contentIndex": position,
                "toolCall": block,
                "partial": message,
            }

        usage = item.get("usage") or {}
        if item.get("hang") or item.get("ignore_abort"):
            message["usage"] = oracle_usage(
                usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
            )
            self.hanging.set()
            if item.get("ignore_abort"):
                await asyncio.Event().wait()
            waiters = [asyncio.ensure_future(self.hold.wait())]
            if signal is not None:
                waiters.append(asyncio.ensure_future(signal.wait()))
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
            if signal is not None and signal.aborted:
                yield self._aborted(message)
                return

        finish = item.get("finish_reason") or ("tool_calls" if item.get("tool_calls") else "stop")
        message["usage"] = oracle_usage(
            usage.get("prompt_tokens", 100), usage.get("completion_tokens", 10)
        )
        message["stopReason"] = _STOP_REASONS.get(finish, "stop")
        message["responseId"] = f"chatcmpl-{index}"
        message["rawStopReason"] = finish
        yield {"type": "done", "reason": message["stopReason"], "message": message}

    @staticmethod
    def _aborted(message: dict[str, Any]) -> dict[str, Any]:
        message["stopReason"] = "aborted"
        message["errorMessage"] = "Request was aborted"
        return {"type": "error", "reason": "aborted", "error": message}
