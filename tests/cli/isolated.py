"""Running the installed ``pi-lsp`` as a user does, with its own home and agent dir.

``tmp/home`` is the home folder and ``tmp/agent`` the agent dir (``PI_CODING_AGENT_DIR``);
every other ``PI_*`` variable of the test's environment is dropped.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PI_LSP = Path(sys.executable).parent / "pi-lsp"


def isolated_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    return env


def run_pi_lsp(
    tmp: Path, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``pi-lsp ARGS…`` in ``cwd``, output decoded as text."""
    return subprocess.run(
        [str(PI_LSP), *args],
        cwd=cwd,
        env=env if env is not None else isolated_env(tmp),
        capture_output=True,
        text=True,
        timeout=60,
    )
