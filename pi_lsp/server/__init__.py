"""LSP adapter (pygls): the only package that imports pygls or lsprotocol."""
