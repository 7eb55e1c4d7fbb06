"""(Being written.)"""

from __future__ import annotations

import argparse
import sys


def run_tree_command(opts: argparse.Namespace) -> int:
    sys.stderr.write("pi-lsp: session tree is not available yet\n")
    return 2
