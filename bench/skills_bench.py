#!/usr/bin/env python3
"""Time loading the 2,000 skills of workload W4 (run by hand, never in CI).

    python3 ../shared/bench/workloads.py bench/out --only w4
    .venv/bin/python bench/skills_bench.py bench/out [--runs 5] [--pi ~/.cache/pi-oracle]

Each run is a fresh process that imports the engine, then times

* ``cold``: the first ``load_skills`` of the W4 skills folder (as Pi's ``loadSkills`` with the
  folder as a skill path);
* ``reload``: a second load with the parse cache of the first, nothing changed;
* ``reload-1``: a third load after one ``SKILL.md`` got a new modification time (only that
  file is parsed again).

The median of the runs is reported. With ``--pi`` pointing at an install of Pi 0.85.0 (the
oracle's ``~/.cache/pi-oracle``) and ``node`` on the PATH, Pi's ``loadSkills`` on the same
folder is timed the same way, side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PI_MODULE = "node_modules/@earendil-works/pi-coding-agent/dist/core/skills.js"
PI_SCRIPT = """
const { loadSkills } = await import(process.argv[1]);
const dir = process.argv[2];
const t0 = performance.now();
const options = { cwd: "/", agentDir: "/nonexistent", skillPaths: [dir], includeDefaults: false };
const r = loadSkills(options);
const ms = performance.now() - t0;
console.log(JSON.stringify({ ms, skills: r.skills.length, diagnostics: r.diagnostics.length }));
"""


def skills_folder(out: Path) -> Path:
    manifest = json.loads((out / "manifest.json").read_text())
    relative: str = manifest["w4"]["skills_root"]
    return (out / relative).resolve()


def one_run(out: Path) -> dict[str, Any]:
    """The three timings in this (fresh) process."""
    start = time.perf_counter()
    from pi_lsp.resources.skills import SkillParseCache, SkillRoot, load_skills

    import_ms = (time.perf_counter() - start) * 1000
    folder = skills_folder(out)
    roots = [SkillRoot(str(folder), "explicit")]
    cache = SkillParseCache()

    start = time.perf_counter()
    cold = load_skills(roots, cache=cache)
    cold_ms = (time.perf_counter() - start) * 1000

    start = time.perf_counter()
    warm = load_skills(roots, cache=cache)
    warm_ms = (time.perf_counter() - start) * 1000

    touched = Path(cold.skills[len(cold.skills) // 2].file_path)
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    try:
        start = time.perf_counter()
        changed = load_skills(roots, cache=cache)
        changed_ms = (time.perf_counter() - start) * 1000
    finally:
        os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return {
        "import_ms": import_ms,
        "cold_ms": cold_ms,
        "reload_ms": warm_ms,
        "reload_one_ms": changed_ms,
        "skills": len(cold.skills),
        "findings": len(cold.findings),
        "pi_diagnostics": len(cold.pi_diagnostics()),
        "parsed": [cold.parsed, warm.parsed, changed.parsed],
    }


def pi_run(out: Path, pi_home: Path) -> dict[str, Any]:
    module = pi_home / PI_MODULE
    proc = subprocess.run(
        ["node", "--input-type=module", "-e", PI_SCRIPT, str(module), str(skills_folder(out))],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="the workloads.py output folder (holds w4/)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pi", type=Path, help="a Pi 0.85.0 install to time side by side")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()

    if opts.one:
        print(json.dumps(one_run(opts.out)))
        return 0

    runs = []
    for _ in range(opts.runs):
        proc = subprocess.run(
            [sys.executable, __file__, str(opts.out), "--one"],
            check=True,
            capture_output=True,
            text=True,
        )
        runs.append(json.loads(proc.stdout))
    first = runs[0]
    print(
        f"W4: {first['skills']} skills, {first['findings']} findings "
        f"({first['pi_diagnostics']} that Pi reports); files parsed per load: {first['parsed']}"
    )
    for key, label in (
        ("import_ms", "import pi_lsp.resources.skills"),
        ("cold_ms", "cold load"),
        ("reload_ms", "reload, nothing changed"),
        ("reload_one_ms", "reload after touching one SKILL.md"),
    ):
        values = [run[key] for run in runs]
        print(
            f"  {label:<38} median {statistics.median(values):7.1f} ms  "
            f"(min {min(values):.1f}, max {max(values):.1f})"
        )
    if opts.pi is not None:
        if shutil.which("node") is None or not (opts.pi / PI_MODULE).is_file():
            print("  Pi: not available (needs node and the Pi install)")
            return 0
        pi_runs = [pi_run(opts.out, opts.pi) for _ in range(opts.runs)]
        values = [run["ms"] for run in pi_runs]
        label = "Pi 0.85.0 loadSkills (fresh node)"
        print(
            f"  {label:<38} median {statistics.median(values):7.1f} ms"
            f"  (min {min(values):.1f}, max {max(values):.1f}; {pi_runs[0]['skills']} skills, "
            f"{pi_runs[0]['diagnostics']} diagnostics)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
