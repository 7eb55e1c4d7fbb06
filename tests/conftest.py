"""What the whole suite shares: what a clone or a machine lacks is skipped with its reason.

* ``@pytest.mark.shared``: the test reads material only the shared folder has (the public
  corpus, the oracle, Pi's fixture sessions); skipped when ``$PI_LSP_SHARED`` (default
  ``../shared``) is not there, or failed if ``PI_LSP_REQUIRE_SHARED=1`` (set by ``.ci/run``).
* ``missing_program`` (from :func:`tests.system_programs.needs`): a program an end-to-end test
  drives is missing while ``PI_LSP_REQUIRE_E2E=1``; the test fails with that reason.
"""

from __future__ import annotations

import os

import pytest

from tests.shared_data import SHARED_MISSING, SHARED_PRESENT

REQUIRE_SHARED = "PI_LSP_REQUIRE_SHARED"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    shared_required = os.environ.get(REQUIRE_SHARED, "") not in ("", "0")
    for item in items:
        if item.get_closest_marker("shared") is not None and not SHARED_PRESENT:
            if shared_required:
                item.add_marker(pytest.mark.missing_program(f"{SHARED_MISSING} ({REQUIRE_SHARED})"))
            else:
                item.add_marker(pytest.mark.skip(reason=SHARED_MISSING))


def pytest_runtest_setup(item: pytest.Item) -> None:
    marker = item.get_closest_marker("missing_program")
    if marker is not None:
        pytest.fail(str(marker.args[0]), pytrace=False)
