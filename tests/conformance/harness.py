"""Running a golden case's inputs through pi-lsp, as the conformance README's contract says.

The case folders are the project's copy of ``shared/conformance`` in ``pi_cases/`` (Pi's prose
masked, see ``import_goldens.py``) or, with ``case_root``, pi-lsp's own recorded cases in
``tests/conformance/cases``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conformance.pi_prose import SKILLS_PREAMBLE, mask_skills_preamble
from tests.shared_data import CONFORMANCE, REPO


@dataclass(frozen=True)
class CaseWorkspace:
    case: Path
    root: Path  # {WS}
    cwd: Path  # {CWD}, a realpath
    agent: Path  # the agent-dir template
    home: Path
    tmp: Path  # TMPDIR of the run: bash spill files land here

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        env.update(
            HOME=str(self.home),
            TMPDIR=str(self.tmp),
            PI_CODING_AGENT_DIR=str(self.agent),
            PYTHONPATH=str(REPO),
        )
        return env


#: pi-lsp's own golden cases, recorded from Pi the same way (see ``cases/README.md``)
OWN_CASES = Path(__file__).resolve().parent / "cases"

__all__ = ["CONFORMANCE", "SKILLS_PREAMBLE", "mask_skills_preamble"]


def case_dir(name: str, case_root: Path = CONFORMANCE) -> Path:
    return case_root / name


def build_case(name: str, base: Path, case_root: Path = CONFORMANCE) -> CaseWorkspace:
    """Recreate the case's workspace under ``base`` by running its ``setup.sh``."""
    case = case_dir(name, case_root)
    meta = json.loads((case / "case.json").read_text())
    root, agent, home, tmp = (base / n for n in ("ws", "agent", "home", "tmp"))
    for folder in (root, agent, home, tmp):
        folder.mkdir(parents=True)
    env = {**os.environ, "WS": str(root), "AGENT": str(agent), "HOME": str(home)}
    subprocess.run(
        ["bash", "-e", str(case / "setup.sh")], cwd=root, env=env, check=True, capture_output=True
    )
    # run_case.py creates the cwd when setup.sh did not
    (root / meta["cwd"]).mkdir(parents=True, exist_ok=True)
    cwd = (root / meta["cwd"]).resolve()
    return CaseWorkspace(
        case=case, root=root.resolve(), cwd=cwd, agent=agent, home=home, tmp=tmp.resolve()
    )


def tool_calls(name: str) -> list[tuple[str, dict[str, Any]]]:
    """Every scripted tool call of the case, in call order."""
    script = json.loads((case_dir(name) / "script.json").read_text())
    return [(c["name"], c["arguments"]) for item in script for c in item.get("tool_calls", [])]


def expected_tool_results(name: str) -> list[bytes]:
    case = case_dir(name)
    single = case / "expected-tool-result.txt"
    if single.exists():
        return [single.read_bytes()]
    files = sorted(
        case.glob("expected-tool-result-*.txt"), key=lambda p: int(p.stem.rsplit("-", 1)[1])
    )
    return [f.read_bytes() for f in files]


def expected_tool_events(name: str) -> list[dict[str, Any]]:
    return json.loads((case_dir(name) / "expected-tool-events.json").read_text())


def run_cli(
    ws: CaseWorkspace, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", *args],
        cwd=ws.cwd,
        env=ws.env(),
        capture_output=True,
        timeout=timeout,
    )


def normalize(text: str, ws: CaseWorkspace) -> str:
    """Apply the README's substitutions to pi-lsp's output."""
    text = re.sub(
        re.escape(str(ws.tmp)) + r"/pi-bash-[0-9a-f]{16}\.log", "{TMP}/pi-bash-{HEX16}.log", text
    )
    text = text.replace(str(ws.cwd), "{CWD}").replace(str(ws.root), "{WS}")
    return text.replace(str(ws.agent), "{AGENT_DIR}").replace(str(ws.home), "{HOME}")


def digest(text: str) -> dict[str, Any]:
    """The stand-in the golden events use for texts longer than 400 characters."""
    data = text.encode("utf-8", "surrogatepass")
    return {
        "digest": {
            "chars_utf16": len(text.encode("utf-16-le", "surrogatepass")) // 2,
            "utf8_bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    }


def digest_long_texts(value: Any, *, drop_image_data: bool = True) -> Any:
    """Recursively replace strings over 400 chars by their digest; image data is left out."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if drop_image_data and key == "data" and value.get("type") == "image":
                continue
            out[key] = digest_long_texts(item, drop_image_data=drop_image_data)
        return out
    if isinstance(value, list):
        return [digest_long_texts(v, drop_image_data=drop_image_data) for v in value]
    if isinstance(value, str) and len(value.encode("utf-16-le", "surrogatepass")) // 2 > 400:
        return digest(value)
    return value
