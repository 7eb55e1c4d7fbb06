"""Settings from the client after initialize: ``workspace/configuration`` and its changes.

``initializationOptions`` come first; the ``pi-lsp`` section of the client's configuration is
laid over them key by key. A bad value is reported with ``window/logMessage`` and ignored.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.settings import CONFIGURATION_SECTION, ServerSettings

log = logging.getLogger(__name__)

CONFIGURATION_TIMEOUT = 5.0


def apply_settings(ls: PiLanguageServer, options: object, base: ServerSettings) -> None:
    """Lay ``options`` over ``base``; rebuild everything if the outcome differs."""
    settings, problems = base.merged(options)
    for problem in problems:
        ls.log_to_client(problem, types.MessageType.Warning)
    if settings != ls.state.settings:
        ls.state.settings_changed(settings)
        ls.request_rebuild(None)


async def pull_configuration(ls: PiLanguageServer) -> None:
    """Ask a client that supports it for the ``pi-lsp`` section and apply it."""
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    params = types.ConfigurationParams(
        items=[types.ConfigurationItem(section=CONFIGURATION_SECTION)]
    )
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(params), CONFIGURATION_TIMEOUT
        )
    except Exception as error:  # a client that does not answer keeps the settings it has
        log.warning("workspace/configuration failed: %s", error)
        return
    section = result[0] if result else None
    if section is not None:
        apply_settings(ls, section, ls.initial_settings)


def register(server: PiLanguageServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PiLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        workspace = ls.client_capabilities.workspace
        if workspace is not None and workspace.configuration:
            await pull_configuration(ls)
            return
        settings: Any = params.settings
        if isinstance(settings, dict) and isinstance(settings.get(CONFIGURATION_SECTION), dict):
            apply_settings(ls, settings[CONFIGURATION_SECTION], ls.initial_settings)
