#!/usr/bin/env python3
"""The language server over stdio, as an editor drives it (run by hand, never in CI).

    python3 ../shared/bench/workloads.py bench/out --only w4    # once, if bench/out/w4 is missing
    .venv/bin/python bench/lsp_bench.py bench/out [--workload small|w4|all] [--n 200] [--runs 3]
        [--storm 10000] [--storm-seconds 1] [--modes vscode,vscode-250ms,neovim] [--json]
        [--profile DIR] [--live]

A minimal JSON-RPC client of its own (asyncio pipes; pytest-lsp only supplies the recorded
client capabilities) starts ``python -m pi_lsp serve`` with the default debounce (20 ms),
from a copy of ``pi_lsp/`` taken at the start (``--live``: from the tree), and measures:

* **edit**: ``didChange`` (whole document) of an open context file to the
  ``publishDiagnostics`` of that URI with that version, ``--n`` edits one at a time, each
  alternating between a conflicting and a non-conflicting pair of instructions;
* **hover** on that file, ``--n`` requests one at a time;
* **storm**: ``--storm`` real writes in ``--storm-seconds`` to the context files of the
  workspace by a writer process, while hovers are sent back to back; then the rebuilds the
  storm caused (``pi/status``), the time from the last write to the last publish, and whether
  the final diagnostics match the files' final contents. Client modes:
  ``vscode`` — VS Code's capabilities (the server registers file watchers; it does not watch
  the workspace itself), one ``workspace/didChangeWatchedFiles`` per write, sent as written
  (harsher than VS Code); ``vscode-250ms`` — the same capabilities, all the changes in one
  notification 250 ms after the last one (what vscode-languageclient's 250 ms file-event
  delayer sends); ``neovim`` — Neovim 0.10's capabilities (no dynamic watcher registration):
  the server's own watchfiles sees the disk.

Workloads: ``small`` (four nested AGENTS.md, npm vs pnpm), ``w4`` (the shared W4: workspace
and agent dir copied to a temporary folder so the storm never touches ``bench/out``, the
2,000 skills listed in the agent dir's ``settings.json``). Each run starts fresh servers; the
table shows the median of the runs' figures (each figure over ``--n`` samples in one run).
Times are ``time.perf_counter`` in the client: a message counts from its write to the pipe to
the parsed answer.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CONTEXT_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
CONFLICT = "\n- Use npm to install packages.\n- Always use pnpm.\n"
PUBLISH = "textDocument/publishDiagnostics"
PUBLISH_BYTES = b'"textDocument/publishDiagnostics"'
WATCHED = "workspace/didChangeWatchedFiles"
QUIET = 1.0  # seconds without a publish or a rebuild (at least): the server has settled
WARMUP = 10  # edits and hovers before the measured ones (fewer when --n is small)
VSCODE_DELAY = 0.25  # vscode-languageclient's file-event delayer
MODES = ("vscode", "vscode-250ms", "neovim")
TIMEOUT = 120.0  # seconds for one answer
SETTLE_TIMEOUT = 600.0  # seconds after a storm for the final diagnostics

# Run in the server process with --profile: cProfile on the main thread (the event loop) and on
# every other thread (the rebuild runs in asyncio.to_thread), dumped to two files at exit.
PROFILE_BOOT = """
import atexit, cProfile, pstats, runpy, sys, threading
out = sys.argv[1]
threads = []
def start(frame, event, arg):
    sys.setprofile(None)
    p = cProfile.Profile(); threads.append(p); p.enable()
threading.setprofile(start)
main = cProfile.Profile()
def dump():
    main.disable(); main.dump_stats(out + ".main.prof")
    if threads:
        stats = pstats.Stats(threads[0])
        for p in threads[1:]:
            stats.add(p)
        stats.dump_stats(out + ".threads.prof")
