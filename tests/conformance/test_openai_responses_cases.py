"""``pi-lsp chat`` against OpenAI's Responses API does what Pi 0.85.0 did in each recorded case.

Each case of ``openai_responses_cases/`` (recorded by ``record_openai_responses.py`` from the
real Pi against :class:`~tests.conformance.responses_fake.ResponsesFake`) is replayed: the
same fake plays the same script over real HTTP on 127.0.0.1, ``pi-lsp chat`` runs as a
subprocess with the arguments Pi got (built-in ``openai`` provider, base URL and key from the
environment and the agent dir), and the test compares, under the recording's normalization,

* every request: path, the headers a client chooses, the body field by field (tool
  descriptions and summarization prompts masked as in the recording);
* every final assistant message: content (with the signatures Pi keeps for replay),
  stopReason, errorMessage, usage and cost, responseId, rawStopReason;
* the exit status, and the retry and compaction events with their payloads.

The models come from pi-lsp's built-in catalogue (Pi's), only their base URL pointed at the
fake, as the recording pointed Pi's.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.record_openai_responses import (
    CASES_DIR,
    observe,
    work_dir,
)

PI_LSP = Path(sys.executable).parent / "pi-lsp"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if (p / "case.json").is_file())


def _load(case: str, name: str) -> Any:
    return json.loads((CASES_DIR / case / name).read_text("utf-8"))


def _without_descriptions(value: Any) -> Any:
    """Tool definitions with every description as one placeholder: pi-lsp's tools describe
    themselves in their own words (names, schemas and order must still be Pi's)."""
    if isinstance(value, dict):
        return {
            k: "{DESCRIPTION}" if k == "description" else _without_descriptions(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


def _payload_events(trace: list[Any]) -> list[Any]:
    return [entry for entry in trace if isinstance(entry, dict)]


@pytest.mark.parametrize("name", CASES)
async def test_pi_lsp_talks_to_the_responses_api_as_pi_does(name: str) -> None:
    case = _load(name, "case.json")
    expected_requests = _load(name, "requests.json")
    expected_messages = _load(name, "messages.json")
    status = _load(name, "status.json")

    work = work_dir()  # the recording's path length (the cwd is in the system prompt)
    try:
        seen = await observe(case, work, [str(PI_LSP), "chat"])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stderr = seen["status"]["stderr"]
    assert len(seen["requests"]) == len(expected_requests), stderr
    for number, (ours, pis) in enumerate(zip(seen["requests"], expected_requests, strict=True)):
        where = f"request {number + 1}"
        assert ours["path"] == pis["path"], where
        assert ours["headers"] == pis["headers"], where
        assert list(ours["body"]) == list(pis["body"]), f"{where}: body keys"
        for key, value in pis["body"].items():
            mine = ours["body"][key]
            if key == "tools":
                mine, value = _without_descriptions(mine), _without_descriptions(value)
            assert mine == value, f"{where}: body.{key}"
    assert len(seen["messages"]) == len(expected_messages), stderr
    for ours, pis in zip(seen["messages"], expected_messages, strict=True):
        assert list(ours) == list(pis)
        for key, value in pis.items():
            assert ours[key] == value, f"message.{key}"
    assert seen["status"]["exit"] == status["exit"], stderr
    assert _payload_events(seen["status"]["trace"]) == _payload_events(status["trace"])
    assert "{API_KEY}" not in stderr and "{API_KEY}" not in json.dumps(seen["messages"])
