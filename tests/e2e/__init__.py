"""End-to-end tests: pi-lsp driven by real editors."""
