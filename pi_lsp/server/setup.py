"""Setting up ``pi-lsp serve``: one place that creates the server and registers every feature.

Each feature lives in its own module with a ``register(server)`` function; document sync and
the lifecycle are here.
"""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.server import configuration
from pi_lsp.server.configuration import pull_configuration
from pi_lsp.server.convert import path_of
from pi_lsp.server.features import (
    chat,
    code_actions,
    completion,
    hover,
    judge,
    links,
    navigation,
    status,
    system_prompt,
    tool_runs,
    trust,
    watching,
)
from pi_lsp.server.features.watching import Watcher, start_watching
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.settings import ServerSettings

FEATURES = (
    configuration,
    watching,
    hover,
    navigation,
    links,
    completion,
    code_actions,
    trust,
    system_prompt,
    tool_runs,
    chat,
    judge,
    status,
)


def create_server() -> PiLanguageServer:
    server = PiLanguageServer()
    watchers: list[Watcher] = []

    @server.feature(types.INITIALIZE)
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        root = params.root_uri and path_of(params.root_uri)
        if params.workspace_folders:
            root = path_of(params.workspace_folders[0].uri)
        if root:
            ls.state.root = root
        settings, problems = ServerSettings.from_options(params.initialization_options)
        ls.initial_settings = settings
        ls.state.settings = settings
        for problem in problems:
            ls.log_to_client(problem, types.MessageType.Warning)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        ls.request_rebuild(None)
        await pull_configuration(ls)
        watcher = await start_watching(ls)
        if watcher is not None:
            watchers.append(watcher)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: PiLanguageServer, params: None) -> None:
        ls.stop_rebuilding()
        for watcher in watchers:
            watcher.stop()
        await ls.stop_features()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        path = path_of(doc.uri)
        ls.state.buffers[path] = (doc.version, doc.text)
        ls.adopt_shown(path, doc.version, doc.text)
        ls.request_rebuild([path])

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        path = path_of(doc.uri)
        ls.state.buffers[path] = (params.text_document.version, doc.source)
        ls.request_rebuild([path])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        ls.state.buffers.pop(path, None)
        ls.request_rebuild([path])

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PiLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        ls.request_rebuild([path])
        for hook in ls.on_save:
            hook(path)

    for feature in FEATURES:
        feature.register(server)
    return server


def serve_stdio() -> None:
    create_server().start_io()


def serve_tcp(host: str, port: int) -> None:
    create_server().start_tcp(host, port)