atexit.register(dump)
sys.argv = ["pi_lsp", "serve"]
main.enable()
try:
    runpy.run_module("pi_lsp", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
"""


def sources_digest(root: Path) -> str:
    """A fingerprint of the server's sources under ``root`` (``root/pi_lsp``)."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((root / "pi_lsp").rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def warmup_of(n: int) -> int:
    return min(WARMUP, max(2, n // 10))


def pct(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def capabilities(client: str) -> dict[str, Any]:
    """The client capabilities pytest-lsp records for VS Code 1.65 / Neovim 0.10."""
    from lsprotocol import converters
    from pytest_lsp import client_capabilities

    caps: dict[str, Any] = converters.get_converter().unstructure(client_capabilities(client))
    return caps


# --- the client ---------------------------------------------------------------------------------


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Client:
    """JSON-RPC over the server's stdin/stdout; publishes are kept raw and parsed on demand."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._id = 0
        self._pending: dict[int, asyncio.Future[tuple[float, dict[str, Any]]]] = {}
        self.publishes: list[tuple[float, bytes]] = []  # (arrival, body)
        self.last_publish = 0.0
        self._latest: dict[str, list[dict[str, Any]]] = {}
        self._parsed = 0
        self._waiter: tuple[Callable[[dict[str, Any]], bool], asyncio.Future[float]] | None = None
        self._reader = asyncio.ensure_future(self._read())

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def notify(self, method: str, params: Any) -> None:
        self.send(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    async def request(self, method: str, params: Any) -> tuple[float, Any]:
        """(seconds from writing the request to its parsed answer, result)."""
        self._id += 1
        future: asyncio.Future[tuple[float, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        self._pending[self._id] = future
        data = frame({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        start = time.perf_counter()
        self.send(data)
        arrived, message = await asyncio.wait_for(future, TIMEOUT)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return arrived - start, message.get("result")

    async def wait_publish(self, predicate: Callable[[dict[str, Any]], bool]) -> float:
        """The arrival time of the next publish whose params satisfy ``predicate``."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiter = (predicate, future)
        try:
            return await asyncio.wait_for(future, TIMEOUT)
        finally:
            self._waiter = None

    def latest_diagnostics(self) -> dict[str, list[dict[str, Any]]]:
        """The diagnostics last published for each URI."""
        for _, body in self.publishes[self._parsed :]:
            params = json.loads(body)["params"]
            self._latest[params["uri"]] = params["diagnostics"]
        self._parsed = len(self.publishes)
        return self._latest

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            try:
                header = await stdout.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                return
            length = next(
                int(line.split(b":")[1])
                for line in header.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            body = await stdout.readexactly(length)
            arrived = time.perf_counter()
            if PUBLISH_BYTES in body[:200] or PUBLISH_BYTES in body[-200:]:
                self.publishes.append((arrived, body))
                self.last_publish = arrived
                if self._waiter is not None:
                    predicate, future = self._waiter
                    if not future.done() and predicate(json.loads(body)["params"]):
                        future.set_result(arrived)
                continue
            message = json.loads(body)
            if "method" in message:
                if "id" in message:  # a request of the server's
                    result: Any = None
                    if message["method"] == "workspace/configuration":
                        result = [None for _ in message["params"]["items"]]
                    self.send(frame({"jsonrpc": "2.0", "id": message["id"], "result": result}))
                continue
            future = self._pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result((arrived, message))

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.request("shutdown", None), 10)
            self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()


# --- workloads ----------------------------------------------------------------------------------


@dataclass
class Workspace:
    root: Path
    agent: Path
    home: Path
    open_file: Path  # opened, edited and hovered
    canary: Path  # the storm leaves a new conflict here
    storm_files: list[Path]  # context files the storm rewrites (canary included, open file not)


def setup_small(tmp: Path) -> Workspace:
    root, agent, home = tmp / "ws", tmp / "agent", tmp / "home"
    for folder in (root / "pkg" / "deep", root / "docs", agent, home):
        folder.mkdir(parents=True)
    files = {
        root / "AGENTS.md": "# Tools\n\n- Use npm to install packages.\n",
        root / "pkg" / "AGENTS.md": "# Tools\n\n- Always use pnpm.\n",
        root / "pkg" / "deep" / "AGENTS.md": "# Deep\n\n- Keep functions short.\n",
        root / "docs" / "AGENTS.md": "# Docs\n\n- Write in plain English.\n",
    }
    for path, text in files.items():
        path.write_text(text)
    open_file = root / "pkg" / "AGENTS.md"
    canary = root / "pkg" / "deep" / "AGENTS.md"
    return Workspace(root, agent, home, open_file, canary, [p for p in files if p != open_file])


def loaded_file(folder: Path) -> Path:
    """The context file Pi reads in ``folder`` (the first of its names present)."""
    return next(folder / n for n in CONTEXT_NAMES if (folder / n).is_file())


def setup_w4(tmp: Path, out: Path) -> Workspace:
    manifest = json.loads((out / "manifest.json").read_text())["w4"]
    source = out / manifest["workspace"]
    root, agent, home = tmp / "ws", tmp / "agent", tmp / "home"
    shutil.copytree(source, root, symlinks=True)
    shutil.copytree(out / manifest["agent_dir"], agent, symlinks=True)
    home.mkdir()
    # the skills path the other benches pass as --skill, here from the agent dir's settings
    skills = (out / manifest["skills_root"]).resolve()
    (agent / "settings.json").write_text(json.dumps({"skills": [str(skills)]}))
    cwd = root / Path(manifest["cwd"]).relative_to(manifest["workspace"])
    open_file = loaded_file(cwd)
    canary = loaded_file(cwd.parent)
    storm = sorted(p for p in root.rglob("*") if p.name in CONTEXT_NAMES and p != open_file)
    return Workspace(root, agent, home, open_file, canary, storm)


# --- the storm writer (a process of its own, so that writing never delays the client) -----------


def storm_suffix(k: int, j: int, last: bool, canary: bool) -> str:
    """What write ``k`` (the file's ``j``-th) appends to the file's original text."""
    if last:
        return "\n<!-- storm end -->\n\n" + CONFLICT if canary else "\n<!-- storm end -->\n"
    if not canary and j % 2 == 0:
        return f"\n<!-- storm {k} -->\n" + CONFLICT
    return f"\n<!-- storm {k} -->\n"


def run_writer(plan_file: str) -> int:
    plan = json.loads(Path(plan_file).read_text())
    files = [Path(p) for p in plan["files"]]
    originals = [p.read_bytes() for p in files]
    count, seconds, canary = plan["count"], plan["seconds"], plan["canary"]
    per_file = [
        count // len(files) + (1 if i < count % len(files) else 0) for i in range(len(files))
    ]
    writes = []
    for k in range(count):
        i, j = k % len(files), k // len(files)
        suffix = storm_suffix(k, j, j == per_file[i] - 1, str(files[i]) == canary)
        writes.append((os.fsencode(files[i]), originals[i] + suffix.encode()))
    print("ready", flush=True)
    sys.stdin.readline()
    start = time.perf_counter()
    for k, (path, data) in enumerate(writes):
        if k % 10 == 0:
            if k:
                print(k, flush=True)
            ahead = start + seconds * k / count - time.perf_counter()
            if ahead > 0:
                time.sleep(ahead)
        fd = os.open(path, os.O_WRONLY)  # in place: O_TRUNC costs ~0.5 ms here (see docs)
        os.write(fd, data)
        os.ftruncate(fd, len(data))
        os.close(fd)
    print(count, flush=True)
    print("done", flush=True)
    return 0


# --- one server session -------------------------------------------------------------------------


async def start_server(
    ws: Workspace, client: str, profile: Path | None, pythonpath: Path = REPO
) -> tuple[Client, dict[str, Any], float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(ws.home), PI_CODING_AGENT_DIR=str(ws.agent))
    if profile is None:
        command = [sys.executable, "-m", "pi_lsp", "serve"]
    else:
        command = [sys.executable, "-c", PROFILE_BOOT, str(profile)]
    env["PYTHONPATH"] = str(pythonpath)  # ahead of the editable install's path
    stderr = open(ws.root.parent / "server.log", "wb")  # noqa: SIM115 - lives as long as the server
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=str(ws.root),
        limit=2**24,
    )
    stderr.close()
    conn = Client(proc)
    started = time.perf_counter()
    await conn.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": ws.root.as_uri(),
            "workspaceFolders": [{"uri": ws.root.as_uri(), "name": "ws"}],
            "capabilities": capabilities(client),
            "initializationOptions": {"agentDir": str(ws.agent)},  # debounceMs: the default
        },
    )
    conn.notify("initialized", {})
    while True:  # the first (full) rebuild, then quiet
        _, status = await conn.request("pi/status", None)
        if status["rebuilds"] >= 1:
            break
        await asyncio.sleep(0.02)
    loaded = time.perf_counter() - started
    await asyncio.sleep(0.3)
    _, status = await conn.request("pi/status", None)
    return conn, status, loaded


def open_document(conn: Client, path: Path, text: str, version: int = 1) -> None:
    conn.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": path.as_uri(),
                "languageId": "markdown",
                "version": version,
                "text": text,
            }
        },
    )


