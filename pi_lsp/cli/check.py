"""``pi-lsp check [PATH]``: lint context files, skills and settings from a terminal.

PATH is linted for every working directory under it that has a context file; the findings are
printed as text, JSON or SARIF, and the exit code says whether one reached the ``--fail-on``
level.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from pi_lsp.cli.options import add_approve_options
from pi_lsp.cli.output import EXIT_FAILED, EXIT_OK, fail, write_replacing
from pi_lsp.lint.fail_levels import DEFAULT_FAIL_ON, FAIL_ON_LEVELS

__all__ = ["add_check_parser", "run_check_command"]


def add_check_parser(commands: Any) -> None:
    """Declare ``pi-lsp check`` on the ``commands`` subparsers of ``pi-lsp``."""
    check = commands.add_parser(
        "check",
        help="lint context files, skills and settings",
        description=(
            "Lint PATH (default .) for every working directory under it that has a context "
            "file: conflicting or duplicate instructions, shadowed files, skill problems, "
            "budgets. Exit status: 0 when nothing at or above the --fail-on level is found, "
            "1 when something is, 2 on usage errors."
        ),
    )
    check.add_argument("path", nargs="?", default=".", type=Path, help="folder to lint")
    check.add_argument("--agent-dir", default=None, help="agent dir (default: ~/.pi/agent)")
    check.add_argument(
        "--format", choices=("text", "json", "sarif"), default="text", help="output format"
    )
    check.add_argument(
        "--fail-on",
        choices=FAIL_ON_LEVELS,
        default=DEFAULT_FAIL_ON,
        metavar="{" + ",".join(FAIL_ON_LEVELS) + "}",
        help="exit 1 when a finding has this severity or a higher one (default: warning); "
        "never: exit 0 whatever is found",
    )
    add_approve_options(
        check,
        approve="lint as if the project were trusted",
        no_approve="lint as if the project were not trusted",
    )
    check.add_argument(
        "--model-window",
        type=int,
        default=128_000,
        metavar="TOKENS",
        help="model context window for the budget rule (default 128000)",
    )


def run_check_command(opts: argparse.Namespace) -> int:
    from pi_lsp.lint.checks import LintSettings
    from pi_lsp.lint.engine import LintConfig, lint_tree
    from pi_lsp.lint.fail_levels import fails
    from pi_lsp.lint.report import as_json, as_sarif, as_text
    from pi_lsp.resources.agent_dir import resolve_agent_dir

    root = os.path.abspath(opts.path)
    if not os.path.isdir(root):
        return fail(f"not a folder: {opts.path}")
    if opts.model_window <= 0:
        return fail("--model-window must be a positive number of tokens")
    config = LintConfig(settings=LintSettings(model_window=opts.model_window))
    result = lint_tree(root, agent_dir=opts.agent_dir, approve=opts.approve, config=config)
    render = {"text": as_text, "json": as_json, "sarif": as_sarif}[opts.format]
    write_replacing(render(result, root, resolve_agent_dir(opts.agent_dir)))
    failed = fails((d.severity for d in result.diagnostics), opts.fail_on)
    return EXIT_FAILED if failed else EXIT_OK
