"""Every tool case of shared/conformance through ``pi-lsp tool``, as a user would run it.

Tool results are compared byte for byte after the README's normalization (rule 3), except where
the case itself says the order is fd's (find) and the two recorded Pi bugs, for which pi-lsp's
own expectation lives in ``overrides/`` (spec §15.1, issue 2).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.harness import (
    CONFORMANCE,
    CaseWorkspace,
    build_case,
    digest_long_texts,
    expected_tool_events,
    expected_tool_results,
    normalize,
    run_cli,
    tool_calls,
)

OVERRIDES = Path(__file__).parent / "overrides"
TOOL_PREFIXES = ("bash-", "read-", "grep-", "find-", "ls-", "edit-")
TOOL_CASES = sorted(
    p.name for p in CONFORMANCE.iterdir() if p.is_dir() and p.name.startswith(TOOL_PREFIXES)
)
#: Cases whose recorded text is a Pi bug; pi-lsp's corrected expectation is in overrides/.
OVERRIDDEN = {p.name for p in OVERRIDES.iterdir() if p.is_dir()}


def _expected(name: str) -> list[str]:
    if name in OVERRIDDEN:
        return [
            p.read_text(encoding="utf-8")
            for p in sorted((OVERRIDES / name).glob("expected-tool-result*.txt"))
        ]
    return [data.decode("utf-8") for data in expected_tool_results(name)]


def _lines_and_notice(text: str) -> tuple[list[str], str | None]:
    match = re.search(r"\n\n(\[[^\n]*\])$", text)
    if match is None:
        return text.split("\n"), None
    return text[: match.start()].split("\n"), match.group(1)


def _assert_same_text(name: str, index: int, got: str, want: str) -> None:
    if name == "find-limits" and index == 0:
        # fd's parallel walk picks which 3 files: compare the count and the notice (case.json)
        got_lines, got_notice = _lines_and_notice(got)
        want_lines, want_notice = _lines_and_notice(want)
        assert (len(got_lines), got_notice) == (len(want_lines), want_notice)
        assert set(got_lines) <= {"one.txt", "two.txt", "three.txt", "four.txt", "five.txt"}
    elif name == "find-limits":
        assert sorted(got.split("\n")) == sorted(want.split("\n"))
    else:
        assert got == want


def _run_calls(ws: CaseWorkspace, name: str, *flags: str) -> list[tuple[int, str]]:
    out = []
    for tool, args in tool_calls(name):
        proc = run_cli(ws, "tool", tool, json.dumps(args), *flags)
        assert proc.returncode in (0, 1), proc.stderr.decode()
        out.append((proc.returncode, normalize(proc.stdout.decode("utf-8"), ws)))
    return out


@pytest.mark.parametrize("name", TOOL_CASES)
def test_model_receives_what_pi_sends(name: str, tmp_path: Path) -> None:
    ws = build_case(name, tmp_path)
    expected = _expected(name)
    results = _run_calls(ws, name)
    assert len(results) == len(expected)
    events = sorted(expected_tool_events(name), key=_call_order)
    for index, ((code, got), want, event) in enumerate(zip(results, expected, events, strict=True)):
        _assert_same_text(name, index, got, want)
        assert code == (1 if event["isError"] else 0), f"call {index + 1}: exit status"


def _call_order(event: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(n) for n in event["toolCallId"].split("_")[1:])


@pytest.mark.parametrize("name", [n for n in TOOL_CASES if n not in OVERRIDDEN])
def test_result_details_match_pi(name: str, tmp_path: Path) -> None:
    """``--json`` gives the whole result: content and details as in Pi's tool_execution_end."""
    ws = build_case(name, tmp_path)
    results = _run_calls(ws, name, "--json")
    events = sorted(expected_tool_events(name), key=_call_order)
    for index, ((_, got_text), event) in enumerate(zip(results, events, strict=True)):
        got = json.loads(got_text)
        assert got["toolName"] == event["toolName"]
        assert got["isError"] == event["isError"], f"call {index + 1}"
        got_result = digest_long_texts(got["result"])
        want_result = digest_long_texts(event["result"])
        if name == "find-limits":  # order is fd's: content compared by the text test
            got_result.pop("content")
            want_result.pop("content")
        assert got_result == want_result, f"call {index + 1} ({event['toolName']})"
