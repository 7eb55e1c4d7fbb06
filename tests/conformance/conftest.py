"""Every session these cases load keeps its entries the way a large session does.

Sessions from 1 MiB on keep the message and custom entries outside the leaf's context in
their file (``LAZY_MIN_BYTES``); the golden sessions are small, so here that threshold is 0
and the cases check the lazy way against Pi's own results.
"""

from __future__ import annotations

import pytest

from pi_lsp.session import session_file


@pytest.fixture(autouse=True)
def _entries_left_in_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_file, "LAZY_MIN_BYTES", 0)
