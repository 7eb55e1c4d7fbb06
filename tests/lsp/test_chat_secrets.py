"""``pi/chat`` over stdio against a model that echoes every request header in its errors: no
planted credential reaches any message the client receives (responses, ``pi/event``s, log
messages), the session file, the server's stderr or its ``--log-file``; the echo still shows
each header by name, its value masked."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent.http_fixtures import LocalHTTPServer
from tests.agent.planted_secrets import (
    ECHOES,
    ENV_NAME,
    ENV_VALUE,
    assert_clean,
    assert_masked_echo,
    write_models,
)
from tests.lsp.harness import start_client
from tests.lsp.test_chat import request

pytestmark = pytest.mark.timeout(120)


async def test_echoed_credentials_never_reach_the_client_the_session_or_the_log(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_NAME, ENV_VALUE)
    log_file = workspace / "server.log"
    received: list[str] = []  # every message the server sends, as JSON text
    results: list[dict[str, Any]] = []
    echoes = iter(ECHOES.values())
    async with LocalHTTPServer(handler=lambda r: next(echoes)(r)) as model:
        write_models(workspace / "agent", model.base_url)
        client = await start_client(workspace, serve_args=("--log-file", str(log_file)))
        structure = client.protocol.structure_message

        def record(data: dict[str, Any]) -> Any:
            if "jsonrpc" in data:
                received.append(json.dumps(data))
            return structure(data)

        client.protocol.structure_message = record  # type: ignore[method-assign]
        try:
            first = await request(client, "pi/chat", {"text": "hello", "model": "m1"})
            results.append(first)
            for _ in range(len(ECHOES) - 1):
                params = {"session": first["session"], "text": "again"}
                results.append(await request(client, "pi/chat", params))
        finally:
            with contextlib.suppress(Exception):
                await client.shutdown_session()
    sent = [r.headers for r in model.requests]
    assert len(sent) == len(ECHOES) and all(h["x-env-token"] == ENV_VALUE for h in sent)
    assert [r["stopReason"] for r in results] == ["error"] * len(ECHOES)
    for result in results:
        assert_masked_echo(result["errorMessage"])

    saved = Path(first["file"]).read_text()
    logged = log_file.read_text()
    stderr = capfd.readouterr().err
    assert_clean(
        [
            *((f"message {i}", text) for i, text in enumerate(received)),
            ("session file", saved),
            ("log file", logged),
            ("server stderr", stderr),
        ]
    )
    assert any('"pi/event"' in text for text in received)
    assert "ended with an error: 400" in logged and '"x-team-token\\": \\"***' in logged