async def open_and_wait(conn: Client, path: Path) -> None:
    """Open ``path`` and wait for the rebuild that follows (a file without diagnostics gets
    no publish)."""
    _, before = await conn.request("pi/status", None)
    open_document(conn, path, path.read_text())
    while (await conn.request("pi/status", None))[1]["rebuilds"] == before["rebuilds"]:
        await asyncio.sleep(0.01)


async def hover(conn: Client, path: Path) -> float:
    params = {"textDocument": {"uri": path.as_uri()}, "position": {"line": 0, "character": 0}}
    seconds, result = await conn.request("textDocument/hover", params)
    assert result is not None, "no hover on the context file"
    return seconds


async def measure_edits(conn: Client, ws: Workspace, n: int) -> dict[str, Any]:
    uri = ws.open_file.as_uri()
    original = ws.open_file.read_text()
    await open_and_wait(conn, ws.open_file)
    texts = (original + CONFLICT, original + "\n<!-- no conflict -->\n")
    times = []
    counts = []
    warmup = warmup_of(n)
    for i in range(warmup + n):
        version = i + 2
        params = {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": texts[i % 2]}],
        }
        waiting = asyncio.ensure_future(
            conn.wait_publish(lambda p, v=version: p["uri"] == uri and p.get("version") == v)
        )
        await asyncio.sleep(0)  # the waiter is in place before the edit goes out
        start = time.perf_counter()
        conn.notify("textDocument/didChange", params)
        arrived = await waiting
        if i >= warmup:
            times.append((arrived - start) * 1000)
            counts.append(len(json.loads(conn.publishes[-1][1])["params"]["diagnostics"]))
    # the diagnostics really alternate (a conflict, then none of it)
    assert counts[0] != counts[1], counts[:4]
    return {"edit_p50": pct(times, 50), "edit_p95": pct(times, 95), "edit_max": max(times)}


