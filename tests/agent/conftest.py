"""A recording local HTTP server per test, and the shared httpx clients closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pi_lsp.agent.providers.transport import aclose_shared_clients
from tests.agent.http_fixtures import LocalHTTPServer


@pytest.fixture
async def server() -> AsyncIterator[LocalHTTPServer]:
    async with LocalHTTPServer() as running:
        yield running
    await aclose_shared_clients()
