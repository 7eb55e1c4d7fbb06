"""``pi-lsp chat`` against a model that echoes every request header in its errors: no planted
credential reaches stdout, stderr or the session file, and the echo still shows, by name, that
each header was sent (its value masked)."""

from __future__ import annotations

from pathlib import Path

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
from tests.cli.test_chat import chat, entries

pytestmark = pytest.mark.timeout(120)


CASES = [
    *(("openai-completions", echo, "text") for echo in sorted(ECHOES)),
    ("openai-completions", "400 body", "json"),
    *(("anthropic-messages", echo, "text") for echo in sorted(ECHOES)),
    *(("google-generative-ai", echo, "text") for echo in sorted(ECHOES)),
    ("google-generative-ai", "400 body", "json"),
]


@pytest.mark.parametrize(("api", "echo", "mode"), CASES)
async def test_echoed_credentials_are_masked_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: str, echo: str, mode: str
) -> None:
    monkeypatch.setenv(ENV_NAME, ENV_VALUE)
    session = tmp_path / "s.jsonl"
    (tmp_path / "proj").mkdir()
    async with LocalHTTPServer(handler=ECHOES[echo]) as server:
        write_models(tmp_path / "agent", server.base_url, api)
        done = await chat(
            tmp_path, "--mode", mode, "--model", "echo/m1", "--session", str(session), "hello"
        )
    assert server.requests[0].headers["x-env-token"] == ENV_VALUE  # really sent
    # Pi's print mode exits 1 after an error answer in text mode, 0 in JSON mode (the error is
    # one of the events)
    assert done.code == (1 if mode == "text" else 0), done.stderr
    assert_clean(
        [("stdout", done.stdout), ("stderr", done.stderr), ("session", session.read_text())]
    )
    [assistant] = [
        e["message"] for e in entries(session) if e.get("message", {}).get("role") == "assistant"
    ]
    assert assistant["stopReason"] == "error"
    assert_masked_echo(assistant["errorMessage"])
    if mode == "text":
        assert_masked_echo(done.stderr)
    else:
        ends = [e["message"] for e in done.lines() if e["type"] == "message_end"]
        assert ends[-1]["errorMessage"] == assistant["errorMessage"]
