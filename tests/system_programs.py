"""Programs from the system an end-to-end test drives (Neovim, Node.js, Chromium, code-server).

``needs(missing, reason)`` marks a module or test: with nothing missing it runs; otherwise it is
skipped with ``reason``, unless ``PI_LSP_REQUIRE_E2E=1`` (set by ``.ci/run``, which installs
every program), where it fails saying what is missing, so CI never skips one silently.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import pytest

REQUIRE_E2E = "PI_LSP_REQUIRE_E2E"


def required() -> bool:
    return os.environ.get(REQUIRE_E2E, "") not in ("", "0")


def needs(missing: Iterable[str], reason: str) -> pytest.MarkDecorator:
    absent = [name for name in missing if name]
    if not absent:
        return pytest.mark.skipif(False, reason=reason)
    if required():
        return pytest.mark.missing_program(f"{reason}; missing: {', '.join(absent)}")
    return pytest.mark.skip(reason=reason)
