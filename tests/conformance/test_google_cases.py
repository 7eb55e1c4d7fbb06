"""``pi-lsp chat`` against the fake Gemini, case by case, compared with what Pi 0.85.0 did.

Each case of ``google_cases/`` (recorded by ``record_google.py`` from the real Pi; see
:mod:`tests.conformance.google_golden`) runs the console script in a subprocess, with the same
arguments, agent dir and script, against the recording fake Gemini server on 127.0.0.1. Then,
field by field: every request (method, path with the model and ``?alt=sse``, the API's headers —
the key in ``x-goog-api-key`` — and the JSON body with tool descriptions masked), the assistant
messages made of each stream (content with signatures, stopReason, errorMessage, usage, cost,
responseId), the auto-retry events, and the exit status. The key never reaches what pi-lsp prints.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import google_golden as golden
from tests.conformance.google_fake import serve
from tests.shared_data import REPO

PI_LSP = Path(sys.executable).parent / "pi-lsp"
CASES = sorted(p.name for p in golden.CASES.iterdir() if (p / "case.json").exists())


def expected(case: Path, name: str, default: Any = None) -> Any:
    path = case / name
    return json.loads(path.read_text("utf-8")) if path.exists() else default


async def run_case(case: Path, tmp: Path) -> dict[str, Any]:
    """pi-lsp's requests, messages, retry events and exit codes for ``case``."""
    meta, script = golden.load_case(case)
    run = golden.Run(tmp)
    ids = golden.IdNames()
    codes: list[int] = []
    outputs: list[str] = []
    async with serve(script) as server:
        golden.prepare(run, meta, server.base_url)
        env = golden.env_for(run, dict(os.environ))
        env["PYTHONPATH"] = str(REPO)
        for number, step in enumerate(golden.runs(meta)):
            process = await asyncio.create_subprocess_exec(
                str(PI_LSP),
                "chat",
                *golden.cli_args(step, run, first=number == 0),
                cwd=run.cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(process.communicate(), 60)
            assert process.returncode is not None
            codes.append(process.returncode)
            outputs += [out.decode("utf-8", "replace"), err.decode("utf-8", "replace")]
    events = [e for text in outputs[::2] for e in golden.json_lines(text)]
    return {
        "requests": [
            golden.normalize_request(r.method, r.path, r.headers, r.body, run, ids)
            for r in server.requests
        ],
        "messages": golden.assistant_messages(events, run, ids),
        "retries": golden.retry_events(events),
        "codes": codes,
        "outputs": outputs,
    }


@pytest.mark.parametrize("name", CASES)
async def test_pi_lsp_talks_to_gemini_as_pi_does(name: str, tmp_path: Path) -> None:
    case = golden.CASES / name
    got = await run_case(case, tmp_path)
    status = expected(case, "observed-status.json")
    stderr = "\n".join(got["outputs"][1::2])

    requests = expected(case, "expected-requests.json")
    assert len(got["requests"]) == status["requests"], stderr
    for number, (ours, pis) in enumerate(zip(got["requests"], requests, strict=True)):
        for key in ("method", "path", "headers", "body"):
            assert ours[key] == pis[key], f"request {number + 1}: {key}"

    messages = expected(case, "expected-messages.json")
    assert len(got["messages"]) == len(messages), stderr
    for number, (ours, pis) in enumerate(zip(got["messages"], messages, strict=True)):
        assert list(ours) == list(pis), f"message {number + 1}: its fields"
        for key in pis:
            assert ours[key] == pis[key], f"message {number + 1}: {key}"

    assert got["retries"] == expected(case, "expected-retries.json", [])
    assert got["codes"] == status["exit"], stderr
    assert all(golden.API_KEY not in text for text in got["outputs"])
