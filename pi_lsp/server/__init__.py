"""LSP adapter (pygls): the only package that imports pygls or lsprotocol."""

from pi_lsp.server.setup import create_server, serve_stdio, serve_tcp

__all__ = ["create_server", "serve_stdio", "serve_tcp"]
