"""``pi-lsp check [PATH]``: lint context files, skills and settings from a terminal.

PATH is linted for every working directory under it that has a context file; the findings are
printed as text, JSON or SARIF, and the exit code says whether one reached the ``--fail-on``
level. ``--judge`` also asks the configured model (the one ``pi-lsp chat`` would use, or
``--judge-model``) about the pairs of instructions the word rules left undecided: one request
per chain, verdicts cached under ``$XDG_CACHE_HOME/pi-lsp`` (rule ``judged-conflict``). Without
a usable model it says so once on stderr and reports the word rules' findings only; when a
request fails, the chains it was for keep the word rules' findings and the verdicts already
cached, the other chains are judged, and stderr says so once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_lsp.cli.options import add_approve_options
from pi_lsp.cli.output import EXIT_FAILED, EXIT_OK, fail, write_replacing
from pi_lsp.lint.fail_levels import DEFAULT_FAIL_ON, FAIL_ON_LEVELS

if TYPE_CHECKING:
    from pi_lsp.lint.engine import TreeLint

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
    check.add_argument(
        "--judge",
        action="store_true",
        help="also ask the configured model about pairs of instructions the word rules cannot "
        "settle (one request per chain, verdicts cached; off by default)",
    )
    check.add_argument(
        "--judge-model",
        default=None,
        metavar="PROVIDER/ID",
        help="the model for --judge (default: the model `pi-lsp chat` would use)",
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
    if opts.judge:
        result = asyncio.run(_judged(result, root, opts))
    render = {"text": as_text, "json": as_json, "sarif": as_sarif}[opts.format]
    write_replacing(render(result, root, resolve_agent_dir(opts.agent_dir)))
    failed = fails((d.severity for d in result.diagnostics), opts.fail_on)
    return EXIT_FAILED if failed else EXIT_OK


def _note(message: str) -> None:
    sys.stderr.write(f"pi-lsp: judge: {message}\n")
    sys.stderr.flush()


async def _judged(result: TreeLint, root: str, opts: argparse.Namespace) -> TreeLint:
    """``result`` with the judge's findings for every chain of the tree (see the module
    docstring); a chain whose request failed keeps the word rules' findings (and its cached
    verdicts), said once on stderr."""
    from pi_lsp.agent.one_shot import ModelUnavailable, judge_model, one_shot
    from pi_lsp.agent.providers.transport import aclose_shared_clients
    from pi_lsp.lint.engine import LintConfig, TreeLint, configured_diagnostics, working_directories
    from pi_lsp.lint.judge import (
        VerdictCache,
        default_cache_path,
        judge_workspace,
        workspace_chains,
    )
    from pi_lsp.resources.loader import LoadOptions, ResourceCache, load_resources

    cache_files = ResourceCache()
    snapshots = [
        load_resources(
            LoadOptions(cwd=cwd, agent_dir=opts.agent_dir, approve=opts.approve), cache=cache_files
        )
        for cwd in working_directories(root)
    ]
    last = snapshots[-1]
    try:
        resolved = judge_model(last.agent_dir, dict(last.settings.merged), opts.judge_model)
    except ModelUnavailable as error:
        _note(f"no model to ask ({error}); word-rule findings only")
        return result
    model = f"{resolved.model.provider}/{resolved.model.id}"
    cache = VerdictCache(default_cache_path())
    try:
        judgement = await judge_workspace(
            workspace_chains(snapshots), one_shot(resolved), model, cache, root=root
        )
    finally:
        await aclose_shared_clients()
    fallback = judgement.fallback()
    if fallback is not None:
        _note(fallback)
    _note(judgement.summary())
    seen = {(d.finding.where, d.finding.rule, d.finding.message) for d in result.diagnostics}
    added = [f for f in judgement.findings if (f.where, f.rule, f.message) not in seen]
    diagnostics = sorted(
        [*result.diagnostics, *configured_diagnostics(added, LintConfig())],
        key=lambda d: d.sort_key,
    )
    return TreeLint(diagnostics, result.context_files)