async def measure_hovers(conn: Client, ws: Workspace, n: int) -> dict[str, Any]:
    for _ in range(warmup_of(n)):
        await hover(conn, ws.open_file)
    times = [await hover(conn, ws.open_file) * 1000 for _ in range(n)]
    return {"hover_p50": pct(times, 50), "hover_p95": pct(times, 95), "hover_max": max(times)}


async def measure_storm(
    conn: Client, ws: Workspace, mode: str, count: int, seconds: float
) -> dict[str, Any]:
    plan = ws.root.parent / "storm.json"
    files = ws.storm_files
    plan.write_text(
        json.dumps(
            {
                "files": [str(p) for p in files],
                "count": count,
                "seconds": seconds,
                "canary": str(ws.canary),
            }
        )
    )
    original_lines = {p.as_uri(): p.read_text().count("\n") for p in files}
    # one notification per write, encoded before the storm so that sending costs nothing
    each = [
        frame(
            {
                "jsonrpc": "2.0",
                "method": WATCHED,
                "params": {"changes": [{"uri": p.as_uri(), "type": 2}]},
            }
        )
        for p in files
    ]
    all_at_once = frame(
        {
            "jsonrpc": "2.0",
            "method": WATCHED,
            "params": {
                "changes": [
                    {"uri": files[k % len(files)].as_uri(), "type": 2} for k in range(count)
                ]
            },
        }
    )
    _, before = await conn.request("pi/status", None)
    writer = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--writer",
        str(plan),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert writer.stdin is not None and writer.stdout is not None
    assert (await writer.stdout.readline()).strip() == b"ready"
    hovers: list[tuple[float, float]] = []  # (sent, seconds)
    stop = asyncio.Event()

    async def hover_loop() -> None:
        while not stop.is_set():
            sent = time.perf_counter()
            hovers.append((sent, await hover(conn, ws.open_file)))

    publishes_before = len(conn.publishes)
    hovering = asyncio.ensure_future(hover_loop())
    start = time.perf_counter()
    writer.stdin.write(b"go\n")
    sent = 0
    while True:
        line = (await writer.stdout.readline()).strip()
        if not line or line == b"done":
            break
        done = int(line)
        if mode == "vscode":
            conn.send(b"".join(each[k % len(files)] for k in range(sent, done)))
        sent = done
    end = time.perf_counter()  # the last write is on disk (and, for vscode, announced)
    status_latency, at_end = await conn.request("pi/status", None)
    if mode == "vscode-250ms":
        await asyncio.sleep(max(0.0, end + VSCODE_DELAY - time.perf_counter()))
        conn.send(all_at_once)
    await writer.wait()

    def final_ok() -> bool:
        """The published diagnostics follow the final files: the canary's new conflict is
        shown and no other file keeps a conflict of the storm's."""
        latest = conn.latest_diagnostics()
        stale = any(
            d["range"]["start"]["line"] >= lines
            for uri, lines in original_lines.items()
            if uri != ws.canary.as_uri()
            for d in latest.get(uri, [])
        )
        canary = ws.canary.as_uri()
        shown = any(
            d["range"]["start"]["line"] >= original_lines[canary] for d in latest.get(canary, [])
        )
        return shown and not stale

    # Settled: the final state is published, and then neither a publish nor a new rebuild
    # for QUIET seconds, or 1.5 times the longest storm rebuild seen (pi/status cannot tell
    # whether a rebuild is running).
    rebuilds, changed_at = at_end["rebuilds"], end
    longest = 0.0
    while True:
        await asyncio.sleep(0.1)
        _, status = await conn.request("pi/status", None)
        now = time.perf_counter()
        if status["rebuilds"] != rebuilds:
            rebuilds, changed_at = status["rebuilds"], now
        if status["rebuilds"] > before["rebuilds"]:
            longest = max(longest, status["lastRebuild"]["ms"])
        ok = final_ok()
        quiet = max(QUIET, 1.5 * longest / 1000 + 0.3)
        if ok and now - max(changed_at, conn.last_publish, end) >= quiet:
            break
        if now - end > SETTLE_TIMEOUT:
            break
    stop.set()
    await hovering
    last_publish = conn.last_publish
    window = [s * 1000 for sent_at, s in hovers if sent_at <= max(end, last_publish, changed_at)]
    during = [s * 1000 for sent_at, s in hovers if sent_at <= end]
    return {
        "storm_files": len(files),
        "storm_writes": count,
        "storm_s": end - start,
        "storm_hovers": len(window),
        "storm_hover_p50": pct(window, 50),
        "storm_hover_p95": pct(window, 95),
        "storm_hover_max": max(window, default=float("nan")),
        "storm_hover_p95_writing": pct(during, 95),
        "storm_hover_max_writing": max(during, default=float("nan")),
        "rebuilds_during": at_end["rebuilds"] - before["rebuilds"],
        "rebuilds_after": status["rebuilds"] - at_end["rebuilds"],
        "status_at_end_ms": status_latency * 1000,
        "to_last_publish_ms": (last_publish - end) * 1000,
        "to_last_rebuild_ms": (changed_at - end) * 1000,
        "publishes": len(conn.publishes) - publishes_before,
        "last_rebuild_ms": (status["lastRebuild"] or {}).get("ms"),
        "storm_rebuild_max_ms": longest,
        "final_ok": ok,
    }


