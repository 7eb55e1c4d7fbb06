"""``pi-lsp check --judge`` as a user runs it: a subprocess, a models.json, a real HTTP model.

The model is :class:`~tests.agent.http_fixtures.LocalHTTPServer` on the test's event loop; the
CLI runs as an asyncio subprocess so the server keeps answering while the test waits.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_lsp.agent.providers.transport import aclose_shared_clients
from tests.agent.http_fixtures import (
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    json_reply,
    openai_error_body,
    openai_text_reply,
)
from tests.agent.local_models import write_local_models
from tests.cli.isolated import PI_LSP, isolated_env

API_KEY = "sk-judge-cli-secret"


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str

    def diagnostics(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = json.loads(self.stdout)["diagnostics"]
        return found


def setup(tmp: Path, base_url: str | None) -> None:
    for name in ("home", "agent", "ws/docs"):
        (tmp / name).mkdir(parents=True, exist_ok=True)
    (tmp / "ws" / "AGENTS.md").write_text(
        "# Tooling\n\n- Always use pnpm to install dependencies.\n- Use npm to install packages.\n"
    )
    (tmp / "ws" / "docs" / "AGENTS.md").write_text(
        "# Docs site\n\nThe legacy site is built with yarn.\n"
    )
    if base_url is not None:
        write_local_models(tmp / "agent", base_url, API_KEY, "judge-1")


async def check(tmp: Path, *args: str) -> Done:
    env = isolated_env(tmp)
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    env.pop("OPENAI_API_KEY", None)
    process = await asyncio.create_subprocess_exec(
        str(PI_LSP),
        "check",
        "--format",
        "json",
        *args,
        cwd=tmp / "ws",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


def pairs_of(request: RecordedRequest) -> list[dict[str, Any]]:
    content = request.json()["messages"][-1]["content"]
    text = content if isinstance(content, str) else "".join(p["text"] for p in content)
    pairs: list[dict[str, Any]] = json.loads(text[text.index("{") :])["pairs"]
    return pairs


def model_says_conflict(request: RecordedRequest) -> Reply:
    pairs = pairs_of(request)
    verdicts = [
        {
            "id": p["id"],
            "verdict": "conflict",
            "earlier_quote": p["earlier"]["text"].lstrip("- "),
            "later_quote": p["later"]["text"],
            "reason": "the docs site would be built with a third package manager",
        }
        for p in pairs
    ]
    return openai_text_reply(json.dumps({"verdicts": verdicts}))


def judged(done: Done) -> list[dict[str, Any]]:
    return [d for d in done.diagnostics() if d["rule"] == "judged-conflict"]


async def test_check_judge_reports_the_models_verdict_and_caches_it(tmp_path: Path) -> None:
    async with LocalHTTPServer(handler=model_says_conflict) as server:
        setup(tmp_path, server.base_url)
        plain = await check(tmp_path)
        assert server.requests == []  # off by default
        first = await check(tmp_path, "--judge")
        assert len(server.requests) == 1
        second = await check(tmp_path, "--judge")
        assert len(server.requests) == 1  # every verdict came from the cache
    await aclose_shared_clients()

    assert judged(plain) == []
    tier1 = [d for d in plain.diagnostics() if d["rule"] == "conflicting-instructions-in-file"]
    assert len(tier1) == 1
    [finding] = judged(first)
    assert finding["code"] == "PI107" and finding["path"] == "docs/AGENTS.md"
    assert finding["severity"] == "warning"
    assert "as judged by local/judge-1" in finding["message"]
    assert "third package manager" in finding["message"]
    assert finding["related"][0]["path"] == "AGENTS.md"
    assert first.code == 1
    # the pair tier 1 already reported (pnpm against npm in one file) is not asked about
    pairs = pairs_of(server.requests[0])
    assert all("yarn" in p["later"]["text"] for p in pairs)
    assert "1 from the cache" not in first.stderr and "pairs asked in 1 requests" in first.stderr
    assert judged(second) == judged(first)
    assert "0 pairs asked in 0 requests" in second.stderr
    assert API_KEY not in first.stdout + first.stderr
    assert (tmp_path / "cache" / "pi-lsp" / "judge.json").is_file()


async def test_check_judge_falls_back_to_the_word_rules_when_the_model_fails(
    tmp_path: Path,
) -> None:
    error = json_reply(500, openai_error_body("The server had an error", kind="server_error"))
    async with LocalHTTPServer() as server:
        server.enqueue(error, error, error)
        setup(tmp_path, server.base_url)
        done = await check(tmp_path, "--judge")
    await aclose_shared_clients()

    assert judged(done) == []
    assert [d["rule"] for d in done.diagnostics()] == ["conflicting-instructions-in-file"]
    notes = [line for line in done.stderr.splitlines() if "failed" in line]
    assert len(notes) == 1, done.stderr  # said once, though the tree has two chains
    assert notes[0].startswith("pi-lsp: judge: local/judge-1 failed")
    assert notes[0].endswith("the word rules' findings only")
    assert "The server had an error" in notes[0]
    assert API_KEY not in done.stderr


async def test_check_judge_without_a_model_says_so_once(tmp_path: Path) -> None:
    setup(tmp_path, None)
    done = await check(tmp_path, "--judge")
    assert done.code == 1  # the word rules' warning still fails the check
    notes = [line for line in done.stderr.splitlines() if line.startswith("pi-lsp: judge:")]
    assert len(notes) == 1 and "no model to ask" in notes[0]
    assert [d["rule"] for d in done.diagnostics()] == ["conflicting-instructions-in-file"]


async def test_a_failed_request_for_one_chain_keeps_the_other_chains_verdicts(
    tmp_path: Path,
) -> None:
    def fails_for_docs(request: RecordedRequest) -> Reply:
        if any(p["later"]["file"] == "docs/AGENTS.md" for p in pairs_of(request)):
            return json_reply(500, openai_error_body("The docs pair broke it", kind="server_error"))
        return model_says_conflict(request)

    async with LocalHTTPServer(handler=fails_for_docs) as server:
        setup(tmp_path, server.base_url)
        (tmp_path / "ws" / "web").mkdir()
        (tmp_path / "ws" / "web" / "AGENTS.md").write_text(
            "# Web app\n\nThe legacy app is built with yarn.\n"
        )
        done = await check(tmp_path, "--judge")
    await aclose_shared_clients()

    # docs/ is judged first and fails; web/ is judged all the same
    asked = {p["later"]["file"] for r in server.requests for p in pairs_of(r)}
    assert asked == {"docs/AGENTS.md", "web/AGENTS.md"}
    assert [(d["path"], d["severity"]) for d in judged(done)] == [("web/AGENTS.md", "warning")]
    notes = [line for line in done.stderr.splitlines() if "failed" in line]
    assert len(notes) == 1, done.stderr
    assert "The docs pair broke it" in notes[0]
    assert "for 1 of the 2 chains asked about" in notes[0]
    assert done.code == 1


async def test_the_judge_reads_with_the_catalogue_the_settings_extend(tmp_path: Path) -> None:
    async with LocalHTTPServer(handler=model_says_conflict) as server:
        setup(tmp_path, server.base_url)
        (tmp_path / "ws" / "AGENTS.md").write_text("# Events\n\n- Use Zephyrbus for events.\n")
        (tmp_path / "ws" / "docs" / "AGENTS.md").write_text(
            "# Docs site\n\nThe legacy site publishes through Quokkamq.\n"
        )
        plain = await check(tmp_path, "--judge")
        assert server.requests == []  # no role names both: nothing to ask about
        role = {"name": "event-bus", "label": "event bus", "values": ["Zephyrbus", "Quokkamq"]}
        settings = {"lint": {"catalogue": [role]}}
        (tmp_path / "agent" / "settings.json").write_text(json.dumps(settings))
        extended = await check(tmp_path, "--judge")
    await aclose_shared_clients()

    assert judged(plain) == [] and "0 pairs asked" in plain.stderr
    [request] = server.requests
    assert [(p["earlier"]["text"], p["later"]["text"]) for p in pairs_of(request)] == [
        ("Use Zephyrbus for events.", "The legacy site publishes through Quokkamq.")
    ]
    [finding] = judged(extended)
    assert finding["path"] == "docs/AGENTS.md" and finding["related"][0]["path"] == "AGENTS.md"
