#!/usr/bin/env python3
"""The conflict lint in the edit loop: one edit of a ~110 KB context file; run by hand.

    PYTHONPATH=$PWD .venv/bin/python bench/lint_edit_bench.py [--n 200] [--kb 110] [--seed 15]
        [--engine] [--json]

Builds a chain of two files from realistic text: a short root AGENTS.md and a large one made
by concatenating the context files of ``tests/lint_cases`` and ``tests/lint_heldout/dev``
(with ``PI_LSP_SHARED`` set: the AGENTS.md / CLAUDE.md files of the shared corpus), each under
a heading of its own, until it reaches ``--kb`` KB. Lints it once (cold: every instruction
read), then applies ``--n`` single-line edits at random lines of the large file, one at a time
(each edit starts from the previous text: half append words to a line, half insert a line,
so later lines shift), and times ``find_conflicts`` over the chain after each edit.

Times are CPU time of the thread (``time.thread_time``: the machine is shared, and waiting
for the processor is not the lint's cost); ``--clock wall`` uses ``time.perf_counter``. The
wall p50/p95 are printed beside the CPU figures either way. The split of each edit's time is
taken by wrapping, in this
process only: ``parse`` (markdown-it), ``values`` (``read_choices``, the value search inside
extraction), ``extraction`` (reading the instructions, parse and values excluded), and
``comparison`` (the rest of ``find_conflicts``). With ``--engine`` the same edits also go
through ``lint_resources`` on a snapshot rebuilt for the edited file (all lint checks, token
counts included), as the language server runs them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pi_lsp.lint import conflicts, instructions  # noqa: E402

ROOT_TEXT = """# Project rules

- Use pnpm to install packages.
- Always run the tests before committing.
- Never commit directly to main.
- Use 2 spaces for indentation.
"""
CONTEXT_NAMES = ("AGENTS.md", "CLAUDE.md", "AGENTS.override.md")
EDIT_WORDS = (
    " Use npm for scripts.",
    " Prefer tabs.",
    " Run the linter first.",
    " Keep it short.",
    " Never push to main.",
)


def source_texts() -> list[str]:
    shared = os.environ.get("PI_LSP_SHARED")
    roots = (
        [Path(shared) / "corpus" / "repos"]
        if shared
        else [REPO / "tests" / "lint_cases", REPO / "tests" / "lint_heldout" / "dev"]
    )
    texts = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.name in CONTEXT_NAMES and path.is_file():
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def large_text(kb: int) -> str:
    parts: list[str] = []
    size = 0
    texts = source_texts()
    k = 0
    while size < kb * 1000:
        text = texts[k % len(texts)]
        part = f"## Part {k + 1}\n\n{text.strip()}\n\n"
        parts.append(part)
        size += len(part.encode())
        k += 1
    return "".join(parts)


class Split:
    """Wall time spent in wrapped functions since the last reset."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self._undo: list[Callable[[], None]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        totals = self.totals

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = CLOCK()
            try:
                return original(*args, **kwargs)
            finally:
                totals[label] = totals.get(label, 0.0) + CLOCK() - start

        setattr(owner, name, timed)
        self._undo.append(lambda: setattr(owner, name, original))

    def reset(self) -> None:
        self.totals.clear()


CLOCK = time.thread_time


def install_split() -> Split:
    split = Split()
    split.wrap(instructions._PARSER, "parse", "parse")
    split.wrap(instructions, "read_choices", "values")
    split.wrap(conflicts, "instructions_of", "read")
    return split


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def edits(text: str, n: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    lines = text.split("\n")
    for i in range(n):
        at = rng.randrange(len(lines))
        words = EDIT_WORDS[i % len(EDIT_WORDS)]
        if i % 2:
            lines.insert(at, f"- Edited rule {i}:{words}")
        else:
            lines[at] = lines[at] + words if lines[at].strip() else lines[at]
        yield "\n".join(lines)


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": statistics.median(values),
        "p95": pct(values, 95),
        "max": max(values),
        "mean": statistics.fmean(values),
    }