async def session(
    workload: str, out: Path, mode: str, opts: argparse.Namespace, run: int
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"lsp-bench-{workload}-") as tmp:
        ws = setup_small(Path(tmp)) if workload == "small" else setup_w4(Path(tmp), out)
        profile = None
        if opts.profile is not None:
            opts.profile.mkdir(parents=True, exist_ok=True)
            profile = opts.profile / f"{workload}-{mode}-run{run}"
        client = "neovim" if mode == "neovim" else "visual-studio-code"
        conn, status, loaded = await start_server(ws, client, profile, opts.pythonpath)
        try:
            result: dict[str, Any] = {
                "first_rebuild_s": loaded,
                "first_rebuild_ms": status["lastRebuild"]["ms"],
                "working_directories": len(status["workingDirectories"]),
                "client_watches": status["clientWatches"],
            }
            if mode == opts.modes[0]:
                result |= await measure_edits(conn, ws, opts.n)
                result |= await measure_hovers(conn, ws, opts.n)
            else:
                await open_and_wait(conn, ws.open_file)
            if opts.storm:
                result |= await measure_storm(conn, ws, mode, opts.storm, opts.storm_seconds)
            return result
        finally:
            await conn.close()


# --- reporting ----------------------------------------------------------------------------------

ROWS = (  # (label, key, unit)
    ("first full rebuild (server's own)", "first_rebuild_ms", "ms"),
    ("didChange → publishDiagnostics p50", "edit_p50", "ms"),
    ("didChange → publishDiagnostics p95", "edit_p95", "ms"),
    ("didChange → publishDiagnostics max", "edit_max", "ms"),
    ("hover p50", "hover_p50", "ms"),
    ("hover p95", "hover_p95", "ms"),
    ("hover max", "hover_max", "ms"),
    ("storm: seconds spent writing", "storm_s", "s"),
    ("storm: hovers answered (first write → settled)", "storm_hovers", ""),
    ("storm: hover p50", "storm_hover_p50", "ms"),
    ("storm: hover p95", "storm_hover_p95", "ms"),
    ("storm: hover max", "storm_hover_max", "ms"),
    ("storm: hover p95 while writing", "storm_hover_p95_writing", "ms"),
    ("storm: hover max while writing", "storm_hover_max_writing", "ms"),
    ("storm: rebuilds while writing", "rebuilds_during", ""),
    ("storm: rebuilds after the last write", "rebuilds_after", ""),
    ("storm: pi/status answer at the end", "status_at_end_ms", "ms"),
    ("storm: last write → last publish", "to_last_publish_ms", "ms"),
    ("storm: last write → last rebuild seen (±100 ms)", "to_last_rebuild_ms", "ms"),
    ("storm: publishes", "publishes", ""),
    ("storm: last rebuild (server's own)", "last_rebuild_ms", "ms"),
    ("storm: longest rebuild seen (server's own)", "storm_rebuild_max_ms", "ms"),
    ("storm: final diagnostics right (all runs)", "final_ok", ""),
)


