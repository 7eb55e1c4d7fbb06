"""Pi 0.85's golden agent runs replayed through pi-lsp's loop and session orchestration.

Each case's inputs are rebuilt (``setup.sh``), its prompts sent one after the other to a
:class:`~pi_lsp.agent.session_agent.SessionAgent` over a new session file, with the case's fake
model script answering (``tests/agent/scripted_provider.py`` streams what Pi makes of each
answer). Compared with what Pi recorded, after the README's normalization:

* the event trace, line for line (``expected-event-trace.txt``: JSON-mode events without
  ``message_update``, full payloads for ``compaction_*`` / ``auto_retry_*``);
* the session file, entry by entry and key by key (``expected-session.jsonl``);
* every request: its messages (role and text, as the model receives them), the output budget
  of §13.2 (the part of the estimate that does not depend on pi-lsp's own system prompt and
  tool descriptions: see :func:`_check_budgets`), and for summaries the ``<conversation>``
  block, the previous summary and the instructions' headings (their prose is Pi's).

The tool cases run their calls through the loop too: ``tool_execution_end`` events as Pi
recorded them (``expected-tool-events.json``) and the tool results the next request carries
(``expected-tool-result*.txt``).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.events import json_mode_lines
from pi_lsp.agent.model_api import ModelRequest
from pi_lsp.agent.output_budget import estimate_request_tokens
from pi_lsp.agent.session_agent import SessionAgent
from pi_lsp.js.json import json_stringify
from pi_lsp.js.text import utf16_len
from pi_lsp.resources.loader import LoadOptions, load_resources
from pi_lsp.session.session_file import SessionFile
from pi_lsp.tools.base import ToolContext
from tests.agent.scripted_provider import ScriptedProvider, oracle_model
from tests.conformance.harness import (
    CONFORMANCE,
    CaseWorkspace,
    build_case,
    case_dir,
    digest_long_texts,
    expected_tool_events,
    expected_tool_results,
    normalize,
)
from tests.conformance.pi_prose import headings, split_summary_prompt

AGENT_CASES = ["compaction-threshold-midrun", "overflow-compact-retry", "overflow-retry-exhausted"]
OVERRIDES = Path(__file__).parent / "overrides"
#: Tool cases replayed through the loop: their calls and results only (not the Pi accidents
#: in overrides/, not find's fd order, not images, which need a provider's view).
TOOL_CASES = sorted(
    p.name
    for p in CONFORMANCE.iterdir()
    if p.is_dir()
    and p.name.startswith(("bash-", "read-", "grep-", "ls-", "edit-"))
    and p.name != "read-images"
    and not (OVERRIDES / p.name).exists()
)
CONTEXT_MARGIN = 4096
ORACLE_MAX_TOKENS = 16384


# --- running a case ------------------------------------------------------------------------------


@dataclass
class Run:
    workspace: CaseWorkspace
    session_dir: Path
    header: dict[str, Any]
    events: list[dict[str, Any]]
    provider: ScriptedProvider
    agent: SessionAgent


def _pi_args(meta: dict[str, Any], ws: CaseWorkspace, session_dir: Path) -> list[str]:
    subs = {"{SESSION_DIR}": str(session_dir), "{CWD}": str(ws.cwd), "{WS}": str(ws.root)}
    out = []
    for arg in meta.get("pi_args", []):
        for key, value in subs.items():
            arg = arg.replace(key, value)
        out.append(arg)
    return out


def _parse_args(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """``--flag value`` options (the ones these cases use) and the positional prompts."""
    options: dict[str, str] = {}
    prompts: list[str] = []
    it = iter(args)
    for arg in it:
        if arg in ("--session-dir", "--tools"):
            options[arg] = next(it)
        elif arg.startswith("--"):
            raise AssertionError(f"option not handled by this test: {arg}")
        else:
            prompts.append(arg)
    return options, prompts


def run_case(name: str, base: Path) -> Run:
    ws = build_case(name, base)
    meta = json.loads((case_dir(name) / "case.json").read_text())
    session_dir = base / "sessions"
    options, prompts = _parse_args(_pi_args(meta, ws, session_dir))
    prompts.append(meta.get("prompt", "hello"))
    tools = tuple(options["--tools"].split(",")) if "--tools" in options else None
    resources = load_resources(
        LoadOptions(
            cwd=str(ws.cwd), agent_dir=str(ws.agent), home=str(ws.home), env=ws.env(), tools=tools
        )
    )
    model = oracle_model(
        meta.get("context_window") or 128_000, meta.get("max_tokens") or ORACLE_MAX_TOKENS
    )
    if "--session-dir" in options:
        session = SessionFile.create(
            str(ws.cwd),
            session_dir=options["--session-dir"],
            provider=model.provider,
            model_id=model.id,
            thinking_level="off",
        )
    else:
        session = SessionFile.in_memory(
            str(ws.cwd), provider=model.provider, model_id=model.id, thinking_level="off"
        )
    provider = ScriptedProvider.from_case(case_dir(name))
    context = ToolContext(cwd=ws.cwd, env={"HOME": str(ws.home), "TMPDIR": str(ws.tmp)})
    agent = SessionAgent(
        provider=provider, model=model, session=session, resources=resources, tool_context=context
    )
    recorded: list[dict[str, Any]] = []
    agent.subscribe(recorded.append)

    async def send_all() -> None:
        for prompt in prompts:
            await agent.prompt(prompt)

    asyncio.run(send_all())
    session.close()
    return Run(ws, session_dir, dict(session.header), recorded, provider, agent)


# --- normalization (shared/conformance/run_case.py) ----------------------------------------------


class IdMap:
    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def get(self, value: str, prefix: str) -> str:
        if value not in self.seen:
            count = sum(1 for v in self.seen.values() if v.startswith("{" + prefix))
            self.seen[value] = f"{{{prefix}{count + 1}}}"
        return self.seen[value]


ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
ID_KEYS = ("id", "parentId", "firstKeptEntryId", "targetId", "fromId")


def normalize_obj(value: Any, run: Run, ids: IdMap) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str) and re.fullmatch(r"[0-9a-f]{8}", item):
                out[key] = ids.get(item, "E")
            elif key == "id" and isinstance(item, str) and re.fullmatch(r"[0-9a-f-]{36}", item):
                out[key] = ids.get(item, "SESSION")
            elif key == "timestamp" and isinstance(item, int | float):
                out[key] = 0
            elif key == "sessionId" and isinstance(item, str):
                out[key] = "{SESSION_ID}"
            else:
                out[key] = normalize_obj(item, run, ids)
        return out
    if isinstance(value, list):
        return [normalize_obj(item, run, ids) for item in value]
    if isinstance(value, str):
        if ISO.match(value):
            return "{ISO}"
        return normalize(value, run.workspace).replace(str(run.session_dir), "{SESSION_DIR}")
    return value


def trace_lines(json_events: list[dict[str, Any]], run: Run, ids: IdMap) -> list[str]:
    """``expected-event-trace.txt`` lines for JSON-mode output (header first)."""
    lines = []
    for event in json_events:
        kind = event.get("type")
        if kind in ("message_update", "tool_execution_update"):
            continue
        if kind in ("message_start", "message_end"):
            message = event["message"]
            extra = (
                f" stopReason={message.get('stopReason')}"
                if message.get("role") == "assistant"
                else ""
            )
            lines.append(f"{kind} role={message.get('role')}{extra}")
        elif kind in ("tool_execution_start", "tool_execution_end"):
            line = f"{kind} {event.get('toolName')} id={event.get('toolCallId')}"
            if kind.endswith("end"):
                line += f" isError={event.get('isError')}"
            lines.append(line)
        elif kind == "session":
            lines.append("session-header")
        elif kind in ("compaction_start", "compaction_end", "auto_retry_start", "auto_retry_end"):
            rest = {k: v for k, v in event.items() if k != "type"}
            payload = json.dumps(normalize_obj(rest, run, ids), ensure_ascii=False, sort_keys=True)
            lines.append(f"{kind} {payload}")
        elif kind == "turn_end":
            lines.append(f"{kind} toolResults={len(event.get('toolResults') or [])}")
        elif kind == "agent_end":
            line = f"{kind} messages={len(event.get('messages') or [])}"
            if "willRetry" in event:
                line += f" willRetry={event['willRetry']}"
            lines.append(line)
        else:
            lines.append(str(kind))
    return lines


def json_mode(run: Run) -> list[dict[str, Any]]:
    """What ``--mode json`` would print: the header line, then every event, as parsed JSON."""
    return [json.loads(line) for line in json_mode_lines(run.header, run.events)]


def session_entries(run: Run) -> list[dict[str, Any]]:
    (path,) = run.session_dir.glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# --- requests ------------------------------------------------------------------------------------


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if p.get("type") == "text")
    return None


def golden_view(body: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(m["role"], _text(m.get("content"))) for m in body["messages"][1:]]


def my_view(request: ModelRequest) -> list[tuple[str, str | None]]:
    """The request as the model receives it: failed and aborted answers are not replayed."""
    view: list[tuple[str, str | None]] = []
    for message in request.messages:
        role = message["role"]
        if role == "assistant":
            if message.get("stopReason") in ("error", "aborted"):
                continue
            view.append(("assistant", _text(message["content"]) or None))
        elif role == "toolResult":
            texts = [b["text"] for b in message["content"] if b.get("type") == "text"]
            view.append(("tool", "\n".join(texts)))
        else:
            view.append((role, _text(message["content"])))
    return view


def _check_budgets(run: Run, golden: list[dict[str, Any]], window: int) -> None:
    """§13.2 on every request. Pi's estimate of a request is its messages' part (usage-backed
    or chars/4) plus, without a usable usage, the system prompt and tool definitions; those
    are pi-lsp's own text. So the messages' part must match Pi exactly, and the prefix must be
    there exactly when Pi's is (with one constant size for Pi's prefix)."""
    pi_prefixes = set()
    for index, (mine, body) in enumerate(zip(run.provider.requests, golden, strict=True)):
        if not mine.tools:  # a summary: the budget share of reserveTokens, then the clamp
            assert mine.max_tokens == body["max_completion_tokens"], f"request {index}"
            continue
        messages_part = estimate_request_tokens("", mine.messages, [])
        assert mine.max_tokens is not None
        pi_prefix = window - CONTEXT_MARGIN - body["max_completion_tokens"] - messages_part
        my_prefix = window - CONTEXT_MARGIN - mine.max_tokens - messages_part
        expected_prefix = math.ceil(utf16_len(mine.system_prompt) / 4) + math.ceil(
            utf16_len(json_stringify(mine.tools)) / 4
        )
        if pi_prefix == 0:
            assert my_prefix == 0, f"request {index}: usage-backed estimate expected"
        else:
            pi_prefixes.add(pi_prefix)
            assert my_prefix == expected_prefix, f"request {index}: full estimate expected"
    assert len(pi_prefixes) <= 1, pi_prefixes


def _check_requests(run: Run, name: str, window: int) -> None:
    golden = json.loads((case_dir(name) / "expected-requests.json").read_text())
    assert len(run.provider.requests) == len(golden)
    for index, (mine, body) in enumerate(zip(run.provider.requests, golden, strict=True)):
        if not mine.tools:
            assert "tools" not in body, f"request {index}"
            (message,) = mine.messages
            (part,) = message["content"]
            (golden_part,) = body["messages"][1]["content"]
            got = split_summary_prompt(part["text"])
            want = split_summary_prompt(golden_part["text"])
            got_norm = normalize(got["conversation"], run.workspace)
            assert got_norm == want["conversation"], f"request {index}"
            assert got["previousSummary"] == want["previousSummary"], f"request {index}"
            assert got["headings"] == want["headings"], f"request {index}"
            assert headings(part["text"]), f"request {index}"
        else:
            want_view = [
                (role, normalize(text, run.workspace) if text else text)
                for role, text in golden_view(body)
            ]
            got_view = [
                (role, normalize(text, run.workspace) if text else text)
                for role, text in my_view(mine)
            ]
            assert got_view == want_view, f"request {index}"
    _check_budgets(run, golden, window)


# --- the tests -----------------------------------------------------------------------------------


_runs: dict[str, Run] = {}


def _run(name: str, factory: pytest.TempPathFactory) -> Run:
    if name not in _runs:
        _runs[name] = run_case(name, factory.mktemp(name))
    return _runs[name]


@pytest.mark.parametrize("name", AGENT_CASES)
def test_event_trace_matches_pi(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    run = _run(name, tmp_path_factory)
    ids = IdMap()
    # ids are numbered in the order the recording met them: the session file first
    for entry in session_entries(run):
        normalize_obj(entry, run, ids)
    got = trace_lines(json_mode(run), run, ids)
    want = (case_dir(name) / "expected-event-trace.txt").read_text().splitlines()
    assert got == want


@pytest.mark.parametrize("name", AGENT_CASES)
def test_session_matches_pi(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    run = _run(name, tmp_path_factory)
    ids = IdMap()
    got = [normalize_obj(entry, run, ids) for entry in session_entries(run)]
    want = [
        json.loads(line)
        for line in (case_dir(name) / "expected-session.jsonl").read_text().splitlines()
        if line.strip()
    ]
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        assert mine == theirs
        assert list(mine) == list(theirs), theirs.get("id")  # Pi's key order


@pytest.mark.parametrize("name", AGENT_CASES)
def test_requests_match_pi(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    run = _run(name, tmp_path_factory)
    meta = json.loads((case_dir(name) / "case.json").read_text())
    _check_requests(run, name, meta["context_window"])


def _call_order(event: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(n) for n in event["toolCallId"].split("_")[1:])


@pytest.mark.parametrize("name", TOOL_CASES)
def test_tool_calls_through_the_loop(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # build_case makes <base>/tmp, the run's TMPDIR: bash spill files go there
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    run = run_case(name, tmp_path)
    ends = [e for e in run.events if e["type"] == "tool_execution_end"]
    want_events = sorted(expected_tool_events(name), key=_call_order)
    assert [e["toolCallId"] for e in ends] != [] and len(ends) == len(want_events)
    for got, want in zip(sorted(ends, key=_call_order), want_events, strict=True):
        assert (got["toolCallId"], got["toolName"], got["isError"]) == (
            want["toolCallId"],
            want["toolName"],
            want["isError"],
        )
        result = json.loads(normalize(json.dumps(got["result"]), run.workspace))
        assert digest_long_texts(result) == digest_long_texts(want["result"])
    # the next request carries every result, in call order, as the model reads them
    texts = [text for role, text in my_view(run.provider.requests[-1]) if role == "tool"]
    want_texts = [data.decode("utf-8") for data in expected_tool_results(name)]
    assert [normalize(t or "", run.workspace) for t in texts] == want_texts
