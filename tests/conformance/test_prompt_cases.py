"""Every system-prompt case of shared/conformance through ``pi-lsp prompt``.

Compared under the README's contract: custom-prompt cases byte for byte, default-layout cases
from the first of ``<project_context>``, the skills list or the working-directory line to the
end (what comes before is Pi's own prose, which pi-lsp words differently), the paragraph that
introduces the skills list masked on both sides, and the request's tool names in order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.harness import (
    CONFORMANCE,
    CaseWorkspace,
    build_case,
    mask_skills_preamble,
    normalize,
    run_cli,
)
from tests.conformance.pi_prose import from_structural_start

PROMPT_CASES = sorted(p.name for p in CONFORMANCE.iterdir() if p.name.startswith("sp-"))
CUSTOM_LAYOUT = {"sp-system-md-trusted", "sp-system-md-untrusted", "sp-cli-prompts"}


def _pi_args(name: str, ws: CaseWorkspace) -> list[str]:
    meta = json.loads((CONFORMANCE / name / "case.json").read_text())
    return [a.replace("{WS}", str(ws.root)).replace("{CWD}", str(ws.cwd)) for a in meta["pi_args"]]


def _expected_tools(name: str) -> list[str]:
    requests = json.loads((CONFORMANCE / name / "expected-requests.json").read_text())
    return [tool["function"]["name"] for tool in requests[0].get("tools", [])]


@pytest.mark.parametrize("name", PROMPT_CASES)
def test_prompt_matches_pi(name: str, tmp_path: Path) -> None:
    ws = build_case(name, tmp_path)
    proc = run_cli(ws, "prompt", *_pi_args(name, ws))
    assert proc.returncode == 0, proc.stderr.decode()
    got = mask_skills_preamble(normalize(proc.stdout.decode("utf-8"), ws))
    want = mask_skills_preamble(
        (CONFORMANCE / name / "expected-system-prompt.txt").read_bytes().decode("utf-8")
    )
    if name in CUSTOM_LAYOUT:
        assert got == want
    else:
        assert from_structural_start(got) == from_structural_start(want)


@pytest.mark.parametrize(
    "name", [n for n in PROMPT_CASES if (CONFORMANCE / n / "expected-requests.json").exists()]
)
def test_request_tools_match_pi(name: str, tmp_path: Path) -> None:
    ws = build_case(name, tmp_path)
    proc = run_cli(ws, "prompt", *_pi_args(name, ws), "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["tools"] == _expected_tools(name)
