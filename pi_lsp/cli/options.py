"""The options several ``pi-lsp`` commands share, and what they turn into.

``prompt`` and ``chat`` take the resource options (:func:`add_resource_options`, read back by
:func:`load_options`), with Pi's names and meanings; ``check`` takes only the trust pair
(:func:`add_approve_options`). :func:`report_findings` writes what loading found on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_lsp.resources.loader import LoadOptions
    from pi_lsp.resources.model import Finding

__all__ = [
    "add_approve_options",
    "add_resource_options",
    "load_options",
    "options_problem",
    "report_findings",
]


def add_approve_options(parser: argparse.ArgumentParser, *, approve: str, no_approve: str) -> None:
    """``--approve`` / ``--no-approve``: ``opts.approve`` is True, False or None (not given)."""
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument(
        "--approve", "-a", dest="approve", action="store_const", const=True, help=approve
    )
    trust.add_argument(
        "--no-approve", "-na", dest="approve", action="store_const", const=False, help=no_approve
    )


def add_resource_options(parser: argparse.ArgumentParser) -> None:
    """The options that say which resources load, with Pi's names and meanings."""
    parser.add_argument("--cwd", type=Path, default=None, help="working directory (default: .)")
    parser.add_argument("--agent-dir", default=None, help="agent dir (default: ~/.pi/agent)")
    add_approve_options(
        parser,
        approve="trust the project for this run",
        no_approve="do not trust the project for this run",
    )
    parser.add_argument(
        "--no-context-files", "-nc", action="store_true", help="load no AGENTS.md / CLAUDE.md files"
    )
    parser.add_argument("--no-skills", action="store_true", help="discover no skills")
    parser.add_argument(
        "--skill",
        action="append",
        default=[],
        metavar="PATH",
        help="load a skill file or folder (repeatable)",
    )
    parser.add_argument(
        "--no-prompt-templates", action="store_true", help="discover no prompt templates"
    )
    parser.add_argument(
        "--prompt-template",
        action="append",
        default=[],
        metavar="PATH",
        help="load a prompt template file or folder (repeatable)",
    )
    parser.add_argument(
        "--system-prompt",
        default=None,
        metavar="TEXT|FILE",
        help="replace the system prompt (a file path is read)",
    )
    parser.add_argument(
        "--append-system-prompt",
        action="append",
        default=None,
        metavar="TEXT|FILE",
        help="append to the system prompt (repeatable)",
    )
    parser.add_argument(
        "--tools",
        default=None,
        metavar="LIST",
        help="active tools, comma-separated, in order (default: read,bash,edit,write)",
    )
    parser.add_argument(
        "--no-tools",
        "-nt",
        action="store_true",
        help="no tools (unless --tools names some), as Pi's --no-tools",
    )


def load_options(opts: argparse.Namespace) -> LoadOptions:
    """The :class:`LoadOptions` the resource options of :func:`add_resource_options` say."""
    from pi_lsp.resources.loader import LoadOptions

    tools = None
    if opts.tools is not None:
        tools = tuple(t.strip() for t in opts.tools.split(",") if t.strip())
    elif getattr(opts, "no_tools", False):
        tools = ()
    return LoadOptions(
        cwd=str((opts.cwd or Path.cwd()).absolute()),
        agent_dir=opts.agent_dir,
        approve=opts.approve,
        no_context_files=opts.no_context_files,
        no_skills=opts.no_skills,
        skill_paths=tuple(opts.skill),
        no_prompt_templates=opts.no_prompt_templates,
        prompt_template_paths=tuple(opts.prompt_template),
        system_prompt=opts.system_prompt,
        append_system_prompt=(
            tuple(opts.append_system_prompt) if opts.append_system_prompt is not None else None
        ),
        tools=tools,
    )


def options_problem(options: LoadOptions) -> str | None:
    """Why the resources of ``options`` cannot be loaded (a tool in ``--tools`` that is not
    built in, a working directory that does not exist), or ``None`` when they can."""
    if options.tools is not None:
        from pi_lsp.tools.registry import BUILTIN_TOOLS

        unknown = [t for t in options.tools if t not in BUILTIN_TOOLS]
        if unknown:
            return f"unknown tool(s) in --tools: {', '.join(unknown)}"
    if not os.path.isdir(options.cwd):
        return f"working directory does not exist: {options.cwd}"
    return None


def report_findings(findings: Iterable[Finding], root: str | None = None) -> None:
    """Each finding as a ``file:line:column`` line on stderr, paths relative to ``root`` (as
    ``pi-lsp check`` writes them) when given, else absolute."""
    from pi_lsp.resources.shown_paths import shown_path

    def show(path: str) -> str:
        return path if root is None else shown_path(path, root)

    for finding in findings:
        sys.stderr.write(finding.to_text(show) + "\n")
