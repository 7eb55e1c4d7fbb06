#!/usr/bin/env python3
"""Cost of one large context file, per MB, at 0.25 / 1 / 4 MB; run by hand.

    .venv/bin/python bench/large_context_bench.py [--sizes 0.25,1,4] [--no-cli]

Two chains of two files each: a short parent AGENTS.md whose rules the large file
contradicts and repeats, then the large file (``tests/prose.py``): ``sections`` is prose
with headings, paragraphs, bullet and numbered lists and code fences; ``paragraph`` is the
same kind of sentences as one wrapped paragraph. For each size it prints the CPU seconds of
``find_conflicts`` over the chain with the size budget lifted (so the whole file is read:
this is the linear part) and with the default size budget, per MB, and the wall time of
``pi-lsp check`` over a folder holding the chain (fresh process, default budget).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pi_lsp.lint.conflicts import INSTRUCTION_BUDGET, find_conflicts  # noqa: E402
from tests.prose import PARENT_RULES, context_prose, one_paragraph  # noqa: E402

MB = 1024 * 1024
SHAPES: dict[str, Callable[[int], str]] = {"sections": context_prose, "paragraph": one_paragraph}


def _cpu(text: str, budget: int | None, run: int) -> tuple[float, int]:
    chain = [("/g/AGENTS.md", PARENT_RULES), (f"/r{run}/AGENTS.md", text)]
    start = time.process_time()
    findings = find_conflicts(chain) if budget is None else find_conflicts(chain, budget)
    return time.process_time() - start, len(findings)


def _check_wall(text: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("home", "agent", "ws/pkg"):
            (root / name).mkdir(parents=True)
        (root / "ws" / "AGENTS.md").write_text(PARENT_RULES)
        (root / "ws" / "pkg" / "AGENTS.md").write_text(text)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        env.update(HOME=str(root / "home"), PI_CODING_AGENT_DIR=str(root / "agent"))
        env["PYTHONPATH"] = str(REPO)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pi_lsp", "check", "--format", "json"],
            cwd=root / "ws",
            env=env,
            capture_output=True,
            check=False,
        )
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="0.25,1,4", help="MB, comma-separated")
    parser.add_argument("--no-cli", action="store_true", help="skip the pi-lsp check runs")
    opts = parser.parse_args()
    sizes = [float(s) for s in opts.sizes.split(",")]
    find_conflicts([("/warm/AGENTS.md", context_prose(20_000))])  # patterns compiled
    budget = f"{INSTRUCTION_BUDGET // 1024} KiB budget: s"
    print(f"shape      MB    whole file: s   s/MB  findings | {budget:>17}  s/MB | check: s")
    for name, shape in SHAPES.items():
        for run, size in enumerate(sizes):
            text = shape(int(size * MB))
            mb = len(text) / MB
            whole, found = _cpu(text, len(text) + 1, 2 * run)
            bounded, _ = _cpu(text, None, 2 * run + 1)
            wall = float("nan") if opts.no_cli else _check_wall(text)
            print(
                f"{name:9} {mb:5.2f}  {whole:14.2f} {whole / mb:6.2f} {found:9} | "
                f"{bounded:17.2f} {bounded / mb:5.2f} | {wall:8.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
