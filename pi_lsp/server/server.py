"""Setting up ``pi-lsp serve``: one place that creates the server and registers every feature.

Each feature lives in its own module with a ``register(server)`` function; document sync and
the lifecycle are here.
"""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.server import (
    code_actions,
    completion,
    hover,
    links,
    navigation,
    prompt_requests,
    run_tool,
    trust_requests,
)
from pi_lsp.server.convert import path_of
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.settings import ServerSettings

FEATURES = (
    hover,
    navigation,
    links,
    completion,
    code_actions,
    trust_requests,
    prompt_requests,
    run_tool,
)


def create_server() -> PiLanguageServer:
    server = PiLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        root = params.root_uri and path_of(params.root_uri)
        if params.workspace_folders:
            root = path_of(params.workspace_folders[0].uri)
        if root:
            ls.state.root = root
        settings, problems = ServerSettings.from_options(params.initialization_options)
        ls.state.settings = settings
        for problem in problems:
            ls.log_to_client(problem, types.MessageType.Warning)

    @server.feature(types.INITIALIZED)
    def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.state.buffers[path_of(doc.uri)] = (doc.version, doc.text)
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        ls.state.buffers[path_of(doc.uri)] = (params.text_document.version, doc.source)
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.state.buffers.pop(path_of(params.text_document.uri), None)
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PiLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule_lint()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: PiLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.schedule_lint()

    for feature in FEATURES:
        feature.register(server)
    return server


def serve_stdio() -> None:
    create_server().start_io()


def serve_tcp(host: str, port: int) -> None:
    create_server().start_tcp(host, port)
