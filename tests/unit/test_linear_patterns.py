"""No file content can freeze the engine: every pattern applied to text costs linear time in it.

Each check runs :mod:`tests.unit.linear_probe` in a process of its own, which stops any one call
at a CPU-time ceiling, and the process as a whole has a timeout here, so a pattern that
backtracks for ever fails the test instead of holding the suite. Growth is judged from CPU
time per character at two sizes (a screen at 0.5 KB / 4 KB, then 10 KB / 1 MB for anything the
screen finds suspicious), so a loaded machine slows both sizes alike and does not fail a
linear pattern; a quadratic one grows a hundredfold from 10 KB to 1 MB and fails at ten.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.unit.linear_probe import CONFIRM_LIMIT

ROOT = Path(__file__).resolve().parents[2]
# each probe has its own timeout (up to 600 s); the suite's default of 120 s cut the sweep off
# on a loaded machine, where it took over two minutes (about 50 s alone)
pytestmark = pytest.mark.timeout(660)


def probe(*args: str, timeout: float) -> list[dict[str, Any]]:
    """The probe's records; a probe still running at ``timeout`` fails the test, naming the
    pattern it was on."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.unit.linear_probe", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        output = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        last = output.strip().splitlines()[-1:] or ["(no pattern started)"]
        pytest.fail(f"the probe did not finish in {timeout} s; it was at {last[0]}")
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def super_linear(records: list[dict[str, Any]]) -> list[str]:
    return [
        f"{r['pattern']} ({r['kind']}) {r['mode']} on {r['unit']!r}: one character "
        f"costs {r['confirm']:.0f}x more at 1 MB than at 10 KB"
        for r in records
        if r.get("confirm", 0.0) > CONFIRM_LIMIT
    ]


def test_every_pattern_in_pi_lsp_is_linear_on_adversarial_text() -> None:
    records = probe(timeout=600)
    sources = {r["pattern"]: r["source"] for r in records if "source" in r}
    # the registry finds patterns by itself: a newly added one is probed without being listed
    assert len(sources) > 100
    assert "pi_lsp.resources.frontmatter._DOUBLE_QUOTED" in sources
    assert "pi_lsp.lint.instructions._SENTENCE_END" in sources
    assert "pi_lsp.lint.instructions._OVERRIDE" in sources
    assert "pi_lsp.lint.scopes._OPENING_SCOPE" in sources
    assert "pi_lsp.lint.blocks._EVENT" in sources
    assert "pi_lsp.lint.open_numbers._NUMBER" in sources
    assert "pi_lsp.prompt.credentials._ASSIGNED" in sources
    assert "pi_lsp.prompt.credentials._LONG_RUN" in sources
    assert any(name.startswith("pi_lsp.lint.choices.DIMENSIONS") for name in sources)
    assert super_linear(records) == []


def test_every_function_applying_patterns_to_user_text_is_linear() -> None:
    records = probe("--functions", timeout=600)
    assert {r["pattern"] for r in records} >= {
        "frontmatter",
        "frontmatter value continued on the next line",
        "glob matching a long path",
        "ignore rules matching a long path",
        "instructions of a context file",
        "scope of a clause",
        "model judge answer",
        "credentials masked before a model request",
        "chunks of a context file",
        "instructions of a context file read again after an edit",
        "open settings of a sentence",
    }
    assert super_linear(records) == []


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(?:x+)+y", "nested quantifier: exponential"),
        (r'"((?:[^"\\]+|\\.)*)"', "the frontmatter quote pattern of issue 13: exponential"),
        (r"\n(?=\s*\n)", "a lookahead rescanning the blank lines after each one: quadratic"),
        (r"\$\{([0-9]+|@):-([^}]*)\}", "a template default left unclosed, rescanned: quadratic"),
    ],
)
def test_the_probe_fails_a_backtracking_pattern(pattern: str, why: str) -> None:
    records = probe("--pattern", pattern, timeout=300)
    assert super_linear(records), why
