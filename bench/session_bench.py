#!/usr/bin/env python3
"""The Session boundary on W5 and scaled copies of it (run by hand, never in CI).

    python3 ../shared/bench/workloads.py bench/out --only w5      # W5 itself, if missing
    .venv/bin/python bench/session_bench.py bench/out [--runs 5]
        [--scales 25000,50000,100000,200000] [--pi ~/.cache/pi-oracle] [--json]
        [--profile | --no-profile]
    .venv/bin/python bench/session_bench.py --render REPORT.json    # tables of a saved --json

W5 is ``w5_session.jsonl`` (Pi session v3, 100,000 entries). The other scales are written by
the same generator with ``--w5-entries N`` into ``OUT/w5_scaled/`` (made here when missing;
``--w5-entries 100000`` gives W5's bytes again, so the scales are one family). Each number is
the median over ``--runs`` fresh processes, one process per measurement kind:

* ``read``: ``SessionFile.read`` (no lock, nothing written): wall time, RSS growth over the
  process just before it (pi_lsp.session imported, nothing loaded) and peak growth (VmHWM,
  reset just before the call);
* ``open``: ``SessionFile.open`` (lock, read, no rewrite for a v3 file) on a copy of the file;
* ``project`` (after an untimed read): ``build_session_context`` at the leaf, from the entry
  list alone (it indexes them) and given a ready index as Pi's SessionManager passes its
  ``byId``; ``get_branch`` at the leaf; ``convert_to_llm`` of the context; the chars/4
  estimate of every message in the session, and ``estimate_context_tokens`` of the context.

Per-unit figures at each scale (µs or KB per entry, per path entry, per message: whatever the
operation walks) show whether a cost is linear; "spread" is their largest / smallest ratio.
With ``--pi`` (a Pi 0.85.0 install, ``node`` on the PATH) the same operations run through Pi's
own modules on the same file, side by side (``SessionManager.open`` for the read rows).

When W5 misses a target (or with ``--profile``), single fresh processes profile what missed:
``SessionFile.read`` under cProfile, its cyclic-GC passes timed (and the read with the GC
off), its kept memory traced by line (tracemalloc, and RSS after ``malloc_trim``); the
projection steps under cProfile. ``--json`` prints everything, every run included.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import hashlib
import io
import json
import os
import platform
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

W5_ENTRIES = 100_000
DEFAULT_SCALES = "25000,50000,100000,200000"
DEFAULT_WORKLOADS = REPO.parent / "shared" / "bench" / "workloads.py"
SCALED_DIR = "w5_scaled"

#: Targets on W5, from Pi 0.85.0's figures in shared/bench/README.md.
TARGETS = [
    # (metric, limit, label)
    ("read_ms", 1669, "open W5 (read) no slower than Pi's 1,669 ms"),
    ("read_rss_mb", 140, "open W5 (read) RSS growth ≤ 0.6 × Pi's +234 MB"),
    ("open_ms", 1669, "open W5 (write mode) no slower than Pi's 1,669 ms"),
    ("open_rss_mb", 140, "open W5 (write mode) RSS growth ≤ 140 MB"),
    ("context_ms", 40, "build context at the leaf < 40 ms (a third of Pi's 120 ms)"),
    ("context_indexed_ms", 40, "build context, index given < 40 ms"),
    ("branch_ms", 37, "get branch ≤ Pi's 37 ms"),
    ("tokens_all_ms", 112, "estimate tokens over the session ≤ Pi's 112 ms"),
]

# (metric, label, unit, what the per-unit column divides by); unit "ms" or "MB"
ROWS = [
    ("read_ms", "`SessionFile.read`", "ms", "entries"),
    ("read_rss_mb", "`SessionFile.read`: RSS growth", "MB", "entries"),
    ("read_peak_mb", "`SessionFile.read`: peak growth", "MB", "entries"),
    ("open_ms", "`SessionFile.open` (lock; v3, nothing written)", "ms", "entries"),
    ("open_rss_mb", "`SessionFile.open`: RSS growth", "MB", "entries"),
    ("open_peak_mb", "`SessionFile.open`: peak growth", "MB", "entries"),
    ("context_ms", "`build_session_context(entries, leaf)`", "ms", "path"),
    ("context_indexed_ms", "`build_session_context`, index given", "ms", "path"),
    ("branch_ms", "`get_branch()` at the leaf", "ms", "path"),
    ("branch_read_ms", "every entry of that branch read (`list(path)`)", "ms", "path"),
    ("llm_ms", "`convert_to_llm(context.messages)`", "ms", "messages"),
    ("tokens_all_ms", "estimate tokens, every message of the session", "ms", "session_messages"),
    ("tokens_context_ms", "`estimate_context_tokens(context.messages)`", "ms", None),
]

#: What the per-unit column of a row counts, and where the count is found.
BASIS = {
    "entries": "entry",
    "path": "path entry",
    "messages": "context message",
    "session_messages": "message",
}

COUNTED = {
    "path": "path entries at the leaf",
    "messages": "context messages at the leaf",
    "session_messages": "messages in the whole session",
}

PI_ROWS = {
    "read_ms": "open_ms",
    "read_rss_mb": "rss_mb",
    "read_peak_mb": "peak_mb",
    "context_ms": "context_ms",
    "context_indexed_ms": "context_indexed_ms",
    "branch_ms": "branch_ms",
    "llm_ms": "llm_ms",
    "tokens_all_ms": "tokens_ms",
}

PI_SCRIPT = r"""
const [base, file] = process.argv.slice(1);
const sm = await import(base + "/dist/core/session-manager.js");
const comp = await import(base + "/dist/core/compaction/compaction.js");
const msgs = await import(base + "/dist/core/messages.js");
const mb = (bytes) => bytes / 2 ** 20;
const rss0 = process.memoryUsage().rss;
let t = performance.now();
const manager = sm.SessionManager.open(file);
const openMs = performance.now() - t;
const rss1 = process.memoryUsage().rss;
const peak = process.resourceUsage().maxRSS * 1024;
t = performance.now();
sm.buildSessionContext(manager.getEntries(), manager.getLeafId());
const contextMs = performance.now() - t;
t = performance.now();
const context = manager.buildSessionContext();
const contextIndexedMs = performance.now() - t;
t = performance.now();
const branch = manager.getBranch();
const branchMs = performance.now() - t;
t = performance.now();
const converted = msgs.convertToLlm(context.messages);
const llmMs = performance.now() - t;
const all = manager.getEntries().flatMap((e) => sm.sessionEntryToContextMessages(e));
t = performance.now();
let tokens = 0;
for (const m of all) tokens += comp.estimateTokens(m);
const tokensMs = performance.now() - t;
console.log(JSON.stringify({
  open_ms: openMs, rss_mb: mb(rss1 - rss0), peak_mb: mb(peak - rss0),
  context_ms: contextMs, context_indexed_ms: contextIndexedMs, branch_ms: branchMs,
  llm_ms: llmMs, tokens_ms: tokensMs,
  check: { entries: manager.getEntries().length, path: branch.length,
           messages: context.messages.length, llm_messages: converted.length, tokens },
}));
"""


# ---------------------------------------------------------------------------------------------
# Memory of this process


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux ≥ 4.0); False where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        return False
    return True


class Memory:
    """RSS now vs. at construction, and the peak in between (VmHWM reset at construction)."""

    def __init__(self) -> None:
        gc.collect()
        self.rss = _status_mb("VmRSS:")
        self.peak_reset = _reset_peak()

    def growth(self) -> dict[str, float]:
        rss = _status_mb("VmRSS:")
        hwm = _status_mb("VmHWM:")
        return {
            "rss_mb": rss - self.rss,
            # without a reset, VmHWM may still hold an older, higher peak: report no less
            # than the RSS growth then
            "peak_mb": max(hwm - self.rss, rss - self.rss),
        }


# ---------------------------------------------------------------------------------------------
# One measurement, in a fresh process


def op_read(path: Path) -> dict[str, Any]:
    from pi_lsp.session.session_file import SessionFile

    memory = Memory()
    start = time.perf_counter()
    session = SessionFile.read(path)
    elapsed = time.perf_counter() - start
    grown = memory.growth()
    return {
        "read_ms": elapsed * 1000,
        "read_rss_mb": grown["rss_mb"],
        "read_peak_mb": grown["peak_mb"],
        "check": {
            "entries": len(session.entries),
            "findings": len(session.findings),
            "peak_reset": memory.peak_reset,
        },
    }


def _copy_synced(source: Path, target: Path) -> None:
    """Copy and flush to disk, so no write-back of the copy runs during the timed open."""
    shutil.copyfile(source, target)
    with target.open("rb+") as handle:
        os.fsync(handle.fileno())


def op_open(path: Path) -> dict[str, Any]:
    """``SessionFile.open`` on a copy (it takes a lock and may write: never the workload)."""
    from pi_lsp.session.session_file import SessionFile

    fd, copy_name = tempfile.mkstemp(prefix=".open-", suffix=".jsonl", dir=path.parent)
    os.close(fd)
    copy = Path(copy_name)
    try:
        _copy_synced(path, copy)
        size = copy.stat().st_size
        memory = Memory()
        start = time.perf_counter()
        session = SessionFile.open(copy)
        elapsed = time.perf_counter() - start
        grown = memory.growth()
        session.close()
        written = copy.stat().st_size != size
    finally:
        copy.unlink(missing_ok=True)
    return {
        "open_ms": elapsed * 1000,
        "open_rss_mb": grown["rss_mb"],
        "open_peak_mb": grown["peak_mb"],
        "check": {"entries": len(session.entries), "file_changed": written},
    }


def op_project(path: Path) -> dict[str, Any]:
    from pi_lsp.session.context import build_session_context, entry_messages
    from pi_lsp.session.llm_messages import convert_to_llm
    from pi_lsp.session.session_file import SessionFile
    from pi_lsp.session.tokens import estimate_context_tokens, estimate_messages_tokens
    from pi_lsp.session.tree import index_entries

    session = SessionFile.read(path)
    entries = session.entries
    leaf = session.leaf_id
    gc.collect()
    timings: dict[str, float] = {}

    start = time.perf_counter()
    context = build_session_context(entries, leaf)
    timings["context_ms"] = time.perf_counter() - start

    index = index_entries(entries)
    start = time.perf_counter()
    indexed = build_session_context(entries, leaf, by_id=index)
    timings["context_indexed_ms"] = time.perf_counter() - start

    start = time.perf_counter()
    path_entries = session.get_branch()
    timings["branch_ms"] = time.perf_counter() - start

    # the path reads entries kept in the file only when they are used: use them all once
    start = time.perf_counter()
    read_back = list(path_entries)
    timings["branch_read_ms"] = time.perf_counter() - start
    del read_back

    start = time.perf_counter()
    llm = convert_to_llm(context.messages)
    timings["llm_ms"] = time.perf_counter() - start

    every = [message for entry in entries for message in entry_messages(entry)]
    start = time.perf_counter()
    tokens_all = estimate_messages_tokens(every)
    timings["tokens_all_ms"] = time.perf_counter() - start

    start = time.perf_counter()
    estimate = estimate_context_tokens(context.messages)
    timings["tokens_context_ms"] = time.perf_counter() - start

    result: dict[str, Any] = {key: value * 1000 for key, value in timings.items()}
    result["check"] = {
        "entries": len(entries),
        "path": len(path_entries),
        "messages": len(context.messages),
        "same_with_index": len(indexed.messages) == len(context.messages),
        "llm_messages": len(llm),
        "session_messages": len(every),
        "tokens_all": tokens_all,
        "context_tokens": estimate.tokens,
    }
    return result


def _profiled(call: Any, top: int) -> dict[str, Any]:
    """cProfile of ``call()``: the top functions by own time and by cumulative time."""
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    call()
    profiler.disable()
    elapsed = time.perf_counter() - start
    stats = pstats.Stats(profiler, stream=io.StringIO())
    rows = []
    for (filename, line, name), (_cc, calls, own, cumulative, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        where = name if filename == "~" else f"{_short(filename)}:{line}({name})"
        rows.append(
            {"function": where, "calls": calls, "own_ms": own * 1000, "cum_ms": cumulative * 1000}
        )
    by_own = sorted(rows, key=lambda row: row["own_ms"], reverse=True)[:top]
    by_cum = sorted(rows, key=lambda row: row["cum_ms"], reverse=True)[:top]
    return {"profiled_ms": elapsed * 1000, "by_own": by_own, "by_cumulative": by_cum}


def op_profile_read(path: Path, top: int) -> dict[str, Any]:
    from pi_lsp.session.session_file import SessionFile

    return _profiled(lambda: SessionFile.read(path), top)


def op_profile_projection(path: Path, top: int) -> dict[str, Any]:
    """cProfile of each projection step after an unprofiled read."""
    from pi_lsp.session.context import build_session_context, entry_messages
    from pi_lsp.session.session_file import SessionFile
    from pi_lsp.session.tokens import estimate_messages_tokens

    session = SessionFile.read(path)
    entries = session.entries
    every = [message for entry in entries for message in entry_messages(entry)]
    gc.collect()
    return {
        "context": _profiled(lambda: build_session_context(entries, session.leaf_id), top),
        "branch": _profiled(session.get_branch, top),
        "tokens": _profiled(lambda: estimate_messages_tokens(every), top),
    }


def op_gc(path: Path) -> dict[str, Any]:
    """``SessionFile.read`` with the cyclic GC's passes timed and its RSS growth before and after
    ``malloc_trim(0)`` (heap fragmentation), then the same read again with the GC off."""
    from pi_lsp.session.session_file import SessionFile

    passes: list[tuple[int, float]] = []
    started: list[float] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        else:
            passes.append((info["generation"], time.perf_counter() - started.pop()))

    gc.collect()
    before = _status_mb("VmRSS:")
    gc.callbacks.append(callback)
    start = time.perf_counter()
    session = SessionFile.read(path)
    elapsed = time.perf_counter() - start
    gc.callbacks.remove(callback)
    rss = _status_mb("VmRSS:") - before
    trimmed = None
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        trimmed = _status_mb("VmRSS:") - before
    except (OSError, AttributeError):
        pass
    del session
    gc.collect()
    gc.disable()
    start = time.perf_counter()
    SessionFile.read(path)
    without = time.perf_counter() - start
    gc.enable()
    return {
        "read_ms": elapsed * 1000,
        "gc_ms": sum(seconds for _gen, seconds in passes) * 1000,
        "gc_passes": [sum(1 for gen, _s in passes if gen == g) for g in (0, 1, 2)],
        "gc_full_ms": sum(seconds for gen, seconds in passes if gen == 2) * 1000,
        "read_gc_off_ms": without * 1000,
        "rss_mb": rss,
        "rss_after_malloc_trim_mb": trimmed,
    }


def op_memory(path: Path, top: int) -> dict[str, Any]:
    """Where the memory kept after ``SessionFile.read`` was allocated (tracemalloc, by line)."""
    import tracemalloc

    from pi_lsp.session.session_file import SessionFile

    tracemalloc.start()
    session = SessionFile.read(path)
    current, peak = tracemalloc.get_traced_memory()
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    lines = [
        {
            "where": f"{_short(stat.traceback[0].filename)}:{stat.traceback[0].lineno}",
            "mb": stat.size / 2**20,
            "blocks": stat.count,
        }
        for stat in snapshot.statistics("lineno")[:top]
    ]
    return {
        "entries": len(session.entries),
        "traced_mb": current / 2**20,
        "traced_peak_mb": peak / 2**20,
        "by_line": lines,
    }


def _short(filename: str) -> str:
    """``pi_lsp/...`` or ``json/decoder.py`` instead of the absolute path."""
    if "/pi_lsp/" in filename:
        return filename[filename.rindex("/pi_lsp/") + 1 :]
    match = re.search(r"/python3\.\d+/(.*)$", filename)
    return match.group(1) if match else os.path.basename(filename)


def op_modules(_path: Path, _top: int) -> list[str]:
    """The pi_lsp source files the measured operations import."""
    import pi_lsp.session.context
    import pi_lsp.session.llm_messages
    import pi_lsp.session.session_file
    import pi_lsp.session.tokens
    import pi_lsp.session.tree  # noqa: F401

    files = {
        module.__file__
        for name, module in sys.modules.items()
        if name.split(".")[0] == "pi_lsp" and getattr(module, "__file__", None)
    }
    return sorted(str(Path(file).relative_to(REPO)) for file in files if file)


ONE = {
    "read": lambda path, _top: op_read(path),
    "open": lambda path, _top: op_open(path),
    "project": lambda path, _top: op_project(path),
    "profile-read": op_profile_read,
    "profile-projection": op_profile_projection,
    "gc": lambda path, _top: op_gc(path),
    "memory": op_memory,
    "modules": op_modules,
}

# ---------------------------------------------------------------------------------------------
# Driving the runs


def _fresh(kind: str, path: Path, top: int = 15) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--one", kind, "--file", str(path), "--top", str(top)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _pi_run(pi_home: Path, path: Path) -> dict[str, Any]:
    package = pi_home / "node_modules" / "@earendil-works" / "pi-coding-agent"
    fd, copy_name = tempfile.mkstemp(prefix=".pi-open-", suffix=".jsonl", dir=path.parent)
    os.close(fd)
    try:
        _copy_synced(path, Path(copy_name))
        proc = subprocess.run(
            ["node", "--input-type=module", "-e", PI_SCRIPT, str(package), copy_name],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(copy_name)
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _pi_available(pi_home: Path) -> str | None:
    if shutil.which("node") is None:
        return "node is not on the PATH"
    module = pi_home / "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"
    if not module.is_file():
        return f"no Pi install at {pi_home}"
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _workload(out: Path, entries: int, workloads: Path) -> tuple[Path, str | None]:
    """The session file of ``entries`` entries (generated when missing) and its expected sha."""
    main = out / "w5_session.jsonl"
    if entries == W5_ENTRIES and main.is_file():
        manifest = out / "manifest.json"
        expected = (
            json.loads(manifest.read_text()).get("w5", {}).get("sha256")
            if manifest.is_file()
            else None
        )
        return main, expected
    folder = out / SCALED_DIR
    name = f"w5_{entries}.jsonl"
    path = folder / name
    if not path.is_file():
        command = [
            sys.executable,
            str(workloads),
            str(folder),
            "--only",
            "w5",
            "--w5-entries",
            str(entries),
            "--w5-name",
            name,
        ]
        print(f"generating {path} ...", file=sys.stderr, flush=True)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    manifest = folder / "manifest.json"
    key = name.rsplit(".", 1)[0]
    expected = (
        json.loads(manifest.read_text()).get(key, {}).get("sha256") if manifest.is_file() else None
    )
    return path, expected


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def _summary(values: list[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "runs": [round(value, 2) for value in values],
    }


def measure(opts: argparse.Namespace) -> dict[str, Any]:
    out: Path = opts.out.resolve()
    scales = [int(text) for text in opts.scales.split(",") if text]
    pi_problem = _pi_available(opts.pi) if opts.pi is not None else "not requested"
    report: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "uptime_before": _uptime(),
        },
        "pi_lsp_sha256": _sources_digest(),
        "runs": opts.runs,
        "scales": [],
        "pi": {"install": str(opts.pi) if opts.pi else None, "skipped": pi_problem},
    }
    if pi_problem is None:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
        report["pi"]["node"] = node.stdout.strip()
    for entries in scales:
        path, expected = _workload(out, entries, opts.workloads)
        sha = _sha256(path)
        scale: dict[str, Any] = {
            "entries": entries,
            "file": str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
            "path": str(path),
            "bytes": path.stat().st_size,
            "sha256": sha,
            "sha256_matches_manifest": None if expected is None else sha == expected,
            "metrics": {},
            "checks": {},
        }
        raw: dict[str, list[float]] = {}
        for kind in ("read", "open", "project"):
            for run in range(opts.runs):
                print(
                    f"{entries:>7} {kind:8} run {run + 1}/{opts.runs}", file=sys.stderr, flush=True
                )
                result = _fresh(kind, path)
                scale["checks"].setdefault(kind, result.pop("check"))
                for key, value in result.items():
                    raw.setdefault(key, []).append(value)
        scale["metrics"] = {key: _summary(values) for key, values in raw.items()}
        if pi_problem is None:
            pi_raw: dict[str, list[float]] = {}
            for run in range(opts.runs):
                print(
                    f"{entries:>7} pi       run {run + 1}/{opts.runs}", file=sys.stderr, flush=True
                )
                result = _pi_run(opts.pi, path)
                scale.setdefault("pi_check", result.pop("check"))
                for key, value in result.items():
                    pi_raw.setdefault(key, []).append(value)
            scale["pi"] = {key: _summary(values) for key, values in pi_raw.items()}
        report["scales"].append(scale)
    report["machine"]["uptime_after"] = _uptime()
    if report["pi_lsp_sha256"] != _sources_digest():
        report["warning"] = "the pi_lsp sources measured changed while the benchmark ran"
    report["targets"] = _targets(report)
    missed = {target["metric"] for target in report["targets"] if not target["met"]}
    load_missed = any(metric.startswith(("read", "open")) for metric in missed)
    projection_missed = any(not metric.startswith(("read", "open")) for metric in missed)
    if not opts.no_profile and (opts.profile or load_missed or projection_missed):
        report["profile"] = _profile(
            report,
            out,
            opts,
            load=opts.profile or load_missed,
            projection=opts.profile or projection_missed,
        )
    return report


def _w5(report: dict[str, Any]) -> dict[str, Any] | None:
    return next((scale for scale in report["scales"] if scale["entries"] == W5_ENTRIES), None)


def _targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    scale = _w5(report)
    if scale is None:
        return []
    targets = []
    for metric, limit, label in TARGETS:
        if metric not in scale["metrics"]:
            continue
        value = scale["metrics"][metric]["median"]
        met = value < limit if metric.startswith("context") else value <= limit
        targets.append(
            {"metric": metric, "label": label, "limit": limit, "median": value, "met": met}
        )
    return targets


def _profile(
    report: dict[str, Any], out: Path, opts: argparse.Namespace, *, load: bool, projection: bool
) -> dict[str, Any]:
    scale = _w5(report)
    path = out / "w5_session.jsonl" if scale is None else Path(scale["path"])
    profile: dict[str, Any] = {"file": str(path)}
    if load:
        print("profiling SessionFile.read on W5 ...", file=sys.stderr, flush=True)
        profile["read"] = _fresh("profile-read", path, opts.top)
        profile["gc"] = _fresh("gc", path)
        profile["memory"] = _fresh("memory", path, opts.top)
    if projection:
        print("profiling the projection on W5 ...", file=sys.stderr, flush=True)
        profile["projection"] = _fresh("profile-projection", path, opts.top)
    return profile


def _sources_digest() -> str:
    """sha256 over the pi_lsp files the benchmark imports (paths and bytes): the code measured."""
    proc = subprocess.run(
        [sys.executable, __file__, "--one", "modules", "--file", "."],
        capture_output=True,
        text=True,
        check=True,
    )
    digest = hashlib.sha256()
    for name in json.loads(proc.stdout):
        digest.update(name.encode() + b"\0" + (REPO / name).read_bytes() + b"\0")
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------------
# Printing


def _fmt(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value:,.0f}"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"


README_PI = {
    "read_ms": "1,669",
    "read_rss_mb": "+234",
    "open_ms": "1,669",
    "open_rss_mb": "+234",
    "context_ms": "120",
    "context_indexed_ms": "120",
    "branch_ms": "37",
    "tokens_all_ms": "112",
}


def _per_unit(value: float, unit: str, count: int) -> float:
    """µs per unit for a time, KB per unit for a size."""
    return value * 1000 / count if unit == "ms" else value * 1024 / count


def _count(scale: dict[str, Any], basis: str) -> int:
    if basis == "entries":
        return int(scale["entries"])
    return int(scale["checks"]["project"][basis])


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render(report: dict[str, Any]) -> str:
    scales = report["scales"]
    w5 = _w5(report)
    has_pi = w5 is not None and "pi" in w5
    lines = [
        f"Session boundary, {report['date']}: median of {report['runs']} fresh processes"
        f" per figure; measured pi_lsp sources sha256 {report['pi_lsp_sha256'][:12]}",
        f"load before: {report['machine']['uptime_before']}",
        f"load after:  {report['machine']['uptime_after']}",
    ]
    if "warning" in report:
        lines.append(f"WARNING: {report['warning']}")
    header = ["operation", *(f"{scale['entries']:,}" for scale in scales)]
    header += ["per", "µs (KB) per unit, by scale", "spread"]
    if has_pi:
        header.append(f"Pi 0.85.0 here ({W5_ENTRIES:,})")
    header.append("Pi 0.85.0 (README)")
    blank = [""] * (len(header) - 1 - len(scales))
    lines += ["", _row(header), "|" + "---|" * len(header)]
    lines.append(_row(["file (MB)", *(f"{s['bytes'] / 2**20:,.0f}" for s in scales), *blank]))
    for basis in ("path", "messages", "session_messages"):
        counts = [f"{_count(scale, basis):,}" for scale in scales]
        lines.append(_row([COUNTED[basis], *counts, *blank]))
    for metric, label, unit, basis in ROWS:
        if not all(metric in scale["metrics"] for scale in scales):
            continue
        medians = [scale["metrics"][metric]["median"] for scale in scales]
        cells = [f"{label} ({unit})", *(_fmt(median, unit) for median in medians)]
        if basis is None:
            cells += ["—", "", ""]
        else:
            per = [
                _per_unit(median, unit, _count(scale, basis))
                for median, scale in zip(medians, scales, strict=True)
            ]
            positive = [value for value in per if value > 0]
            spread = max(positive) / min(positive) if len(positive) > 1 else 0.0
            cells.append(BASIS[basis])
            cells.append(" / ".join(f"{value:.3g}" for value in per))
            cells.append(f"{spread:.2f}×" if spread else "")
        if has_pi:
            assert w5 is not None
            pi_key = PI_ROWS.get(metric)
            pi = w5["pi"]
            cells.append(_fmt(pi[pi_key]["median"], unit) if pi_key in pi else "")
        cells.append(README_PI.get(metric, ""))
        lines.append(_row(cells))
    lines += ["", "Checks (first run of each kind):"]
    for scale in scales:
        project = scale["checks"]["project"]
        match = scale["sha256_matches_manifest"]
        matched = "" if match is None else " (= manifest)" if match else " (DIFFERS from manifest)"
        lines.append(
            f"- {scale['entries']:,} entries, {scale['file']}, sha256 {scale['sha256'][:16]}"
            f"{matched}: {project['messages']:,} context messages → {project['llm_messages']:,}"
            f" LLM messages; {project['session_messages']:,} messages in the session ≈"
            f" {project['tokens_all']:,} tokens; context estimate {project['context_tokens']:,}"
            f" tokens; read findings {scale['checks']['read']['findings']}; open changed the"
            f" file: {scale['checks']['open']['file_changed']}"
        )
        if "pi_check" in scale:
            pi = scale["pi_check"]
            ours = (project["path"], project["messages"], project["tokens_all"])
            same = (pi["path"], pi["messages"], pi["tokens"]) == ours
            lines.append(
                f"  Pi: path {pi['path']:,}, {pi['messages']:,} context messages,"
                f" {pi['tokens']:,} tokens ({'same' if same else 'DIFFERENT'})"
            )
    skipped = report["pi"].get("skipped")
    if skipped not in (None, "not requested"):
        lines.append(f"- Pi side by side skipped: {skipped}")
    elif report["pi"].get("node"):
        lines.append(f"- Pi side by side: node {report['pi']['node']}, {report['pi']['install']}")
    if report["targets"]:
        lines += ["", f"Targets on W5 ({W5_ENTRIES:,} entries), medians:"]
        for target in report["targets"]:
            unit = "MB" if target["metric"].endswith("mb") else "ms"
            verdict = "met" if target["met"] else "NOT met"
            lines.append(f"- {target['label']}: {_fmt(target['median'], unit)} {unit}: {verdict}")
    if "profile" in report:
        lines += ["", *_render_profile(report["profile"])]
    return "\n".join(lines)


def _function_table(profiled: dict[str, Any], title: str) -> list[str]:
    lines = [
        f"{title}: {profiled['profiled_ms']:,.0f} ms under cProfile; top functions by own time",
        "",
        "| function | calls | own ms | cumulative ms |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{row['function']}` | {row['calls']:,} | {row['own_ms']:,.0f} | {row['cum_ms']:,.0f} |"
        for row in profiled["by_own"]
    ]
    lines += [
        "",
        "by cumulative time:",
        "",
        "| function | calls | cumulative ms |",
        "|---|---|---|",
    ]
    lines += [
        f"| `{row['function']}` | {row['calls']:,} | {row['cum_ms']:,.0f} |"
        for row in profiled["by_cumulative"]
    ]
    return [*lines, ""]


def _render_profile(profile: dict[str, Any]) -> list[str]:
    lines = [f"Profiles on {profile['file']} (single fresh processes)", ""]
    if "read" in profile:
        lines += _function_table(profile["read"], "`SessionFile.read`")
        gc_info = profile["gc"]
        memory = profile["memory"]
        trimmed = gc_info["rss_after_malloc_trim_mb"]
        lines += [
            f"Cyclic GC during the read: {gc_info['gc_ms']:,.0f} ms of {gc_info['read_ms']:,.0f}"
            f" ms, passes per generation {gc_info['gc_passes']} (full passes"
            f" {gc_info['gc_full_ms']:,.0f} ms); the same read with the GC off:"
            f" {gc_info['read_gc_off_ms']:,.0f} ms.",
            "",
            f"Memory: RSS grew {gc_info['rss_mb']:,.0f} MB"
            + ("" if trimmed is None else f", {trimmed:,.0f} MB after malloc_trim(0)")
            + f"; tracemalloc (another process) sees {memory['traced_mb']:,.0f} MB of live"
            f" objects after the read, peak {memory['traced_peak_mb']:,.0f} MB. Live memory by"
            " allocating line:",
            "",
            "| line | MB | blocks |",
            "|---|---|---|",
        ]
        lines += [
            f"| `{row['where']}` | {row['mb']:,.1f} | {row['blocks']:,} |"
            for row in memory["by_line"]
        ]
        lines.append("")
    for name, title in (
        ("context", "`build_session_context(entries, leaf)`"),
        ("branch", "`get_branch()`"),
        ("tokens", "token estimate of every message"),
    ):
        if name in profile.get("projection", {}):
            lines += _function_table(profile["projection"][name], title)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "out", type=Path, nargs="?", help="the workloads.py output folder (holds w5_session.jsonl)"
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="fresh processes per measurement (median)"
    )
    parser.add_argument("--scales", default=DEFAULT_SCALES, help="entry counts, comma-separated")
    parser.add_argument(
        "--workloads", type=Path, default=DEFAULT_WORKLOADS, help="shared/bench/workloads.py"
    )
    parser.add_argument(
        "--pi", type=Path, help="a Pi 0.85.0 install (~/.cache/pi-oracle) to time side by side"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--render", type=Path, metavar="REPORT", help="print the tables of a saved --json report"
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile the read even if it meets its targets"
    )
    parser.add_argument("--no-profile", action="store_true", help="never profile")
    parser.add_argument("--top", type=int, default=15, help="functions / lines in the profile")
    parser.add_argument("--one", choices=sorted(ONE), help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.one:
        print(json.dumps(ONE[opts.one](opts.file.resolve(), opts.top)))
        return 0
    if opts.render is not None:
        print(render(json.loads(opts.render.read_text())))
        return 0
    if opts.out is None:
        parser.error("the workloads folder (OUT) is required")
    report = measure(opts)
    print(json.dumps(report, indent=1, ensure_ascii=False) if opts.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
