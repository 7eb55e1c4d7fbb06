"""pi-lsp: Pi's context-engineering pipeline as an engine, a language server and a CLI."""

__version__ = "0.1.0"
