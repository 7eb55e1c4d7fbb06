"""The model judge in the editor, over stdio, with a real HTTP model on 127.0.0.1.

The server runs ``pi-lsp serve`` with ``judge: true``; the agent dir's models.json points the
provider ``local`` at :class:`~tests.agent.http_fixtures.LocalHTTPServer` on the test's loop.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from pi_lsp.server.requests import plain
from tests.agent.http_fixtures import (
    HOLD,
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    json_reply,
    openai_chunk,
    openai_error_body,
    openai_text_reply,
    sse_reply,
)
from tests.agent.local_models import write_local_models
from tests.lsp.harness import WAIT, open_document, replace_document, start_client, wait_until

API_KEY = "sk-lsp-judge-secret"
OPTIONS = {"judge": True, "judgeIdleMs": 0}


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in ("home", "agent", "ws/docs"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "ws" / "AGENTS.md").write_text(
        "# Tooling\n\n- Always use pnpm to install dependencies.\n"
    )
    (tmp_path / "ws" / "docs" / "AGENTS.md").write_text(
        "# Docs site\n\nThe legacy site is built with yarn.\n"
    )
    return tmp_path / "ws"


def write_models(tmp: Path, base_url: str) -> None:
    write_local_models(tmp / "agent", base_url, API_KEY, "judge-1")


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
            "earlier_quote": "use pnpm",
            "later_quote": "built with yarn",
            "reason": "the docs would need a second package manager",
        }
        for p in pairs
    ]
    return openai_text_reply(json.dumps({"verdicts": verdicts}))


def judged(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == "PI107"]


async def judge_now(client: LanguageClient) -> dict[str, Any]:
    result = await asyncio.wait_for(client.protocol.send_request_async("pi/judge", {}), WAIT)
    found: dict[str, Any] = plain(result)
    return found


async def built(client: LanguageClient) -> None:
    """Wait for the first rebuild (files without findings get no publish to wait for)."""
    while True:
        status = plain(await client.protocol.send_request_async("pi/status", {}))
        if status["rebuilds"] >= 1:
            return
        await asyncio.sleep(0.05)


def save(client: LanguageClient, path: Path) -> None:
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(path.as_uri()))
    )


def judge_progress(client: LanguageClient) -> list[list[Any]]:
    return [
        reports
        for reports in client.progress_reports.values()
        if reports
        and isinstance(reports[0], types.WorkDoneProgressBegin)
        and "judging" in reports[0].title
    ]


async def test_a_save_judges_the_chain_once_and_the_verdict_is_cached(ws: Path) -> None:
    docs = ws / "docs" / "AGENTS.md"
    async with LocalHTTPServer(handler=model_says_conflict) as model:
        write_models(ws.parent, model.base_url)
        client = await start_client(ws.parent, options=OPTIONS)
        try:
            await built(client)
            assert model.requests == []  # no keystroke, no save: nothing asked
            save(client, docs)
            [finding] = judged(await wait_until(client, docs, lambda found: judged(found)))
            assert finding.severity == types.DiagnosticSeverity.Warning
            assert "as judged by local/judge-1" in finding.message
            assert "second package manager" in finding.message
            assert len(model.requests) == 1

            [progress] = judge_progress(client)
            assert progress[0].cancellable is True
            assert isinstance(progress[-1], types.WorkDoneProgressEnd)

            again = await judge_now(client)  # a steady state: every verdict from the cache
            assert again["requests"] == 0 and again["cached"] == 1 and again["findings"] == 1
            assert len(model.requests) == 1
            assert (ws.parent / "cache" / "pi-lsp" / "judge.json").is_file()
        finally:
            await client.shutdown_session()


async def test_cancelling_the_progress_stops_the_request(ws: Path) -> None:
    async with LocalHTTPServer() as model:
        model.enqueue(sse_reply([openai_chunk({"role": "assistant", "content": "{"}), HOLD]))
        write_models(ws.parent, model.base_url)
        client = await start_client(ws.parent, options=OPTIONS)
        try:
            await built(client)
            running = asyncio.ensure_future(judge_now(client))
            while not (model.requests and judge_progress(client)):
                await asyncio.sleep(0.02)
            token = next(
                token
                for token, reports in client.progress_reports.items()
                if reports and reports in judge_progress(client)
            )
            client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token))
            assert await asyncio.wait_for(running, WAIT) == {"enabled": True, "cancelled": True}
            await asyncio.wait_for(model.client_gone.wait(), WAIT)
            [progress] = judge_progress(client)
            assert isinstance(progress[-1], types.WorkDoneProgressEnd)
            assert progress[-1].message == "cancelled"
        finally:
            await client.shutdown_session()


async def test_a_failing_model_falls_back_to_the_word_rules_and_says_so_once(ws: Path) -> None:
    docs = ws / "docs" / "AGENTS.md"
    error = json_reply(500, openai_error_body("The server had an error", kind="server_error"))
    async with LocalHTTPServer() as model:
        model.enqueue(error, error)
        write_models(ws.parent, model.base_url)
        client = await start_client(ws.parent, options=OPTIONS)
        try:
            await built(client)
            first = await judge_now(client)
            second = await judge_now(client)
            assert "The server had an error" in first["error"]
            assert second["error"] == first["error"]
            assert len(model.requests) == 2
            said = [m.message for m in client.messages if "judge" in m.message]
            assert len(said) == 1, said
            assert "word rules' findings only" in said[0] and API_KEY not in said[0]
            assert judged(list(client.diagnostics.get(docs.as_uri(), []))) == []
        finally:
            await client.shutdown_session()


async def test_the_judge_is_off_unless_enabled(ws: Path) -> None:
    async with LocalHTTPServer(handler=model_says_conflict) as model:
        write_models(ws.parent, model.base_url)
        client = await start_client(ws.parent)
        try:
            docs = ws / "docs" / "AGENTS.md"
            await built(client)
            save(client, docs)
            assert await judge_now(client) == {"enabled": False}
            assert model.requests == []
        finally:
            await client.shutdown_session()


async def test_idle_judging_and_an_edit_hides_the_verdict_until_it_is_judged_again(
    ws: Path,
) -> None:
    docs = ws / "docs" / "AGENTS.md"
    async with LocalHTTPServer(handler=model_says_conflict) as model:
        write_models(ws.parent, model.base_url)
        client = await start_client(ws.parent, options={"judge": True, "judgeIdleMs": 300})
        try:
            await wait_until(client, docs, lambda found: judged(found))  # idle after loading
            assert len(model.requests) == 1
            open_document(client, docs)
            edited = "# Docs site\n\nThe legacy site is built with yarn and Vite.\n"
            replace_document(client, docs, edited, 2)
            await wait_until(client, docs, lambda found: not judged(found))  # stale: hidden
            [finding] = judged(await wait_until(client, docs, lambda found: judged(found)))
            assert finding.range.start.line == 2
            assert len(model.requests) == 2
            assert [p["later"]["text"] for p in pairs_of(model.requests[1])] == [
                "The legacy site is built with yarn and Vite."
            ]
        finally:
            await client.shutdown_session()


async def test_a_failed_request_for_one_chain_keeps_the_other_chains_verdicts(ws: Path) -> None:
    web = ws / "web" / "AGENTS.md"
    web.parent.mkdir()
    web.write_text("# Web app\n\nThe legacy app is built with yarn.\n")

    def fails_for_docs(request: RecordedRequest) -> Reply:
        if any(p["later"]["file"] == "docs/AGENTS.md" for p in pairs_of(request)):
            return json_reply(500, openai_error_body("The docs pair broke it", kind="server_error"))
        return model_says_conflict(request)

    async with LocalHTTPServer(handler=fails_for_docs) as model:
        write_models(ws.parent, model.base_url)
        client = await start_client(ws.parent, options=OPTIONS)
        try:
            await built(client)
            result = await judge_now(client)
            assert "The docs pair broke it" in result["error"]
            assert result["requests"] == 2 and result["findings"] == 1
            [finding] = judged(await wait_until(client, web, lambda found: judged(found)))
            assert "second package manager" in finding.message
            docs = ws / "docs" / "AGENTS.md"
            assert judged(list(client.diagnostics.get(docs.as_uri(), []))) == []
            said = [m.message for m in client.messages if "judge" in m.message]
            assert len(said) == 1, said
            assert "for 1 of the 2 chains asked about" in said[0]
        finally:
            await client.shutdown_session()