def run(opts: argparse.Namespace) -> dict[str, Any]:
    big = large_text(opts.kb)
    root_path, big_path = "/bench/AGENTS.md", "/bench/pkg/AGENTS.md"
    chain = [(root_path, ROOT_TEXT), (big_path, big)]
    conflicts.find_conflicts([("/warm/AGENTS.md", ROOT_TEXT)])  # patterns compiled
    split = install_split()
    start = CLOCK()
    findings = conflicts.find_conflicts(chain)
    cold = (CLOCK() - start) * 1000
    cold_split = dict(split.totals)
    total: list[float] = []
    wall: list[float] = []
    parts: dict[str, list[float]] = {"parse": [], "values": [], "extraction": [], "comparison": []}
    for text in edits(big, opts.n, opts.seed):
        split.reset()
        start, start_wall = CLOCK(), time.perf_counter()
        findings = conflicts.find_conflicts([(root_path, ROOT_TEXT), (big_path, text)])
        elapsed = CLOCK() - start
        wall.append((time.perf_counter() - start_wall) * 1000)
        got = split.totals
        total.append(elapsed * 1000)
        read = got.get("read", 0.0)
        parse, values = got.get("parse", 0.0), got.get("values", 0.0)
        parts["parse"].append(parse * 1000)
        parts["values"].append(values * 1000)
        parts["extraction"].append((read - parse - values) * 1000)
        parts["comparison"].append((elapsed - read) * 1000)
    result: dict[str, Any] = {
        "kb": round(len(big.encode()) / 1000, 1),
        "lines": big.count("\n"),
        "shared": bool(os.environ.get("PI_LSP_SHARED")),
        "n": opts.n,
        "cold_ms": cold,
        "cold_split_ms": {k: v * 1000 for k, v in cold_split.items()},
        "findings": len(findings),
        "clock": "wall" if CLOCK is time.perf_counter else "cpu",
        "edit_ms": summary(total),
        "edit_wall_ms": summary(wall),
        "split_ms": {k: summary(v) for k, v in parts.items()},
    }
    if opts.engine:
        result["engine_ms"] = engine(big, opts)
    return result


def engine(big: str, opts: argparse.Namespace) -> dict[str, float]:
    from pi_lsp.lint.engine import lint_resources
    from pi_lsp.resources.loader import (
        LoadOptions,
        ResourceCache,
        load_resources,
        reload_resources,
    )

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("home", "agent", "ws/pkg"):
            (root / name).mkdir(parents=True)
        (root / "ws" / "AGENTS.md").write_text(ROOT_TEXT)
        target = root / "ws" / "pkg" / "AGENTS.md"
        target.write_text(big)
        options = LoadOptions(
            cwd=str(root / "ws" / "pkg"), agent_dir=str(root / "agent"), home=str(root / "home")
        )
        cache = ResourceCache()
        resources = load_resources(options, cache=cache)
        lint_resources(resources)
        times = []
        for text in edits(big, opts.n, opts.seed + 1):
            target.write_text(text)
            start = CLOCK()
            resources = reload_resources(resources, [str(target)], cache=cache)
            lint_resources(resources)
            times.append((CLOCK() - start) * 1000)
        return summary(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--kb", type=int, default=110)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--engine", action="store_true", help="also time lint_resources")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    opts = parser.parse_args()
    global CLOCK
    CLOCK = time.thread_time if opts.clock == "cpu" else time.perf_counter
    result = run(opts)
    if opts.json:
        print(json.dumps(result, indent=2))
        return 0
    source = "shared corpus" if result["shared"] else "lint_cases + dev"
    print(
        f"chain: root {len(ROOT_TEXT)} B + {result['kb']} KB ({result['lines']} lines, "
        f"{source}); {result['findings']} findings"
    )
    cold = ", ".join(f"{k} {v:.1f}" for k, v in result["cold_split_ms"].items())
    print(f"cold lint: {result['cold_ms']:.1f} ms ({cold})")
    e, w = result["edit_ms"], result["edit_wall_ms"]
    print(
        f"find_conflicts per edit, {opts.n} edits ({result['clock']}): p50 {e['p50']:.1f}  "
        f"p95 {e['p95']:.1f}  max {e['max']:.1f} ms  (wall p50 {w['p50']:.1f}, "
        f"p95 {w['p95']:.1f})"
    )
    for name, s in result["split_ms"].items():
        print(f"  {name:11} p50 {s['p50']:6.1f}  p95 {s['p95']:6.1f}  mean {s['mean']:6.1f} ms")
    if "engine_ms" in result:
        g = result["engine_ms"]
        print(
            f"reload + lint_resources per edit: p50 {g['p50']:.1f}  p95 {g['p95']:.1f}  "
            f"max {g['max']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
