"""The server's features: one module (or package) each, with a ``register(server)`` that
:mod:`pi_lsp.server.setup` calls."""
