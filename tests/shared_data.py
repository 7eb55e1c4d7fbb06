"""Where the read-only shared material lives (conformance cases, fixtures, bench workloads)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PI_LSP_SHARED", REPO.parent / "shared")).resolve()
CONFORMANCE = SHARED / "conformance"

if not CONFORMANCE.is_dir():
    raise RuntimeError(
        f"the shared conformance cases are missing at {CONFORMANCE}; "
        "set PI_LSP_SHARED to the shared/ folder"
    )
