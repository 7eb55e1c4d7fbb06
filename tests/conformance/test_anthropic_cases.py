"""``pi-lsp chat`` against the recording fake Anthropic server, compared with what Pi 0.85.0 did.

Every case of ``anthropic_cases/`` (recorded from the real Pi by ``record_anthropic.py``) is run
again with ``python -m pi_lsp chat`` as a subprocess, over real HTTP on 127.0.0.1, with the same
agent dir (models.json pointing ``anthropic`` at the fake), environment and scripted answers.
Compared field by field: every request (method, path, the headers of
:data:`~tests.conformance.anthropic_run.HEADERS`, the JSON body — tool and parameter
descriptions and a summary request's system prompt are each side's own prose and masked), the
assistant messages made of each stream (content, stopReason, errorMessage, usage, cost), the
exit status, stderr, stdout in text mode and the event trace. The time between a failed request
and its retry is behaviour, not speed: it must be at least the delay the retry event announces
and clearly less than a longer ``retry-after`` the server asked for.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agent.fake_anthropic import FakeAnthropic
from tests.conformance.anthropic_run import (
    CASES,
    PLANTED_KEY,
    build_workspace,
    case_names,
    client_args,
    client_env,
    load_case,
    run_case,
)

PI_LSP_CHAT = [sys.executable, "-m", "pi_lsp", "chat"]
NAMES = case_names()
_DIGEST = re.compile(r"\{PI_PROSE sha256=[0-9a-f]{16}\}")


def _masked(value: Any, key: str | None = None) -> Any:
    """Descriptions and digested prose replaced by one token (each side writes its own)."""
    if isinstance(value, dict):
        return {k: _masked(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, key) for v in value]
    if isinstance(value, str) and (key == "description" or _DIGEST.fullmatch(value)):
        return "{PROSE}"
    return value


def _expected(name: str, file: str) -> Any:
    return json.loads((CASES / name / file).read_text("utf-8"))


def _retry_delays(events: list[str]) -> list[int]:
    delays = []
    for line in events:
        if line.startswith("auto_retry_start "):
            delays.append(json.loads(line.split(" ", 1)[1])["delayMs"])
    return delays


def test_there_are_enough_cases() -> None:
    assert len(NAMES) >= 25
    for name in NAMES:
        for file in ("expected-requests.json", "expected-messages.json", "observed-status.json"):
            assert (CASES / name / file).is_file(), (name, file)


def _without_updates(events: list[str]) -> list[str]:
    return [event for event in events if event != "tool_execution_update"]


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_pi(name: str, tmp_path: Path) -> None:
    observed, _ws, proc = run_case(load_case(name), tmp_path, PI_LSP_CHAT, timeout=60)
    requests = observed["expected-requests.json"]
    want_requests = _expected(name, "expected-requests.json")
    assert len(requests) == len(want_requests), proc.stderr.decode()
    for number, (got, want) in enumerate(zip(requests, want_requests, strict=True)):
        for field in ("method", "path", "headers"):
            assert got[field] == want[field], (number, field)
        got_body, want_body = _masked(got["body"]), _masked(want["body"])
        for key in sorted(set(got_body) | set(want_body)):
            assert got_body.get(key) == want_body.get(key), (number, key)
        assert list(got_body) == list(want_body), number  # key order, as Pi writes it

    assert observed["expected-messages.json"] == _expected(name, "expected-messages.json")

    status, want_status = observed["observed-status.json"], _expected(name, "observed-status.json")
    for field in ("exit", "requests", "stderr", "stdout"):
        assert status.get(field) == want_status.get(field), field
    # A tool's partial-output updates are throttled by time: how many there are, and where
    # they fall among parallel calls' events, depends on the machine's load, so they are
    # left out of the comparison (everything else keeps Pi's order).
    assert _without_updates(status["events"]) == _without_updates(want_status["events"])
    announced = _retry_delays(want_status["events"])
    delays = status["delays_ms"]
    if announced:  # in these cases every request after the first is a retry
        assert len(delays) == len(announced)
        for waited, delay_ms in zip(delays, announced, strict=True):
            # the announced wait is kept, and a server's longer retry-after is not honoured
            assert delay_ms <= waited < delay_ms + 900, (waited, delay_ms)


def test_a_failing_request_never_shows_the_key(tmp_path: Path) -> None:
    """The server echoes the key in its error; stdout, stderr and the session file hide it."""
    echo = {
        "type": "error",
        "error": {"type": "authentication_error", "message": f"invalid x-api-key {PLANTED_KEY}"},
    }
    meta = {"script": [{"http": 401, "body": echo}] * 2}
    session_dir = tmp_path / "sessions"
    with FakeAnthropic(meta["script"]) as fake:
        ws = build_workspace(meta, tmp_path, fake.base_url)
        args = [a for a in client_args(meta) if a != "--no-session"]
        for mode in ("json", "text"):
            mode_args = list(args)
            mode_args[mode_args.index("--mode") + 1] = mode
            proc = subprocess.run(
                [*PI_LSP_CHAT, "--session-dir", str(session_dir), *mode_args],
                cwd=ws.cwd,
                env=client_env(ws, meta),
                capture_output=True,
                timeout=60,
                check=False,
            )
            assert proc.returncode in (0, 1)
            assert b"invalid x-api-key" in proc.stdout + proc.stderr  # the error is shown
            assert PLANTED_KEY.encode() not in proc.stdout + proc.stderr
    assert fake.requests and fake.requests[0].header("x-api-key") == PLANTED_KEY
    files = list(session_dir.rglob("*.jsonl"))
    assert files
    for file in files:
        text = file.read_text("utf-8")
        assert "invalid x-api-key" in text
        assert PLANTED_KEY not in text
