"""Running ``pi-lsp session …`` as a user does (``python -m pi_lsp`` in a subprocess)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from tests.shared_data import REPO


def run_session(action: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``pi-lsp session ACTION ARGS…`` from the repository root, output decoded as UTF-8."""
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", "session", action, *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


def fingerprint(path: Path) -> tuple[str, int]:
    """The file's content hash and modification time: equal before and after means untouched."""
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
