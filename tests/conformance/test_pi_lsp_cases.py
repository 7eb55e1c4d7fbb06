"""pi-lsp's own golden cases (``cases/``, recorded from Pi 0.85.0) through ``pi-lsp prompt``.

Every case passes ``--system-prompt``, so the whole prompt is the custom-prompt layout and is
compared byte for byte (README rule 3), with the skills preamble masked on both sides (rule 4;
the recorded files are stored already masked). pi-lsp gets the working directory as
``--cwd`` spelled as the case spells it (through a symlink where the case has one): Pi started
there sees the real path, and so must pi-lsp.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.harness import (
    OWN_CASES,
    CaseWorkspace,
    build_case,
    mask_skills_preamble,
    normalize,
    run_cli,
)

CASES = sorted(p.name for p in OWN_CASES.iterdir() if (p / "case.json").is_file())


def _meta(name: str) -> dict[str, object]:
    meta: dict[str, object] = json.loads((OWN_CASES / name / "case.json").read_text())
    return meta


def _pi_args(name: str, ws: CaseWorkspace) -> list[str]:
    args = _meta(name)["pi_args"]
    assert isinstance(args, list)
    return [a.replace("{WS}", str(ws.root)).replace("{CWD}", str(ws.cwd)) for a in args]


def test_cases_exist_and_use_a_custom_prompt() -> None:
    assert len(CASES) >= 10
    for name in CASES:
        args = _meta(name)["pi_args"]
        assert isinstance(args, list) and "--system-prompt" in args, name
        assert (OWN_CASES / name / "expected-system-prompt.txt").is_file(), name


@pytest.mark.parametrize("name", CASES)
def test_prompt_matches_pi(name: str, tmp_path: Path) -> None:
    ws = build_case(name, tmp_path, case_root=OWN_CASES)
    spelled_cwd = ws.root / str(_meta(name)["cwd"])
    proc = run_cli(ws, "prompt", "--cwd", str(spelled_cwd), *_pi_args(name, ws))
    assert proc.returncode == 0, proc.stderr.decode()
    got = mask_skills_preamble(normalize(proc.stdout.decode("utf-8"), ws))
    want = mask_skills_preamble(
        (OWN_CASES / name / "expected-system-prompt.txt").read_bytes().decode("utf-8")
    )
    assert got == want
