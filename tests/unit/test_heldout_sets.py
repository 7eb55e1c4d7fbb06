"""The held-out lint sets are well formed, and the frozen test set is unchanged since its freeze.

``tests/lint_heldout/validate.py`` checks every label (its file is on the chain of the marked
working directory, its line holds text) and compares ``test/`` with ``test/SHA256SUMS``: an
edit of the frozen set, even a typo fix, fails here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

VALIDATOR = Path(__file__).resolve().parents[1] / "lint_heldout" / "validate.py"


def test_the_sets_validate_and_the_frozen_set_is_unchanged() -> None:
    done = subprocess.run(
        [sys.executable, str(VALIDATOR)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ERROR" not in done.stdout
    assert "test {'workspaces': " in done.stdout, done.stdout