def median_of(runs: list[dict[str, Any]], key: str) -> Any:
    values = [r[key] for r in runs if r.get(key) is not None]
    if not values:
        return None
    if isinstance(values[0], bool):
        return all(values)
    return statistics.median(values)


def summarize(results: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    return {
        workload: {
            mode: {
                key: median_of(runs, key) for _, key, _ in ROWS if median_of(runs, key) is not None
            }
            for mode, runs in by_mode.items()
        }
        for workload, by_mode in results.items()
    }


def fmt(value: Any, unit: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if value is None:
        return "—"
    if unit == "ms":
        return f"{value:.1f}"
    if unit == "s":
        return f"{value:.2f}"
    return f"{value:g}"


def print_table(summary: dict[str, Any], opts: argparse.Namespace, stream: Any = None) -> None:
    stream = stream or sys.stdout
    for workload, by_mode in summary.items():
        modes = list(by_mode)
        title = f"{workload} — median of {opts.runs} runs (n={opts.n}, storm={opts.storm})"
        print(f"\n{title}", file=stream)
        print(f"{'':50}" + "".join(f"{m:>14}" for m in modes), file=stream)
        for label, key, unit in ROWS:
            if all(key not in by_mode[m] for m in modes):
                continue
            cells = "".join(f"{fmt(by_mode[m].get(key), unit):>14}" for m in modes)
            print(f"{label + (f' ({unit})' if unit else ''):50}{cells}", file=stream)


async def main_async(opts: argparse.Namespace) -> dict[str, Any]:
    out = opts.out.resolve()
    workloads = ["small", "w4"] if opts.workload == "all" else [opts.workload]
    if "w4" in workloads and not (out / "w4").is_dir():
        sys.exit(f"{out / 'w4'} is missing: python3 ../shared/bench/workloads.py {opts.out}")
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory(prefix="lsp-bench-src-") as src:
        if opts.live:
            opts.pythonpath = REPO
        else:  # every run measures the same server, whatever happens to the tree meanwhile
            opts.pythonpath = Path(src)
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(REPO / "pi_lsp", opts.pythonpath / "pi_lsp", ignore=ignore)
        digest = sources_digest(opts.pythonpath)
        for workload in workloads:
            by_mode: dict[str, list[dict[str, Any]]] = {m: [] for m in opts.modes}
            for run in range(opts.runs):
                for mode in opts.modes:
                    result = await session(workload, out, mode, opts, run)
                    by_mode[mode].append(result)
                    print(f"  {workload} run {run + 1} {mode}: done", file=sys.stderr)
            results[workload] = by_mode
        if sources_digest(opts.pythonpath) != digest:
            digest += f", changed during the run to {sources_digest(opts.pythonpath)}"
    return {
        "date": time.strftime("%Y-%m-%d"),
        "load": os.getloadavg(),
        "command": " ".join(sys.argv),
        "pi_lsp_sources": digest,
        "summary": summarize(results),
        "runs": results,
    }


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--writer":
        return run_writer(sys.argv[2])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, nargs="?", default=REPO / "bench" / "out")
    parser.add_argument("--workload", choices=("small", "w4", "all"), default="all")
    parser.add_argument("--n", type=int, default=200, help="edits and hovers per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--storm", type=int, default=10_000, help="file writes (0: no storm)")
    parser.add_argument("--storm-seconds", type=float, default=1.0)
    parser.add_argument(
        "--modes",
        type=lambda s: tuple(s.split(",")),
        default=MODES,
        help=f"client modes, comma-separated; the first also measures edits and hovers {MODES}",
    )
    parser.add_argument("--json", action="store_true", help="machine output")
    parser.add_argument("--profile", type=Path, help="cProfile the server into this folder")
    parser.add_argument(
        "--live",
        action="store_true",
        help="run the server from the tree (default: from a copy of pi_lsp/ taken at the start)",
    )
    opts = parser.parse_args()
    if any(m not in MODES for m in opts.modes):
        parser.error(f"--modes: choose from {', '.join(MODES)}")
    report = asyncio.run(main_async(opts))
    if opts.json:
        print(json.dumps(report, indent=2))
    stream = sys.stderr if opts.json else sys.stdout  # the table, for people, in either case
    load = ", ".join(f"{x:.2f}" for x in report["load"])
    print(
        f"{report['date']}, load average {load}; pi_lsp sources {report['pi_lsp_sources']}",
        file=stream,
    )
    print_table(report["summary"], opts, stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
