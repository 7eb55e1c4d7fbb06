"""Record (or re-check) pi-lsp's own golden cases in ``cases/`` from the real Pi.

    python3 tests/conformance/record_cases.py [--check] [CASE ...]

Each case folder is run through ``shared/conformance/run_case.py`` (the same workspace build,
oracle call and normalization as the shared cases) into a temporary folder; only the system
prompt and ``observed-status.json`` are kept. Before anything is written into the project the
skills preamble (Pi's prose) is masked, and the case is refused unless it passes
``--system-prompt`` and the prompt starts with that text, so no Pi default prose is committed.
Needs the oracle (``shared/oracle``; Pi is installed in ``~/.cache/pi-oracle`` or
``$PI_ORACLE_HOME``); the tests only read the committed files.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.conformance.harness import OWN_CASES, mask_skills_preamble  # noqa: E402
from tests.shared_data import SHARED_CONFORMANCE  # noqa: E402

PROMPT_FILE = "expected-system-prompt.txt"
STATUS_FILE = "observed-status.json"


def _shared_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pi_run_case", SHARED_CONFORMANCE / "run_case.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _custom_prompt(case: Path) -> str:
    meta = json.loads((case / "case.json").read_text())
    args = meta.get("pi_args", [])
    if "--system-prompt" not in args:
        raise SystemExit(f"{case.name}: pi_args must pass --system-prompt (no Pi prose)")
    value: str = args[args.index("--system-prompt") + 1]
    return value


def observe(runner: ModuleType, case: Path) -> dict[str, str]:
    """The masked files for ``case``, as Pi produces them now."""
    custom = _custom_prompt(case)
    out = Path(tempfile.mkdtemp(prefix="pi-lsp-record-"))
    try:
        status = runner.run_case(str(case), str(out))
        if status["pi_exit"] != 0 or status["requests"] < 1:
            raise SystemExit(f"{case.name}: Pi sent no prompt: {status}")
        prompt = (out / PROMPT_FILE).read_bytes().decode("utf-8")
        if not prompt.startswith(custom):
            raise SystemExit(f"{case.name}: the prompt does not start with --system-prompt")
        return {
            PROMPT_FILE: mask_skills_preamble(prompt),
            STATUS_FILE: (out / STATUS_FILE).read_text(),
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names or folders (default: all)")
    parser.add_argument("--check", action="store_true", help="diff instead of writing")
    opts = parser.parse_args()
    names = opts.cases or sorted(p.name for p in OWN_CASES.iterdir() if p.is_dir())
    runner = _shared_runner()
    differences = 0
    for name in names:
        case = OWN_CASES / Path(name).name
        files = observe(runner, case)
        for file, text in files.items():
            target = case / file
            if not opts.check:
                with open(target, "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
                continue
            stored = target.read_bytes().decode("utf-8") if target.exists() else ""
            if stored != text:
                differences += 1
                diff = difflib.unified_diff(
                    stored.splitlines(True), text.splitlines(True), f"{name}/{file}", "observed"
                )
                sys.stdout.writelines(diff)
        print(f"{'checked' if opts.check else 'recorded'} {name}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
