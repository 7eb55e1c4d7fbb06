"""Session interop with the real Pi 0.85.0 (issue 7): the same session file, the same request.

Recorded on 2026-11-30 with ``shared/oracle/pi-oracle`` (Pi against ``fake_openai.py``) and
``pi-lsp chat`` against the same fake server, on copies of the inputs; the golden files in
``interop/`` hold what Pi sent, without the system prompt and without any tool or parameter
``description`` (Pi's prose). These tests need no Pi: ``pi-lsp chat`` runs as a subprocess
against :class:`~tests.agent.http_fixtures.LocalHTTPServer` with the model the oracle declares
(provider ``oracle``, model ``oracle-model``, context window 1 000 000 so that nothing is
compacted or clamped, ``maxTokens`` 16384).

1. The two real Pi fixtures (``fixtures/pi/large-session.jsonl``, a v1 session, and
   ``fixtures/pi/before-compaction.jsonl``) are continued with ``"continue"``: the messages
   after the system prompt and the other request fields equal Pi's, and the migrated file
   (v1 → v3, ids added) equals Pi's after id normalization (a digest of it is stored).
   The header's ``cwd`` (``/Users/badlogic/...``) is pointed at the run's working directory
   in the copy: Pi refuses a session whose stored cwd does not exist (known difference below).
   ``interop/<fixture>.messages.jsonl`` holds Pi's messages with Pi's own words masked
   (:func:`mask_pi_prose`: the sentence around a compaction summary, the wording of a
   ``bashExecution`` message) and then every text as a digest (``mask_interop.py``: the
   fixtures' tool results quote Pi's prompt and source files); pi-lsp's messages are masked
   the same way and compared one by one. ``messages_sha256`` in ``<fixture>.request.json`` is
   the digest of the unmasked messages, so the comparison stays byte-exact. With the
   oracle's default 128 000-token window both compact first; ``<fixture>.compact128k.json``
   holds digests only.
2. ``interop/written-by-pi-lsp.session.jsonl`` (``pi-lsp chat`` wrote it: a prompt, a bash tool
   call, its result, an answer) was resumed by Pi without error, and
   ``interop/written-by-pi.session.jsonl`` (Pi wrote it with ``--session-dir``, same script)
   was continued by ``pi-lsp chat --session``; Pi resuming either file sent exactly the request
   in ``interop/resume.request.json``, and so must pi-lsp. ``{CWD}`` in them is the working
   directory of the recording.

Two behaviours found with the oracle and followed since: a resumed session continued with
another ``--provider``/``--model`` gets no ``model_change`` entry (Pi 0.85 writes one only for
a new session), and a session whose stored ``cwd`` does not exist is refused (Pi's print mode
exits 1 with ``Stored session working directory does not exist: …`` and sends nothing).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agent.http_fixtures import LocalHTTPServer, RecordedRequest, openai_text_reply
from tests.conformance.pi_prose import digest_texts
from tests.shared_data import PI_FIXTURES

HERE = Path(__file__).resolve().parent
INTEROP = HERE / "interop"
FIXTURES = PI_FIXTURES  # Pi's own sessions: the recordings in interop/ continue them
PI_LSP = Path(sys.executable).parent / "pi-lsp"
FIXTURE_NAMES = ("large-session", "before-compaction")
HEX8 = re.compile(r"^[0-9a-f]{8}$")
ID_KEYS = ("id", "parentId", "firstKeptEntryId", "fromId", "targetId")


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    requests: list[RecordedRequest]


def _golden(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((INTEROP / name).read_text(encoding="utf-8"))
    return data


def _messages(name: str) -> list[Any]:
    text = (INTEROP / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def _entries(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _without_descriptions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


def _request_params(body: dict[str, Any]) -> dict[str, Any]:
    """The request without its messages, tools without their descriptions (Pi's prose)."""
    params = {k: v for k, v in body.items() if k not in ("messages", "tools")}
    params["tools"] = _without_descriptions(body.get("tools", []))
    return params


def _normalized_digest(entries: list[dict[str, Any]]) -> str:
    """sha256 of the entries with 8-hex ids as ``{E1}``, … (first seen first), cwd ``{CWD}``."""
    ids: dict[str, str] = {}
    out = []
    for entry in entries:
        entry = dict(entry)
        for key in ID_KEYS:
            value = entry.get(key)
            if isinstance(value, str) and HEX8.match(value):
                entry[key] = ids.setdefault(value, f"{{E{len(ids) + 1}}}")
        if entry.get("type") == "session":
            entry["cwd"] = "{CWD}"
        out.append(entry)
    canonical = json.dumps(out, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _mask_text(text: str) -> str:
    """Pi's own words in a projected user message, replaced by placeholders (structurally).

    A compaction summary is wrapped in a sentence before ``<summary>`` (and possibly one after
    ``</summary>``); a ``bashExecution`` message starts with a word before the `` `command` ``
    and may end with a ``[…]`` notice after the closing fence. Only the positions are used,
    so the test holds none of that text; the digest of the unmasked messages keeps the
    comparison byte-exact.
    """
    if "<summary>" in text and "</summary>" in text:
        start = text.index("<summary>")
        end = text.rindex("</summary>") + len("</summary>")
        suffix = "{SUMMARY_SUFFIX}" if text[end:] else ""
        return "{SUMMARY_PREFIX}" + text[start:end] + suffix
    if re.match(r"^\w+ `", text) and "\n```" in text:
        text = "{BASH_PREFIX}" + text[text.index(" `") :]
        fence = text.rindex("\n```")
        tail = text[fence + 4 :]
        if tail.startswith("\n\n[") and tail.endswith("]"):
            text = text[: fence + 4] + "\n\n[{BASH_NOTICE}]"
    return text


def mask_pi_prose(messages: list[Any]) -> list[Any]:
    """The chat-completions ``messages`` with :func:`_mask_text` applied to user text parts."""
    out = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            parts = [
                dict(p, text=_mask_text(p["text"])) if p.get("type") == "text" else p
                for p in content
            ]
            message = dict(message, content=parts)
        elif message.get("role") == "user" and isinstance(content, str):
            message = dict(message, content=_mask_text(content))
        out.append(message)
    return out


def messages_digest(messages: list[Any]) -> str:
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def conversation_digest(body: dict[str, Any]) -> dict[str, Any]:
    """sha256 and length of the ``<conversation>`` block of a summarization request."""
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    match = re.search(r"<conversation>.*</conversation>", text, re.S)
    assert match is not None
    block = match.group()
    return {"chars": len(block), "sha256": hashlib.sha256(block.encode()).hexdigest()}


def compaction_digest(entries: list[dict[str, Any]]) -> str:
    """sha256 of the last compaction entry, ids and timestamp aside, firstKeptEntryId as the
    index of the kept entry in the file."""
    index = {e.get("id"): i for i, e in enumerate(entries)}
    entry = next(e for e in reversed(entries) if e["type"] == "compaction")
    entry = {k: v for k, v in entry.items() if k not in ("id", "parentId", "timestamp")}
    entry["firstKeptEntryId"] = index[entry["firstKeptEntryId"]]
    canonical = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _setup(tmp: Path, base_url: str, *, context_window: int, max_tokens: int) -> Path:
    """Agent dir with the oracle's model, an empty HOME, and the working directory."""
    for name in ("home", "agent", "ws"):
        (tmp / name).mkdir(exist_ok=True)
    models = {
        "providers": {
            "oracle": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "oracle",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [
                    {
                        "id": "oracle-model",
                        "reasoning": False,
                        "input": ["text"],
                        "contextWindow": context_window,
                        "maxTokens": max_tokens,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    }
                ],
            }
        }
    }
    (tmp / "agent" / "models.json").write_text(json.dumps(models, indent=2))
    return (tmp / "ws").resolve()


async def _chat(tmp: Path, server: LocalHTTPServer, *args: str) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    env.pop("OPENAI_API_KEY", None)
    process = await asyncio.create_subprocess_exec(
        str(PI_LSP),
        "chat",
        "--mode",
        "json",
        "--provider",
        "oracle",
        "--model",
        "oracle-model",
        *args,
        cwd=tmp / "ws",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return Run(process.returncode, out.decode(), err.decode(), list(server.requests))


def _fixture_copy(name: str, dest: Path, cwd: str | None) -> Path:
    """A writable copy of a shared fixture, its header cwd pointed at ``cwd`` when given."""
    target = dest / f"{name}.jsonl"
    shutil.copyfile(FIXTURES / f"{name}.jsonl", target)
    target.chmod(0o644)
    if cwd is not None:
        lines = target.read_text(encoding="utf-8").split("\n")
        # Rewrite only the cwd value, keeping the rest of the line byte for byte.
        old = '"cwd":' + json.dumps(json.loads(lines[0])["cwd"])
        assert lines[0].count(old) == 1
        lines[0] = lines[0].replace(old, '"cwd":' + json.dumps(cwd))
        target.write_text("\n".join(lines), encoding="utf-8")
    return target


async def _continue_fixture(name: str, tmp: Path) -> tuple[Run, Path, dict[str, Any]]:
    golden = _golden(f"{name}.request.json")
    async with LocalHTTPServer() as server:
        ws = _setup(
            tmp,
            server.base_url,
            context_window=golden["context_window"],
            max_tokens=golden["max_tokens"],
        )
        session = _fixture_copy(name, tmp, str(ws))
        server.enqueue(openai_text_reply("ok"))
        run = await _chat(tmp, server, "--session", str(session), golden["prompt"])
    assert run.code == 0, run.stderr
    return run, session, golden


# ---------------------------------------------------------------------------------------------
# 1. The real Pi fixtures, continued


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_the_stored_messages_hold_no_text_of_the_fixtures(name: str) -> None:
    """What is kept of Pi's messages is their shape and digests (re-recorded files go
    through ``mask_interop.py``)."""
    messages = _messages(_golden(f"{name}.request.json")["messages_file"])
    assert messages and digest_texts(messages) == messages


@pytest.mark.shared
@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_continuing_a_pi_fixture_sends_pis_request(name: str, tmp_path: Path) -> None:
    run, session, golden = await _continue_fixture(name, tmp_path)

    [request] = run.requests
    body = request.json()
    assert body["messages"][0]["role"] == "system"  # ours: not compared
    expected = _messages(golden["messages_file"])  # stored masked: texts as digests
    assert len(expected) == golden["message_count"]
    sent = body["messages"][1:]
    assert len(sent) == len(expected)
    masked = digest_texts(mask_pi_prose(sent))
    for index, (mine, pis) in enumerate(zip(masked, expected, strict=True)):
        assert mine == pis, f"message {index + 1} differs; pi-lsp sent {sent[index]!r:.2000}"
    assert messages_digest(sent) == golden["messages_sha256"]  # unmasked: byte-exact
    # model, stream, stream_options, store, max_completion_tokens (16384 both: the context
    # window leaves room, so no estimate clamps it), tool names/order/schemas
    assert _request_params(body) == golden["request"]

    # The fixture's entries as migrated in place: same as Pi's, ids aside.
    entries = _entries(session)
    migrated = entries[: golden["migrated_entries"]]
    assert migrated[0]["version"] == 3
    assert _normalized_digest(migrated) == golden["migrated_sha256"]


@pytest.mark.shared
@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_continuing_a_pi_fixture_over_the_window_compacts_as_pi_does(
    name: str, tmp_path: Path
) -> None:
    """With the oracle's default 128 000-token window the fixtures (~177k tokens by their last
    usage) are compacted before the prompt: a split-turn history summary and a turn-prefix
    summary, then the prompt. The summarization prompts are Pi's prose (not stored); their
    ``<conversation>`` blocks, the ``max_completion_tokens`` of every request, the compaction
    entry and the final request's messages are compared by digest."""
    golden = _golden(f"{name}.compact128k.json")
    async with LocalHTTPServer() as server:
        ws = _setup(
            tmp_path,
            server.base_url,
            context_window=golden["context_window"],
            max_tokens=golden["max_tokens"],
        )
        session = _fixture_copy(name, tmp_path, str(ws))
        server.enqueue(*(openai_text_reply("ok") for _ in range(3)))
        run = await _chat(tmp_path, server, "--session", str(session), golden["prompt"])
    assert run.code == 0, run.stderr
    bodies = [request.json() for request in run.requests]
    assert len(bodies) == 3
    observed = [
        {
            "max_completion_tokens": body["max_completion_tokens"],
            "conversation": conversation_digest(body),
            "tools": "tools" in body,
        }
        for body in bodies[:2]
    ]
    assert observed == golden["summarization"]
    final = bodies[2]
    assert _request_params(final) == golden["request"]
    sent = final["messages"][1:]
    assert [m["role"] for m in sent] == golden["roles"]
    assert len(sent) == golden["message_count"]
    assert messages_digest(sent) == golden["messages_sha256"]
    assert compaction_digest(_entries(session)) == golden["compaction_sha256"]


@pytest.mark.shared
async def test_continuing_with_another_model_appends_what_pi_appends(tmp_path: Path) -> None:
    name = "before-compaction"
    _run, session, golden = await _continue_fixture(name, tmp_path)
    appended = _entries(session)[golden["migrated_entries"] :]
    kinds = [[e["type"], e.get("message", {}).get("role")] for e in appended]
    assert kinds == golden["appended_entry_types"]


@pytest.mark.shared
async def test_a_session_whose_cwd_is_gone_is_refused_as_pi_does(tmp_path: Path) -> None:
    async with LocalHTTPServer() as server:
        _setup(tmp_path, server.base_url, context_window=1_000_000, max_tokens=16384)
        session = _fixture_copy("large-session", tmp_path, None)
        server.enqueue(openai_text_reply("ok"))
        run = await _chat(tmp_path, server, "--session", str(session), "continue")
    assert (run.code, len(run.requests)) == (1, 0)


# ---------------------------------------------------------------------------------------------
# 2. Sessions written by one, continued by the other


def test_both_written_sessions_hold_the_same_conversation() -> None:
    """pi-lsp and Pi wrote the same entries for the same script (ids, timestamps aside)."""

    def shape(path: Path) -> list[Any]:
        out = []
        for entry in _entries(path):
            entry = {k: v for k, v in entry.items() if k not in ("id", "timestamp", "parentId")}
            if "message" in entry:
                entry["message"] = {k: v for k, v in entry["message"].items() if k != "timestamp"}
            out.append(entry)
        return out

    mine = _entries(INTEROP / "written-by-pi-lsp.session.jsonl")
    pis = _entries(INTEROP / "written-by-pi.session.jsonl")
    assert [e["type"] for e in pis] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
        "message",
        "message",
        "message",
    ]
    assert shape(INTEROP / "written-by-pi-lsp.session.jsonl") == shape(
        INTEROP / "written-by-pi.session.jsonl"
    )
    for entries in (mine, pis):  # a chain from the first entry to the last
        parents = [e.get("parentId") for e in entries[1:]]
        assert parents == [None] + [e["id"] for e in entries[1:-1]]


@pytest.mark.parametrize("writer", ["written-by-pi-lsp", "written-by-pi"])
async def test_pi_lsp_continues_a_written_session_as_pi_does(writer: str, tmp_path: Path) -> None:
    from pi_lsp.session.context import build_session_context
    from pi_lsp.session.session_file import SessionFile

    golden = _golden("resume.request.json")
    async with LocalHTTPServer() as server:
        ws = _setup(
            tmp_path,
            server.base_url,
            context_window=golden["context_window"],
            max_tokens=golden["max_tokens"],
        )
        text = (INTEROP / f"{writer}.session.jsonl").read_text(encoding="utf-8")
        session = tmp_path / f"{writer}.jsonl"
        session.write_text(text.replace("{CWD}", str(ws)), encoding="utf-8")
        before = _entries(session)

        # loads and projects
        loaded = SessionFile.open(str(session), cwd=str(ws))
        try:
            context = build_session_context(loaded.entries, loaded.leaf_id)
        finally:
            loaded.close()
        assert [m["role"] for m in context.messages] == [
            "user",
            "assistant",
            "toolResult",
            "assistant",
        ]
        assert context.model is not None
        assert (context.model["provider"], context.model["modelId"]) == ("oracle", "oracle-model")

        server.enqueue(openai_text_reply(golden["answer"]))
        run = await _chat(tmp_path, server, "--session", str(session), golden["prompt"])

    assert run.code == 0, run.stderr
    [request] = run.requests
    body = request.json()
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][1:] == golden["messages"]
    assert _request_params(body) == golden["request"]

    after = _entries(session)
    assert after[: len(before)] == before  # appended, nothing rewritten
    appended = [
        {
            "type": e["type"],
            "role": e["message"]["role"],
            "content": e["message"]["content"],
            **({"stopReason": e["message"]["stopReason"]} if "stopReason" in e["message"] else {}),
        }
        for e in after[len(before) :]
    ]
    assert appended == golden["appended_by_pi"]
    assert after[len(before)]["parentId"] == before[-1]["id"]
