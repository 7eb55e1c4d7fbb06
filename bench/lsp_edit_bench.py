#!/usr/bin/env python3
"""``didChange`` → ``publishDiagnostics`` over stdio for a ~110 KB context file; run by hand.

    PYTHONPATH=$PWD .venv/bin/python bench/lsp_edit_bench.py [--n 100] [--kb 110]
        [--debounce-ms 20,0] [--pause-ms 0] [--pythonpath DIR] [--json] [--profile DIR]

A real ``python -m pi_lsp serve`` (driven by ``bench/lsp_bench.py``'s client) on a workspace
of two context files: ``AGENTS.md`` (short rules) and ``pkg/AGENTS.md``, the large file of
``bench/lint_edit_bench.py`` (``lint_cases`` + dev texts, or the shared corpus with
``PI_LSP_SHARED``). The large file is opened, then edited ``--n`` times one at a time with
the same single-line edits as the in-process bench (whole-document sync, as VS Code sends a
small document), each edit timed from writing the ``didChange`` to the pipe to the
``publishDiagnostics`` of that URI with that version. Each ``--debounce-ms`` value starts a
fresh server with that debounce (the server waits that long after a change before it
rebuilds; 20 ms is the default), so the debounce's share shows beside the default. Each edit
is sent as soon as the previous one's diagnostics arrive, so edits come faster than the
debounce and each one waits it out; ``--pause-ms`` waits that long first, as a typist does
between keys (~100 ms at 120 words a minute): after a pause longer than the debounce the
server rebuilds at once. The server runs from ``--pythonpath`` (default: this tree).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from lint_edit_bench import ROOT_TEXT, edits, large_text  # noqa: E402
from lsp_bench import PROFILE_BOOT, Client, capabilities, open_and_wait, pct  # noqa: E402

TIMEOUT = 60.0


async def start(
    root: Path, agent: Path, home: Path, debounce: int, opts: argparse.Namespace
) -> Client:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PYTHONPATH=str(opts.pythonpath))
    command = ["-m", "pi_lsp", "serve"]
    if opts.profile is not None:
        opts.profile.mkdir(parents=True, exist_ok=True)
        command = ["-c", PROFILE_BOOT, str(opts.profile / f"debounce{debounce}")]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        cwd=str(root),
        limit=2**24,
    )
    conn = Client(proc)
    await conn.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
            "capabilities": capabilities("visual_studio_code"),
            "initializationOptions": {"agentDir": str(agent), "debounceMs": debounce},
        },
    )
    conn.notify("initialized", {})
    while (await conn.request("pi/status", None))[1]["rebuilds"] < 1:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)
    return conn


async def session(opts: argparse.Namespace, big: str, debounce: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root, agent, home = base / "ws", base / "agent", base / "home"
        for folder in (root / "pkg", agent, home):
            folder.mkdir(parents=True)
        (root / "AGENTS.md").write_text(ROOT_TEXT)
        target = root / "pkg" / "AGENTS.md"
        target.write_text(big)
        conn = await start(root, agent, home, debounce, opts)
        try:
            await open_and_wait(conn, target)
            uri = target.as_uri()
            times: list[float] = []
            warmup = 5
            texts = list(edits(big, warmup + opts.n, opts.seed))
            for i, text in enumerate(texts):
                version = i + 2
                waiting = asyncio.ensure_future(
                    conn.wait_publish(lambda p, v=version: p["uri"] == uri and p["version"] == v)
                )
                await asyncio.sleep(0)
                params = {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                }
                start_at = time.perf_counter()
                conn.notify("textDocument/didChange", params)
                arrived = await asyncio.wait_for(waiting, TIMEOUT)
                if i >= warmup:
                    times.append((arrived - start_at) * 1000)
                if opts.pause_ms:
                    await asyncio.sleep(opts.pause_ms / 1000)
            diagnostics = len(conn.latest_diagnostics().get(uri, []))
        finally:
            await conn.close()
    return {
        "debounce_ms": debounce,
        "p50": pct(times, 50),
        "p95": pct(times, 95),
        "max": max(times),
        "diagnostics": diagnostics,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--kb", type=int, default=110)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--debounce-ms", default="20,0")
    parser.add_argument("--pause-ms", type=float, default=0.0, help="pause between edits")
    parser.add_argument("--pythonpath", type=Path, default=REPO)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", type=Path, help="cProfile the server into this folder")
    opts = parser.parse_args()
    big = large_text(opts.kb)
    results = [
        asyncio.run(session(opts, big, int(d))) for d in opts.debounce_ms.split(",") if d.strip()
    ]
    if opts.json:
        print(json.dumps(results, indent=2))
        return 0
    source = "shared corpus" if os.environ.get("PI_LSP_SHARED") else "lint_cases + dev"
    print(
        f"{len(big.encode()) / 1000:.1f} KB ({source}), {opts.n} edits, "
        f"{opts.pause_ms:g} ms apart, load {os.getloadavg()}"
    )
    for r in results:
        print(
            f"debounce {r['debounce_ms']:>3} ms: didChange -> publishDiagnostics p50 "
            f"{r['p50']:.1f}  p95 {r['p95']:.1f}  max {r['max']:.1f} ms "
            f"({r['diagnostics']} diagnostics on the file)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
