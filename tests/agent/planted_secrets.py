"""Credentials planted in a models.json, and a model server that echoes every request header
back in its errors — to check that none of them reaches anything pi-lsp writes or shows.

The values come from every place a credential can come from: a literal ``apiKey``, literal
provider and model headers, a header read from the environment and one printed by a command.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tests.agent.http_fixtures import (
    RecordedRequest,
    Reply,
    anthropic_events,
    json_reply,
    sse_reply,
)

API_KEY = "sk-planted-apikey-5f1e2d9c"
ENV_NAME = "PLANTED_TEAM_TOKEN"
ENV_VALUE = "env-resolved-secret-a93b"
HEADERS = {
    "X-Team-Token": "team-literal-secret-81c7",
    "X-Env-Token": f"${ENV_NAME}",
    "X-Cmd-Token": "!printf cmd-printed-secret-77d0",
}
MODEL_HEADERS = {"X-Model-Token": "model-literal-secret-4be2"}

#: What must never appear in any output.
SECRETS = (
    API_KEY,
    ENV_VALUE,
    "team-literal-secret-81c7",
    "cmd-printed-secret-77d0",
    "model-literal-secret-4be2",
)


def write_models(agent_dir: Path, base_url: str, api: str = "openai-completions") -> None:
    """A models.json whose provider ``echo`` (speaking ``api``) sends every planted
    credential; retries off."""
    models = {
        "providers": {
            "echo": {
                "baseUrl": base_url + ("/v1" if api == "openai-completions" else ""),
                "api": api,
                "apiKey": API_KEY,
                "headers": HEADERS,
                "models": [{"id": "m1", "headers": MODEL_HEADERS}],
            }
        }
    }
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps(models, indent=2))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))


def _echo(request: RecordedRequest) -> str:
    return "request rejected; you sent " + json.dumps(dict(request.headers))


def echo_400(request: RecordedRequest) -> Reply:
    return json_reply(400, {"error": {"message": _echo(request), "type": "invalid_request"}})


def echo_500(request: RecordedRequest) -> Reply:
    return json_reply(500, {"error": {"message": _echo(request), "type": "server_error"}})


def echo_in_stream(request: RecordedRequest) -> Reply:
    """A 200 event stream whose first event is an error quoting the headers (each API's
    way: OpenAI's ``error`` chunk, Anthropic's ``error`` event, Gemini's bare error object)."""
    error = {"message": _echo(request), "type": "server_error"}
    if ":streamGenerateContent" in request.path:  # Gemini: its error object as the body
        google = {"error": {"code": 500, "message": _echo(request), "status": "INTERNAL"}}
        return sse_reply([json.dumps(google)])
    if request.path.split("?")[0].endswith("/messages"):  # Anthropic: /v1/messages?beta=true
        return sse_reply(anthropic_events(("error", {"type": "error", "error": error})))
    return sse_reply([{"error": error}])


ECHOES: dict[str, Callable[[RecordedRequest], Reply]] = {
    "400 body": echo_400,
    "500 body": echo_500,
    "stream error event": echo_in_stream,
}


def assert_clean(outputs: Iterable[tuple[str, str]]) -> None:
    """No planted value in any ``(name, text)``."""
    for name, text in outputs:
        for secret in SECRETS:
            assert secret not in text, f"{secret} leaked into {name}"


def assert_masked_echo(text: str) -> None:
    """The echoed headers are still there, by name, with their values masked."""
    shown = {name: "***" for name in ("x-team-token", "x-env-token", "x-cmd-token")}
    shown["x-model-token"] = "***"
    if "authorization" in text:
        shown["authorization"] = "Bearer ***"
    elif "x-goog-api-key" in text:
        shown["x-goog-api-key"] = "***"
    else:
        shown["x-api-key"] = "***"
    for name, masked in shown.items():
        pair = f'"{name}": "{masked}"'
        assert pair in text or json.dumps(pair)[1:-1] in text, (pair, text)


def texts_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
