"""Headless Neovim as the language client: what a Neovim user sees of a conflict.

Neovim runs ``nvim/attach_and_hover.lua`` on ``ws/pkg/AGENTS.md``; the script attaches
pi-lsp with the stock LSP client, waits for diagnostics, hovers, stops the server and
writes what it saw as JSON. Each wait in it has a timeout, and so does the subprocess.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.harness import server_env
from tests.system_programs import needs

pytestmark = needs(
    [] if shutil.which("nvim") else ["nvim"], "needs Neovim (nvim; .ci/run installs it)"
)

SCRIPT = Path(__file__).parent / "nvim" / "attach_and_hover.lua"
NVIM_TIMEOUT = 60.0  # seconds for the whole editor session
LUA_TIMEOUT_MS = 10_000  # for each of the five waits inside it


def server_command() -> list[str]:
    """``pi-lsp serve`` as installed next to this Python, as a user would configure it.

    No ``--log-file``: what the server writes to stderr lands in Neovim's LSP log as an
    error, which the test sees; that log also holds the whole exchange for a failure report.
    """
    script = shutil.which("pi-lsp", path=str(Path(sys.executable).parent))
    return [*([script] if script else [sys.executable, "-m", "pi_lsp"]), "serve"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for name in ("home", "agent", "ws/pkg"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "ws" / "AGENTS.md").write_text("# Tools\n\n- Use npm to install packages.\n")
    (tmp_path / "ws" / "pkg" / "AGENTS.md").write_text("# Tools\n\n- Always use pnpm.\n")
    return tmp_path


def run_neovim(tmp: Path, file: Path) -> dict[str, Any]:
    """Open ``file`` in headless Neovim with pi-lsp attached; what the script saw."""
    out, config = tmp / "nvim-out.json", tmp / "nvim-config.json"
    config.write_text(
        json.dumps(
            {
                "cmd": server_command(),
                "root_dir": str(tmp / "ws"),
                "init_options": {"agentDir": str(tmp / "agent"), "debounceMs": 5},
                "timeout_ms": LUA_TIMEOUT_MS,
            }
        )
    )
    env = server_env(tmp)  # inherited by the server Neovim starts
    for kind in ("CONFIG", "DATA", "STATE", "CACHE"):  # keep Neovim off the real home
        env[f"XDG_{kind}_HOME"] = str(tmp / "xdg" / kind.lower())
    env.update(PILSP_E2E_CONFIG=str(config), PILSP_E2E_OUT=str(out))
    lsp_log = tmp / "xdg" / "cache" / "nvim" / "lsp.log"

    def report(what: str) -> str:
        log = lsp_log.read_text(errors="replace")[-12_000:] if lsp_log.exists() else "(none)"
        return (
            f"{what}\n--- nvim stderr:\n{stderr}\n--- nvim stdout:\n{stdout}\n"
            f"--- end of {lsp_log}:\n{log}"
        )

    command = ["nvim", "--headless", "--clean", "-n", "-i", "NONE"]
    command += ["-c", f"luafile {SCRIPT}", "-c", "cquit 2", str(file)]
    try:
        done = subprocess.run(
            command,
            cwd=file.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=NVIM_TIMEOUT,
        )
        stdout, stderr = done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        stdout, stderr = (
            stream.decode(errors="replace") if isinstance(stream, bytes) else stream or ""
            for stream in (expired.stdout, expired.stderr)
        )
        pytest.fail(report(f"nvim did not finish within {NVIM_TIMEOUT} s"))
    if not out.exists():
        pytest.fail(report(f"nvim exited {done.returncode} without writing {out}"))
    seen: dict[str, Any] = json.loads(out.read_text())
    seen["report"] = report(f"nvim exited {done.returncode}; it saw:\n{json.dumps(seen, indent=1)}")
    seen["returncode"] = done.returncode
    seen["lsp_log"] = lsp_log.read_text() if lsp_log.exists() else ""
    return seen


def test_neovim_shows_the_conflict_and_the_instruction_order(workspace: Path) -> None:
    root, pkg = workspace / "ws" / "AGENTS.md", workspace / "ws" / "pkg" / "AGENTS.md"
    seen = run_neovim(workspace, pkg)
    report = seen["report"]

    # no trouble on the client side: no Lua error or timeout, no error notification,
    # no error logged by the LSP client, a clean server exit after shutdown
    assert seen["returncode"] == 0, report
    assert seen["errors"] == [], report
    assert seen["notifications"] == [], report
    assert [m for m in seen["messages"] if m["type"] == 1] == [], report  # MessageType.Error
    assert "[ERROR]" not in seen["lsp_log"], report
    assert seen["exit"] == {"code": 0, "signal": 0}, report
    assert seen["buffer"] == str(pkg), report

    # the conflict, on "- Always use pnpm." (line 3, after the "- "), pointing at the root file
    [diagnostic] = seen["diagnostics"]
    assert diagnostic["code"] == "PI101", report
    assert diagnostic["source"] == "pi-lsp", report
    assert diagnostic["severity"] == "WARN", report
    assert (diagnostic["lnum"], diagnostic["col"]) == (2, 2), report
    assert diagnostic["message"].endswith("[conflicting-instructions]"), report
    assert [r["uri"] for r in diagnostic["related"]] == [root.as_uri()], report

    # the hover: the order for pkg/, the root file first, this file second and marked
    hover = seen["hover"]
    assert hover["kind"] == "markdown", report
    lines = hover["value"].splitlines()
    assert lines[0].startswith("**Instruction order for `pkg`**"), report  # from the root
    numbered = [line for line in lines if line[:1].isdigit()]
    assert len(numbered) == 2, report
    assert numbered[0].startswith("1. `AGENTS.md` — "), report
    assert numbered[1].startswith("2. **`pkg/AGENTS.md`** ← this file — "), report
    # and `K` shows that same list in its floating window
    window = seen["hover_window"]
    assert [line for line in window if line[:1].isdigit()] == numbered, report
