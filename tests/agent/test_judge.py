"""The model judge (tier 2) over real HTTP: a local scripted model answers the one batched request.

``pi_lsp.lint.judge`` builds the request and reads the answer; ``pi_lsp.agent.one_shot`` sends it
through the OpenAI provider to :class:`~tests.agent.http_fixtures.LocalHTTPServer`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.model_api import ModelInfo
from pi_lsp.agent.one_shot import one_shot
from pi_lsp.agent.providers.config import ResolvedModel
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.lint.judge import (
    JUDGED,
    SYSTEM_PROMPT,
    VerdictCache,
    WorkspaceChain,
    judge_chain,
    judge_workspace,
)
from tests.agent.http_fixtures import (
    HOLD,
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    anthropic_text_reply,
    json_reply,
    openai_chunk,
    openai_error_body,
    openai_text_reply,
    sse_reply,
)

MODEL = "local/judge-1"

ROOT_TEXT = """# Tooling

- Always use pnpm to install dependencies.
- Never commit generated files to the repository.
"""
DOCS_TEXT = """# Docs site

The legacy site is built with npm.

- Commit the generated files in dist so the site deploys.
"""


def chain(tmp: Path, docs: str = DOCS_TEXT) -> list[tuple[str, str]]:
    return [(str(tmp / "AGENTS.md"), ROOT_TEXT), (str(tmp / "docs" / "AGENTS.md"), docs)]


def resolved(server: LocalHTTPServer) -> ResolvedModel:
    info = ModelInfo(
        id="judge-1",
        provider="local",
        api="openai-completions",
        base_url=server.base_url + "/v1",
        max_tokens=2000,
    )
    return ResolvedModel(model=info, api_key=Secret("sk-judge-test"))


def pairs_of(request: RecordedRequest) -> list[dict[str, Any]]:
    """The pairs a request asks about (the JSON after the first line of the user message)."""
    messages = request.json()["messages"]
    user = messages[-1]["content"]
    text = user if isinstance(user, str) else "".join(p["text"] for p in user)
    pairs: list[dict[str, Any]] = json.loads(text[text.index("{") :])["pairs"]
    return pairs


def system_of(request: RecordedRequest) -> str:
    first = request.json()["messages"][0]
    content = first["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def answer(
    pairs: list[dict[str, Any]], verdict: str = "conflict", later_quote: str | None = None
) -> Reply:
    """What a careful model says: every pair with ``verdict``, quoting both texts."""
    items = [
        {
            "id": pair["id"],
            "verdict": verdict,
            "earlier_quote": pair["earlier"]["text"].lstrip("- "),
            "later_quote": later_quote or pair["later"]["text"],
            "reason": f"pair {pair['id']}: one tool or rule, two answers",
        }
        for pair in pairs
    ]
    return openai_text_reply(json.dumps({"verdicts": items}))


def scripted(verdict: str = "conflict", later_quote: str | None = None) -> Any:
    def handler(request: RecordedRequest) -> Reply:
        return answer(pairs_of(request), verdict, later_quote)

    return handler


async def test_one_request_holds_every_pair_and_the_verdicts_become_findings(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted()
    cache = VerdictCache(str(tmp_path / "cache" / "judge.json"))
    run = await judge_chain(
        chain(tmp_path), one_shot(resolved(server)), MODEL, cache, root=str(tmp_path)
    )

    assert run.error is None
    [request] = server.requests  # one batched request for the chain
    assert request.path == "/v1/chat/completions"
    assert "JSON only" in system_of(request) and system_of(request) == SYSTEM_PROMPT
    pairs = pairs_of(request)
    texts = {(p["earlier"]["text"], p["later"]["text"]) for p in pairs}
    assert texts == {
        ("Always use pnpm to install dependencies.", "The legacy site is built with npm."),
        (
            "Never commit generated files to the repository.",
            "Commit the generated files in dist so the site deploys.",
        ),
    }
    first = pairs[0]
    assert first["earlier"]["file"] == "AGENTS.md" and first["later"]["file"] == "docs/AGENTS.md"
    assert first["earlier"]["heading"] == "Tooling" and first["later"]["heading"] == "Docs site"

    assert run.asked == 2 and run.requests == 1 and run.cached == 0
    assert [f.rule for f in run.findings] == [JUDGED, JUDGED]
    npm = next(f for f in run.findings if "npm" in f.message or f.where.start_line == 2)
    assert npm.where.path == str(tmp_path / "docs" / "AGENTS.md")
    assert npm.severity == "warning"
    assert "as judged by local/judge-1" in npm.message
    assert "one tool or rule, two answers" in npm.message  # the model's one-line reason
    assert npm.related[0].where.path == str(tmp_path / "AGENTS.md")


async def test_a_second_run_asks_nothing_and_an_edit_asks_only_about_changed_text(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted()
    path = str(tmp_path / "cache" / "judge.json")
    ask = one_shot(resolved(server))
    first = await judge_chain(chain(tmp_path), ask, MODEL, VerdictCache(path))
    assert len(server.requests) == 1 and len(first.findings) == 2

    again = await judge_chain(chain(tmp_path), ask, MODEL, VerdictCache(path))  # a new process
    assert len(server.requests) == 1  # no HTTP call at all
    assert again.cached == 2 and again.asked == 0
    assert [f.message for f in again.findings] == [f.message for f in first.findings]

    edited = DOCS_TEXT.replace("built with npm", "built with npm and deployed by CI")
    third = await judge_chain(chain(tmp_path, edited), ask, MODEL, VerdictCache(path))
    assert len(server.requests) == 2
    [pair] = pairs_of(server.requests[1])  # only the pair whose text changed
    assert pair["later"]["text"] == "The legacy site is built with npm and deployed by CI."
    assert third.cached == 1 and third.asked == 1

    other_model = await judge_chain(chain(tmp_path), ask, "local/other", VerdictCache(path))
    assert other_model.asked == 2  # verdicts are per model


async def test_a_verdict_is_kept_for_its_own_pair_of_files_only(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted()
    path = str(tmp_path / "cache" / "judge.json")
    ask = one_shot(resolved(server))
    ws = tmp_path / "ws"
    await judge_chain(chain(ws), ask, MODEL, VerdictCache(path), root=str(ws))
    assert len(server.requests) == 1

    # the same two files in another checkout of the repository: the verdicts hold
    clone = tmp_path / "clone"
    again = await judge_chain(chain(clone), ask, MODEL, VerdictCache(path), root=str(clone))
    assert len(server.requests) == 1 and again.cached == 2

    # the same sentences, but the later file is another folder's: judged anew
    web = [(str(ws / "AGENTS.md"), ROOT_TEXT), (str(ws / "web" / "AGENTS.md"), DOCS_TEXT)]
    moved = await judge_chain(web, ask, MODEL, VerdictCache(path), root=str(ws))
    assert len(server.requests) == 2 and moved.cached == 0 and moved.asked == 2
    assert {p["later"]["file"] for p in pairs_of(server.requests[1])} == {"web/AGENTS.md"}


#: credentials of every shape the judge masks, pasted into context files by mistake
SECRETS = (
    "sk-proj-Q7vX2mN9pL4kR8sT1wY6zA3b",
    "ghp_5fGh7JkL9mN2pQ4rS6tU8vW0xY1zA3bC",
    "github_pat_11AB2CD3E0fGhIjKlMnOpQ_rStUvWxYz0123456789",
    "xoxb-2048-9081726354-AbCdEfGhIjKl",
    "AKIAZ7Q3LX5RT2MNV8PW",
    "MIIEpAIBAAKCAQEA3Tz2mF9x",
    "hunter2-staging",
    "Zx81kQ_p0o9i8u7y6t5r4e3w2q1lkjhgfds",
    "c0ffee4d2b9e8f7a6c5b4a39281706f5e4d3c2b1",
)
SECRET_ROOT = f"""# Tooling

