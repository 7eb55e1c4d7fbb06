"""The VS Code extension's own checks, run from the project's single test command.

In ``vscode-client/``: ``npm ci`` when ``node_modules`` is missing, then ``npm run typecheck``
(host and webview), ``npm run build`` (``dist/extension.js`` and the webview bundle) and
``npm test`` (vitest with a stand-in ``vscode`` module). ``PI_LSP_PYTHON`` tells the
extension's tests which interpreter runs the server (its integration tests talk to
``python -m pi_lsp serve`` as the extension would).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sessions import CHECKPOINT_TITLE, fixture_session
from tests.system_programs import needs

CLIENT = Path(__file__).resolve().parents[2] / "vscode-client"
INSTALL_TIMEOUT = 600.0  # seconds; only when node_modules is missing
#: seconds per npm step: a guard against a hang, not a speed check (vitest alone took 92 s on a
#: 2-core machine at load 11)
STEP_TIMEOUT = 300.0

pytestmark = needs(
    [] if shutil.which("npm") else ["npm"], "needs Node.js and npm (.ci/run installs them)"
)


def npm(*args: str, timeout: float = STEP_TIMEOUT) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PI_LSP_PYTHON": sys.executable,
        "PI_LSP_V1_SESSION": str(fixture_session("before-compaction.jsonl")),
        "PI_LSP_V1_SESSION_TITLE": CHECKPOINT_TITLE,
        "CI": "1",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        ["npm", *args],
        cwd=CLIENT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def check(result: subprocess.CompletedProcess[str]) -> None:
    command = " ".join(result.args)
    assert result.returncode == 0, (
        f"{command} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    )


@pytest.mark.timeout(INSTALL_TIMEOUT + 3 * STEP_TIMEOUT)
def test_extension_builds_and_its_tests_pass() -> None:
    if not (CLIENT / "node_modules").is_dir():
        install = "ci" if (CLIENT / "package-lock.json").is_file() else "install"
        check(npm(install, "--no-audit", "--no-fund", timeout=INSTALL_TIMEOUT))
    check(npm("run", "typecheck"))  # esbuild strips types without checking them
    check(npm("run", "build"))
    assert (CLIENT / "dist" / "extension.js").is_file()
    tests = npm("test")
    check(tests)
    assert "passed" in tests.stdout
    # PI_LSP_PYTHON is set, so the tests against the real server ran too.
    assert "skipped" not in tests.stdout, tests.stdout
