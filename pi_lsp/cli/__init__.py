"""``pi-lsp``: the engine from a terminal, one module per command.

:func:`main` is the entry point of the ``pi-lsp`` script and of ``python -m pi_lsp``.
"""

from pi_lsp.cli.command_line import main

__all__ = ["main"]
