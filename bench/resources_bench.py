#!/usr/bin/env python3
"""Loading the Resource boundary on W4 (run by hand, never in CI).

    python3 ../shared/bench/workloads.py bench/out --only w4
    .venv/bin/python bench/resources_bench.py bench/out [--runs 5]

W4: 40 nested levels of AGENTS.md / CLAUDE.md / AGENTS.override.md with an agent-dir AGENTS.md,
and 2,000 SKILL.md files passed as a skills path (as Pi 0.85.0 was measured). Each run is a
fresh process: import time, cold load of everything, then a rebuild after one SKILL.md changed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def one_run(out: Path) -> dict[str, float]:
    start = time.perf_counter()
    from pi_lsp.resources.loader import LoadOptions, ResourceCache, load_resources, reload_resources

    imported = time.perf_counter()
    manifest = json.loads((out / "manifest.json").read_text())["w4"]
    skills_dir = out / "w4" / "skills"
    with tempfile.TemporaryDirectory() as home:
        options = LoadOptions(
            cwd=str(out / manifest["cwd"]),
            agent_dir=str(out / manifest["agent_dir"]),
            skill_paths=(str(skills_dir),),
            home=home,
            env={},
        )
        cache = ResourceCache()
        t0 = time.perf_counter()
        resources = load_resources(options, cache=cache)
        t1 = time.perf_counter()
        target = Path(resources.skills[1000].file_path)
        original = target.read_bytes()
        try:
            target.write_bytes(original.replace(b"description:", b"description: Edited.", 1))
            t2 = time.perf_counter()
            rebuilt = reload_resources(resources, [str(target)], cache=cache)
            t3 = time.perf_counter()
        finally:
            target.write_bytes(original)
            os.utime(target)
    return {
        "import_ms": (imported - start) * 1000,
        "cold_ms": (t1 - t0) * 1000,
        "rebuild_ms": (t3 - t2) * 1000,
        "context_files": len(resources.context_files.files),
        "skills": len(resources.skills),
        "findings": len(resources.findings),
        "reparsed": rebuilt.skill_load.parsed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.one:
        print(json.dumps(one_run(opts.out.resolve())))
        return 0
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, __file__, str(opts.out), "--one"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for _ in range(opts.runs)
    ]
    for key in ("import_ms", "cold_ms", "rebuild_ms"):
        values = [r[key] for r in runs]
        median = statistics.median(values)
        print(f"{key:11} median {median:7.1f}  min {min(values):7.1f}  max {max(values):7.1f}")
    last = runs[-1]
    print(
        f"context files {last['context_files']}, skills {last['skills']}, "
        f"findings {last['findings']}, files re-parsed by the rebuild {last['reparsed']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
