"""Where the test material lives: the project's own copies, and the optional shared folder.

The golden cases recorded from Pi 0.85.0 are kept in the repository (``CONFORMANCE``, Pi's
prose masked by ``conformance/import_goldens.py``), so a fresh clone runs its tests alone.
The read-only shared material (the public corpus, the oracle, Pi's fixture sessions, bench
workloads) is found at ``$PI_LSP_SHARED``, by default ``../shared`` beside the repository;
tests that need it carry ``@pytest.mark.shared`` and are skipped, saying so, when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PI_LSP_SHARED") or REPO.parent / "shared").resolve()
#: True when the shared material is there (the ``shared`` marker's tests run)
SHARED_PRESENT = (SHARED / "conformance").is_dir()
SHARED_MISSING = f"needs the shared material at {SHARED} (set PI_LSP_SHARED to it)"
#: Pi 0.85.0's golden cases, the project's copy (what the tests compare with)
CONFORMANCE = REPO / "tests" / "conformance" / "pi_cases"
#: The same cases as recorded, in the shared folder (only import_goldens.py reads them)
SHARED_CONFORMANCE = SHARED / "conformance"
#: Pi's own fixtures (real sessions, skill folders) in the shared folder
PI_FIXTURES = SHARED / "fixtures" / "pi"
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "oracle"
#: The project's own fixtures
FIXTURES = REPO / "tests" / "fixtures"