- Always use pnpm to install dependencies; the registry token is {SECRETS[0]}.
- Never commit generated files to the repository.

-----BEGIN RSA PRIVATE KEY-----
{SECRETS[5]}
-----END RSA PRIVATE KEY-----
"""
SECRET_DOCS = f"""# Docs site ({SECRETS[1]})

The legacy site is built with npm, DB_PASSWORD={SECRETS[6]} and key {SECRETS[3]}.

- Commit the generated files in dist with `{SECRETS[2]}` and {SECRETS[4]}.
- Deploy with "api_key": "{SECRETS[7]}" from build {SECRETS[8]}.
"""


async def test_no_credential_in_a_context_file_is_sent_and_quotes_of_the_masked_text_stand(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted()  # quotes each sentence as it was sent
    files = [
        (str(tmp_path / "AGENTS.md"), SECRET_ROOT),
        (str(tmp_path / "docs" / "AGENTS.md"), SECRET_DOCS),
    ]
    run = await judge_chain(files, one_shot(resolved(server)), MODEL, VerdictCache(None))
    [request] = server.requests
    body = request.body.decode()
    assert [s for s in SECRETS if s in body or json.dumps(s)[1:-1] in body] == []
    assert "[secret]" in body and "PRIVATE KEY" not in body
    sent = [p["later"]["text"] for p in pairs_of(request)]
    assert "The legacy site is built with npm, DB_PASSWORD=[secret] and key [secret]." in sent
    assert pairs_of(request)[0]["later"]["heading"] == "Docs site ([secret])"
    # the model quoted what it saw: the verdicts stand, and the findings point at the file
    assert run.error is None and run.discarded == 0 and len(run.findings) == run.asked >= 2
    assert all(f.where.path == files[1][0] for f in run.findings)


async def test_a_verdict_quoting_words_not_in_the_file_is_discarded(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted(later_quote="Always use yarn for the docs.")
    cache = VerdictCache(str(tmp_path / "judge.json"))
    run = await judge_chain(chain(tmp_path), one_shot(resolved(server)), MODEL, cache)
    assert len(server.requests) == 1
    assert run.findings == [] and run.discarded == 2
    assert len(cache) == 0  # a discarded verdict is not remembered either


async def test_compatible_and_scoped_verdicts_report_nothing_and_override_informs(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    ask = one_shot(resolved(server))
    for verdict in ("compatible", "scoped"):
        server.handler = scripted(verdict)
        run = await judge_chain(chain(tmp_path), ask, MODEL, VerdictCache(None))
        assert run.findings == [] and run.asked == 2
    server.handler = scripted("override")
    run = await judge_chain(chain(tmp_path), ask, MODEL, VerdictCache(None))
    assert {f.severity for f in run.findings} == {"information"}
    assert all(f.message.startswith("Overrides ") for f in run.findings)


async def test_cancelling_the_run_hangs_up_on_the_model_and_keeps_no_verdict(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.enqueue(sse_reply([openai_chunk({"role": "assistant", "content": "{"}), HOLD]))
    path = tmp_path / "judge.json"
    task = asyncio.create_task(
        judge_chain(chain(tmp_path), one_shot(resolved(server)), MODEL, VerdictCache(str(path)))
    )
    while not server.requests:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)  # the model has started to answer
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(server.client_gone.wait(), 5)
    assert not path.exists()


async def test_a_provider_error_falls_back_with_the_reason(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.enqueue(json_reply(401, openai_error_body("Incorrect API key", kind="invalid_key")))
    run = await judge_chain(
        chain(tmp_path), one_shot(resolved(server)), MODEL, VerdictCache(str(tmp_path / "j"))
    )
    assert run.findings == [] and run.error is not None
    assert "Incorrect API key" in run.error
    assert "sk-judge-test" not in run.error


async def test_a_corrupt_cache_file_is_ignored_and_rewritten(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted()
    path = tmp_path / "judge.json"
    path.write_text('{"version": "1", "verdicts": {"x": ')
    run = await judge_chain(
        chain(tmp_path), one_shot(resolved(server)), MODEL, VerdictCache(str(path))
    )
    assert len(run.findings) == 2
    saved = json.loads(path.read_text())
    assert len(saved["verdicts"]) == 2
    assert list(tmp_path.iterdir()) == [path]  # no temp file left behind


async def test_an_anthropic_model_is_asked_the_same_way(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    def handler(request: RecordedRequest) -> Reply:
        body = request.json()
        user = body["messages"][-1]["content"]
        text = user if isinstance(user, str) else "".join(p["text"] for p in user)
        pairs = json.loads(text[text.index("{") :])["pairs"]
        verdicts = [
            {
                "id": p["id"],
                "verdict": "conflict",
                "earlier_quote": p["earlier"]["text"],
                "later_quote": p["later"]["text"],
                "reason": "disagree",
            }
            for p in pairs
        ]
        return anthropic_text_reply(json.dumps({"verdicts": verdicts}))

    server.handler = handler
    info = ModelInfo(
        id="claude-judge",
        provider="anthropic",
        api="anthropic-messages",
        base_url=server.base_url,
        max_tokens=2000,
    )
    ask = one_shot(ResolvedModel(model=info, api_key=Secret("sk-ant-judge")))
    run = await judge_chain(chain(tmp_path), ask, "anthropic/claude-judge", VerdictCache(None))
    [request] = server.requests
    assert request.path == "/v1/messages?beta=true"
    body = request.json()
    system = body["system"]
    assert [block["text"] for block in system] == [SYSTEM_PROMPT]
    assert body.get("tools") in (None, [])
    assert len(run.findings) == 2 and run.error is None


async def test_a_workspace_run_keeps_cached_verdicts_and_other_chains_when_a_request_fails(
    server: LocalHTTPServer, tmp_path: Path
) -> None:
    server.handler = scripted()
    path = str(tmp_path / "judge.json")
    ask = one_shot(resolved(server))
    # both pairs of docs/ are judged and cached
    await judge_chain(chain(tmp_path), ask, MODEL, VerdictCache(path), root=str(tmp_path))

    edited = DOCS_TEXT + "- Always use yarn for the docs.\n"  # a new pair for docs/
    web = [
        (str(tmp_path / "AGENTS.md"), ROOT_TEXT),
        (str(tmp_path / "web" / "AGENTS.md"), DOCS_TEXT),
    ]

    def fails_for_docs(request: RecordedRequest) -> Reply:
        if any(p["later"]["file"].startswith("docs/") for p in pairs_of(request)):
            return json_reply(500, openai_error_body("docs broke it", kind="server_error"))
        return answer(pairs_of(request))

    server.handler = fails_for_docs
    chains = [WorkspaceChain(tuple(chain(tmp_path, edited))), WorkspaceChain(tuple(web))]
    seen: list[tuple[int, int]] = []
    judgement = await judge_workspace(
        chains,
        ask,
        MODEL,
        VerdictCache(path),
        root=str(tmp_path),
        progress=lambda *n: seen.append(n),
    )
    assert seen == [(0, 2), (1, 2)]
    docs_run, web_run = (c.run for c in judgement.chains)
    assert docs_run.error is not None and "docs broke it" in docs_run.error
    assert docs_run.cached == 2 and len(docs_run.findings) == 2  # the cache still speaks
    assert web_run.error is None and web_run.asked == 2 and len(web_run.findings) == 2
    assert len(judgement.findings) == 4 and judgement.error == docs_run.error
    fallback = judgement.fallback()
    assert fallback is not None and "for 1 of the 2 chains asked about" in fallback
    assert len(VerdictCache(path)) == 4  # web's verdicts were saved beside docs'
