"""(Being written.)"""

from __future__ import annotations

import argparse
import sys


def run_context_command(opts: argparse.Namespace) -> int:
    sys.stderr.write("pi-lsp: session context is not available yet\n")
    return 2
