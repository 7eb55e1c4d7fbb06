#!/usr/bin/env python3
"""Time and memory of the Tool boundary on the shared workloads (run by hand, never in CI).

    python3 ../shared/bench/workloads.py bench/out --only w1,w2,w3
    .venv/bin/python bench/tools_bench.py bench/out [--runs 5]

Each measurement runs in a fresh process (``--one NAME``) and is repeated; the median is
reported with the peak-RSS growth over the process's state just before the operation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CHUNK = 64 * 1024


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def op_tail_w1_str(out: Path) -> dict[str, Any]:
    from pi_lsp.tools.truncation import truncate_tail

    text = (out / "w1_bash.log").read_bytes().decode("utf-8")
    start = time.perf_counter()
    result = truncate_tail(text)
    elapsed = time.perf_counter() - start
    return {
        "ms": elapsed * 1000,
        "check": [result.output_lines, result.output_bytes, result.truncated_by],
    }


def op_tail_w1_bytes(out: Path) -> dict[str, Any]:
    from pi_lsp.tools.truncation import truncate_tail_bytes

    data = (out / "w1_bash.log").read_bytes()
    start = time.perf_counter()
    result = truncate_tail_bytes(data)
    elapsed = time.perf_counter() - start
    return {
        "ms": elapsed * 1000,
        "check": [result.output_lines, result.output_bytes, result.truncated_by],
    }


def op_tail_w3(out: Path) -> dict[str, Any]:
    from pi_lsp.tools.truncation import truncate_tail

    text = (out / "w3_minified.js").read_bytes().decode("utf-8")
    start = time.perf_counter()
    result = truncate_tail(text)
    elapsed = time.perf_counter() - start
    return {"ms": elapsed * 1000, "check": [result.output_bytes, result.last_line_partial]}


def op_stream_w1(out: Path, want_text: bool = False) -> dict[str, Any]:
    """W1 as 1,468 chunks of 64 KiB through the bash accumulator (spill file included).

    ``want_text`` also decodes every chunk for a live consumer (an editor panel).
    """
    from pi_lsp.tools.bash import truncation_marker
    from pi_lsp.tools.output_accumulator import OutputAccumulator

    path = out / "w1_bash.log"
    chunks = []
    with path.open("rb") as source:
        while chunk := source.read(CHUNK):
            chunks.append(chunk)
    base_rss = _rss_mb()
    base_peak = _peak_mb()
    with tempfile.TemporaryDirectory() as spill_dir:
        start = time.perf_counter()
        acc = OutputAccumulator(spill_prefix="pi-bash", temp_dir=spill_dir)
        for chunk in chunks:
            acc.append(chunk, want_text=want_text)
        acc.finish()
        snapshot = acc.snapshot(persist_if_truncated=True)
        acc.close()
        elapsed = time.perf_counter() - start
        spilled = os.path.getsize(snapshot.full_output_path or "")
    marker = truncation_marker(snapshot).replace(snapshot.full_output_path or "", "{path}")
    return {
        "ms": elapsed * 1000,
        "growth_mb": max(_peak_mb() - base_peak, _rss_mb() - base_rss, 0.0),
        "chunks": len(chunks),
        "check": [marker, spilled == path.stat().st_size],
    }


def op_bash_cat_w1(out: Path) -> dict[str, Any]:
    """``cat W1`` through the real bash tool: process, pipe, accumulator, spill file."""
    from pi_lsp.tools.base import ToolContext
    from pi_lsp.tools.registry import run_tool

    base_peak = _peak_mb()
    base_rss = _rss_mb()
    with tempfile.TemporaryDirectory() as spill_dir:
        os.environ["TMPDIR"] = spill_dir
        tempfile.tempdir = None
        start = time.perf_counter()
        result = asyncio.run(
            run_tool("bash", {"command": f"cat {out / 'w1_bash.log'}"}, ToolContext(cwd=out))
        )
        elapsed = time.perf_counter() - start
    text = result.content[0].text  # type: ignore[union-attr]
    return {
        "ms": elapsed * 1000,
        "growth_mb": max(_peak_mb() - base_peak, _rss_mb() - base_rss, 0.0),
        "check": [text[text.rindex("\n\n[") + 2 :].split(". Full output")[0]],
    }


def op_read_w2(out: Path) -> dict[str, Any]:
    from pi_lsp.tools.base import ToolContext
    from pi_lsp.tools.registry import run_tool

    start = time.perf_counter()
    result = asyncio.run(
        run_tool("read", {"path": "w2_source.txt", "offset": 500000}, ToolContext(cwd=out))
    )
    elapsed = time.perf_counter() - start
    text = result.content[0].text  # type: ignore[union-attr]
    return {"ms": elapsed * 1000, "check": [text[text.rindex("\n\n[") + 2 :]]}


def op_edit_4000(_out: Path) -> dict[str, Any]:
    """Replace 4000 lines by 4000 other lines: past the diff's edit length cap (11 s uncapped)."""
    from pi_lsp.tools.base import ToolContext
    from pi_lsp.tools.registry import run_tool

    old_block = "".join(f"old line {i}\n" for i in range(4000))
    new_block = "".join(f"new line {i}\n" for i in range(4000))
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "big.txt").write_text("head\n" + old_block + "tail\n")
        args = {"path": "big.txt", "edits": [{"oldText": old_block, "newText": new_block}]}
        start = time.perf_counter()
        result = asyncio.run(run_tool("edit", args, ToolContext(cwd=Path(folder))))
        elapsed = time.perf_counter() - start
    text = result.content[0].text  # type: ignore[union-attr]
    return {"ms": elapsed * 1000, "check": [text]}


OPERATIONS = {
    "tail-w1-str": op_tail_w1_str,
    "tail-w1-bytes": op_tail_w1_bytes,
    "tail-w3": op_tail_w3,
    "stream-w1": op_stream_w1,
    "stream-w1-text": lambda out: op_stream_w1(out, want_text=True),
    "bash-cat-w1": op_bash_cat_w1,
    "read-w2": op_read_w2,
    "edit-4000": op_edit_4000,
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="folder written by shared/bench/workloads.py")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default=",".join(OPERATIONS))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.one:
        print(json.dumps(OPERATIONS[opts.one](opts.out.resolve())))
        return 0
    summary = {}
    for name in opts.only.split(","):
        runs = []
        for _ in range(opts.runs):
            proc = subprocess.run(
                [sys.executable, __file__, str(opts.out), "--one", name],
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(json.loads(proc.stdout))
        times = [r["ms"] for r in runs]
        row = {
            "median_ms": round(statistics.median(times), 1),
            "min_ms": round(min(times), 1),
            "max_ms": round(max(times), 1),
            "check": runs[0]["check"],
        }
        if "growth_mb" in runs[0]:
            row["growth_mb_max"] = round(max(r["growth_mb"] for r in runs), 1)
        summary[name] = row
        print(f"{name:14} {json.dumps(row, ensure_ascii=False)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
