"""Compaction against Pi 0.85's golden cases, without an agent loop.

For every compaction entry a case's session holds, the entries before it are run through
``prepare_compaction`` with the case's settings, and what Pi recorded is compared with what
pi-lsp does: the cut (``firstKeptEntryId``, split turn), ``tokensBefore``, each summarization
request (the ``<conversation>`` block and ``<previous-summary>`` byte for byte, the output
budget, the message structure, the instructions' section headings — their prose is Pi's and
masked), the compaction entry written from the scripted answers, and the result the event
trace reports (``estimatedTokensAfter`` included).

``compaction-split-after-compaction`` records a Pi accident (spec §15.3). Pi's behaviour is
reproduced with ``pi_quirks=True`` and checked against the golden; pi-lsp's default is checked
against ``overrides/compaction-split-after-compaction`` (see ``overrides/README.md``).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session.compaction import (
    CompactionPreparation,
    compact,
    compaction_entry,
    compaction_requests,
    estimated_tokens_after,
    prepare_compaction,
)
from pi_lsp.session.context import build_session_context
from pi_lsp.session.llm_messages import convert_to_llm
from pi_lsp.session.summarizer import SummaryModel, SummaryRequest
from pi_lsp.session.tokens import CompactionSettings, compaction_settings
from pi_lsp.session.tree import branch, index_entries
from tests.conformance.harness import build_case, case_dir
from tests.conformance.pi_prose import split_summary_prompt
from tests.scripted_summarizer import ScriptedSummarizer

OVERRIDES = Path(__file__).parent / "overrides"
CASES = [
    "compaction-threshold-midrun",
    "compaction-split-turn",
    "compaction-split-after-compaction",
    "overflow-compact-retry",
    "overflow-retry-exhausted",
]
QUIRK_CASE = "compaction-split-after-compaction"
#: ``maxTokens`` of the oracle's fake model (spec §13.2)
ORACLE_MAX_TOKENS = 16384
ENTRY_HEAD = ("type", "id", "parentId", "timestamp")


@dataclass(frozen=True)
class Case:
    name: str
    settings: CompactionSettings
    model: SummaryModel
    entries: list[dict[str, Any]]
    requests: list[dict[str, Any]]
    script: list[dict[str, Any]]
    compaction_ends: list[dict[str, Any]]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _compaction_ends(trace: str) -> list[dict[str, Any]]:
    ends = []
    for line in trace.splitlines():
        if line.startswith("compaction_end "):
            ends.append(json.loads(line[len("compaction_end ") :]))
    return ends


_settings_cache: dict[str, CompactionSettings] = {}


def _case_settings(name: str, tmp_path_factory: pytest.TempPathFactory) -> CompactionSettings:
    if name not in _settings_cache:
        workspace = build_case(name, tmp_path_factory.mktemp(name))
        merged = json.loads((workspace.agent / "settings.json").read_text())
        _settings_cache[name] = compaction_settings(merged)
    return _settings_cache[name]


def load_case(
    name: str, tmp_path_factory: pytest.TempPathFactory, *, session_from: Path | None = None
) -> Case:
    folder = case_dir(name)
    meta = json.loads((folder / "case.json").read_text())
    model = SummaryModel(meta["context_window"], meta.get("max_tokens", ORACLE_MAX_TOKENS))
    trace_dir = session_from or folder
    return Case(
        name=name,
        settings=_case_settings(name, tmp_path_factory),
        model=model,
        entries=_jsonl((session_from or folder) / "expected-session.jsonl")[1:],
        requests=json.loads((folder / "expected-requests.json").read_text()),
        script=json.loads((folder / "script.json").read_text()),
        compaction_ends=_compaction_ends((trace_dir / "expected-event-trace.txt").read_text()),
    )


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# --- masking Pi's prose ------------------------------------------------------------------------


def masked_golden_request(body: dict[str, Any]) -> dict[str, Any]:
    messages = body["messages"]
    assert "tools" not in body and "tool_choice" not in body
    assert [m["role"] for m in messages] == ["system", "user"]
    assert isinstance(messages[0]["content"], str) and messages[0]["content"]
    (part,) = messages[1]["content"]
    assert part["type"] == "text"
    return {"maxTokens": body["max_completion_tokens"], **split_summary_prompt(part["text"])}


def masked_request(request: SummaryRequest) -> dict[str, Any]:
    assert request.system_prompt
    (message,) = request.messages
    assert message["role"] == "user"
    (part,) = message["content"]
    assert part["type"] == "text"
    return {"maxTokens": request.max_tokens, **split_summary_prompt(part["text"])}


# --- one compaction ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Observed:
    preparation: CompactionPreparation
    requests: list[SummaryRequest]
    entry: dict[str, Any]
    result: dict[str, Any]


def compaction_points(case: Case) -> list[int]:
    return [i for i, entry in enumerate(case.entries) if entry["type"] == "compaction"]


def summary_request_indices(case: Case) -> list[int]:
    return [i for i, body in enumerate(case.requests) if "tools" not in body]


def reproduce(case: Case, position: int, first_request: int, *, pi_quirks: bool) -> Observed:
    """Run the compaction Pi recorded at ``case.entries[position]``."""
    golden = case.entries[position]
    by_id = index_entries(case.entries)
    path = branch(by_id, golden["parentId"])
    preparation = prepare_compaction(path, case.settings, pi_quirks=pi_quirks)
    assert preparation is not None
    history, prefix = compaction_requests(preparation, case.model)
    planned = [r for r in (history, prefix) if r is not None]
    answers = case.script[first_request : first_request + len(planned)]
    summarizer = ScriptedSummarizer.from_oracle_script(answers)
    result = run(compact(preparation, summarizer, case.model))
    fields = compaction_entry(result)
    head = {"type": fields.pop("type"), **{key: golden[key] for key in ENTRY_HEAD[1:]}}
    stored = {**head, **fields}
    after = estimated_tokens_after([*path, stored], stored["id"])
    reported = {**result.to_json(), "estimatedTokensAfter": after}
    return Observed(preparation, summarizer.requests, stored, reported)


def check_case(case: Case, *, pi_quirks: bool) -> list[Observed]:
    points = compaction_points(case)
    summary_requests = summary_request_indices(case)
    assert points and len(case.compaction_ends) >= len(points)
    observed: list[Observed] = []
    used = 0
    for number, position in enumerate(points):
        golden = case.entries[position]
        first = summary_requests[used]
        seen = reproduce(case, position, first, pi_quirks=pi_quirks)
        used += len(seen.requests)
        observed.append(seen)
        # the entry, field by field, in Pi's key order
        assert list(seen.entry) == list(golden), golden["id"]
        assert seen.entry == golden, golden["id"]
        assert seen.preparation.first_kept_entry_id == golden["firstKeptEntryId"]
        # what compaction_end reported
        end = case.compaction_ends[number]
        assert end["result"] == seen.result
        # the requests, in order, prose masked
        for offset, request in enumerate(seen.requests):
            expected = masked_golden_request(case.requests[first + offset])
            assert masked_request(request) == expected, (golden["id"], offset)
    assert used == len(summary_requests)
    return observed


# --- the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [c for c in CASES if c != QUIRK_CASE])
def test_compactions_match_pi(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    case = load_case(name, tmp_path_factory)
    check_case(case, pi_quirks=False)
    check_case(case, pi_quirks=True)


def test_split_turn_details(tmp_path_factory: pytest.TempPathFactory) -> None:
    case = load_case("compaction-split-turn", tmp_path_factory)
    position = compaction_points(case)[0]
    seen = reproduce(case, position, summary_request_indices(case)[0], pi_quirks=False)
    preparation = seen.preparation
    assert preparation.is_split_turn and preparation.messages_to_summarize == ()
    assert [r.label for r in seen.requests] == ["Turn prefix summarization"]
    assert seen.entry["summary"].startswith("No prior history.\n\n---\n\n**Turn Context")


def test_midrun_compaction_updates_the_previous_summary(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    case = load_case("compaction-threshold-midrun", tmp_path_factory)
    first, second = compaction_points(case)
    requests = summary_request_indices(case)
    seen = reproduce(case, second, requests[1], pi_quirks=False)
    assert seen.preparation.previous_summary == "## Goal\nFIRST SUMMARY"
    assert seen.preparation.tokens_before == 14030 + 2250
    # the first compaction's tool result was cut to 2000 characters in its request
    seen = reproduce(case, first, requests[0], pi_quirks=False)
    conversation = split_summary_prompt(seen.requests[0].prompt_text)["conversation"]
    assert "\n\n[... 2000 more characters truncated]" in conversation


def test_pi_reproduced_split_after_compaction(tmp_path_factory: pytest.TempPathFactory) -> None:
    """With ``pi_quirks`` pi-lsp writes what Pi wrote, and the next request shows the accident."""
    case = load_case(QUIRK_CASE, tmp_path_factory)
    check_case(case, pi_quirks=True)
    last = case.requests[-1]["messages"][1:]
    assert chat_view(case.entries, _before_last_answer(case.entries)) == simplify(last)
    summaries = [m for m in simplify(last) if m[1].startswith("The conversation history")]
    assert len(summaries) == 2  # the old summary again, after newer messages


def test_pi_lsp_corrects_split_after_compaction(tmp_path_factory: pytest.TempPathFactory) -> None:
    """pi-lsp's expectation for the same run: ``overrides/compaction-split-after-compaction``."""
    override = OVERRIDES / QUIRK_CASE
    corrected = load_case(QUIRK_CASE, tmp_path_factory, session_from=override)
    golden = load_case(QUIRK_CASE, tmp_path_factory)

    # the override only changes the second compaction entry; everything else is Pi's
    changed = [
        (mine["id"], theirs["id"])
        for mine, theirs in zip(corrected.entries, golden.entries, strict=True)
        if mine != theirs
    ]
    assert changed == [("{E12}", "{E12}")]

    points = compaction_points(corrected)
    expected_requests = json.loads((override / "expected-summary-requests.json").read_text())
    requests = summary_request_indices(corrected)
    used = 0
    for number, position in enumerate(points):
        seen = reproduce(corrected, position, requests[used], pi_quirks=False)
        for request in seen.requests:
            assert masked_request(request) == expected_requests[used]
            used += 1
        assert seen.entry == corrected.entries[position]
        assert corrected.compaction_ends[number]["result"] == seen.result
    assert used == len(expected_requests)
    # the first request is unchanged from Pi's
    assert expected_requests[0] == masked_golden_request(golden.requests[requests[0]])

    expected_context = json.loads((override / "expected-context.json").read_text())
    leaf = _before_last_answer(corrected.entries)
    assert chat_view(corrected.entries, leaf) == simplify(expected_context)
    summaries = [m for m in simplify(expected_context) if m[1].startswith("The conversation")]
    assert len(summaries) == 1


# --- the next request's messages (text only) -----------------------------------------------------


def _before_last_answer(entries: list[dict[str, Any]]) -> str:
    """The leaf the last request was built from: the entry before the final answer."""
    return str(entries[-1]["parentId"])


def simplify(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Chat-completions messages as (role, text): enough for a text-only conversation."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = "".join(part["text"] for part in content if part["type"] == "text")
        out.append((message["role"], content))
    return out


def chat_view(entries: list[dict[str, Any]], leaf: str) -> list[tuple[str, str]]:
    messages = convert_to_llm(build_session_context(entries, leaf).messages)
    return [
        (
            m["role"],
            "".join(b["text"] for b in m["content"] if b["type"] == "text")
            if isinstance(m["content"], list)
            else m["content"],
        )
        for m in messages
    ]
