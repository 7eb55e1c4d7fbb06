"""Import Pi 0.85.0's golden cases from the shared material into ``pi_cases/``, Pi's prose masked.

    PI_LSP_SHARED=../shared python3 tests/conformance/import_goldens.py [--check] [CASE ...]

Reads ``$PI_LSP_SHARED/conformance/<case>/`` (default ``../shared``) and writes the project's
own copy of each case: inputs (``case.json``, ``setup.sh``, ``script.json``) and recorded
outputs as they are, except where the conformance README says the text is Pi's own words
(see ``pi_prose.py``): the default prompt's text before its structural start, the skills
preamble, tool and parameter descriptions, the summarization prompts. ``--check`` reports
every file that would change and exits 1 if one would. The tests read only the copy.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.conformance.pi_prose import mask_request, mask_system_prompt  # noqa: E402
from tests.shared_data import CONFORMANCE, SHARED_CONFORMANCE  # noqa: E402

#: The reference case whose prompt is Pi's default layout with nothing added
DEFAULT_CASE = "sp-default"
PROMPT_FILE = "expected-system-prompt.txt"
REQUESTS_FILE = "expected-requests.json"
#: Shared files that are not part of a case's recording
NOT_COPIED = {"README.md", "run_case.py"}


def default_opening(source: Path) -> str:
    """The first line of Pi's default prompt: a prompt that opens with it is default layout."""
    text = (source / DEFAULT_CASE / PROMPT_FILE).read_bytes().decode("utf-8")
    return text.split("\n", 1)[0]


def masked_case(case: Path, opening: str) -> dict[str, bytes]:
    """Every file of the project's copy of ``case``, by name."""
    files: dict[str, bytes] = {}
    for path in sorted(case.iterdir()):
        if not path.is_file():
            raise SystemExit(f"{path}: a case folder holds files only")
        data = path.read_bytes()
        if path.name == PROMPT_FILE:
            text = data.decode("utf-8")
            data = mask_system_prompt(text, default_layout=text.startswith(opening)).encode()
        elif path.name == REQUESTS_FILE:
            bodies = json.loads(data)
            masked = [mask_request(b, default_layout=_opens_with(b, opening)) for b in bodies]
            data = json.dumps(masked, indent=1, ensure_ascii=False).encode("utf-8")
        files[path.name] = data
    return files


def _opens_with(body: dict[str, object], opening: str) -> bool:
    messages = body["messages"]
    assert isinstance(messages, list)
    content = messages[0]["content"]
    return isinstance(content, str) and content.startswith(opening)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: every shared case)")
    parser.add_argument("--check", action="store_true", help="report differences, write nothing")
    opts = parser.parse_args()
    source = SHARED_CONFORMANCE
    if not source.is_dir():
        raise SystemExit(f"{source} is missing: set PI_LSP_SHARED to the shared/ folder")
    opening = default_opening(source)
    names = opts.cases or sorted(p.name for p in source.iterdir() if p.is_dir())
    stale = 0
    for name in names:
        files = masked_case(source / name, opening)
        target = CONFORMANCE / name
        present = {p.name for p in target.iterdir()} if target.is_dir() else set()
        changed = sorted(
            n for n in files if n not in present or (target / n).read_bytes() != files[n]
        )
        extra = sorted(present - set(files) - NOT_COPIED)
        if opts.check:
            for file in [*changed, *extra]:
                print(f"{name}/{file}: differs from the shared case")
            stale += len(changed) + len(extra)
            continue
        if target.is_dir():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for file, data in files.items():
            (target / file).write_bytes(data)
            (target / file).chmod((source / name / file).stat().st_mode & 0o755 | 0o644)
        print(f"imported {name} ({len(changed)} changed)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
