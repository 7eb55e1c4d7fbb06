#!/usr/bin/env python3
"""Lint latency after one file changes, on W4 (2,000 skills, 40 levels); run by hand.

    python3 ../shared/bench/workloads.py bench/out --only w4
    .venv/bin/python bench/lint_bench.py bench/out [--repeat 20]

Measures what the language server does after an edit: rebuild the snapshot for the changed
file (``reload_resources``) and lint it (``lint_resources``), once warm.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pi_lsp.lint.engine import lint_resources  # noqa: E402
from pi_lsp.resources.loader import (  # noqa: E402
    LoadOptions,
    ResourceCache,
    load_resources,
    reload_resources,
)


def measure(out: Path, repeat: int) -> None:
    manifest = json.loads((out / "manifest.json").read_text())["w4"]
    with tempfile.TemporaryDirectory() as home:
        options = LoadOptions(
            cwd=str(out / manifest["cwd"]),
            agent_dir=str(out / manifest["agent_dir"]),
            skill_paths=(str(out / "w4" / "skills"),),
            home=home,
            env={},
        )
        cache = ResourceCache()
        resources = load_resources(options, cache=cache)
        lint_resources(resources)  # warm: tokenizer loaded, instructions parsed
        targets = {
            "SKILL.md": Path(resources.skills[1000].file_path),
            "AGENTS.md": Path(resources.context_files.files[-1].path),
        }
        for label, target in targets.items():
            original = target.read_bytes()
            times = []
            try:
                for i in range(repeat):
                    target.write_bytes(original + f"\n<!-- edit {i} -->\n".encode())
                    start = time.perf_counter()
                    resources = reload_resources(resources, [str(target)], cache=cache)
                    diagnostics = lint_resources(resources)
                    times.append((time.perf_counter() - start) * 1000)
            finally:
                target.write_bytes(original)
            print(
                f"edit {label:9} reload+lint median {statistics.median(times):6.1f} ms "
                f"(min {min(times):.1f}, max {max(times):.1f}; {len(diagnostics)} diagnostics)"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    opts = parser.parse_args()
    measure(opts.out.resolve(), opts.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
