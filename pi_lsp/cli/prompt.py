"""``pi-lsp prompt``: print the system prompt the agent would send for a working directory.

Resources load as Pi loads them (the resource options of :mod:`pi_lsp.cli.options`); what
loading found, and what an untrusted project leaves out, goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pi_lsp.cli.options import (
    add_resource_options,
    load_options,
    options_problem,
    report_findings,
)
from pi_lsp.cli.output import EXIT_OK, fail, write_replacing
from pi_lsp.cli.trust import left_out_lines

__all__ = ["add_prompt_parser", "run_prompt_command"]


def add_prompt_parser(commands: Any) -> None:
    """Declare ``pi-lsp prompt`` on the ``commands`` subparsers of ``pi-lsp``."""
    prompt = commands.add_parser(
        "prompt",
        help="print the system prompt the agent would send",
        description=(
            "Print the system prompt exactly as the agent would send it for a working "
            "directory, after loading context files, skills, SYSTEM.md and settings as Pi does. "
            "Problems found on the way are reported on stderr."
        ),
    )
    add_resource_options(prompt)
    prompt.add_argument(
        "--json", action="store_true", help="print the prompt with its spans, sources and tokens"
    )


def run_prompt_command(opts: argparse.Namespace) -> int:
    from pi_lsp.prompt.assemble import build_prompt
    from pi_lsp.resources.loader import load_resources

    options = load_options(opts)
    problem = options_problem(options)
    if problem is not None:
        return fail(problem)
    resources = load_resources(options)
    document = build_prompt(resources)
    report_findings(resources.findings, resources.cwd)
    for line in left_out_lines(resources, opts.agent_dir):
        sys.stderr.write(line + "\n")
    if opts.json:
        payload = {
            "cwd": resources.cwd,
            "agentDir": resources.agent_dir,
            "trusted": resources.trust.trusted,
            "trustReason": resources.trust.reason,
            **document.to_json(),
            "contextFiles": [f.path for f in resources.context_files.files],
            "skills": [
                {"name": s.name, "path": s.file_path, "visible": s.visible}
                for s in resources.skills
            ],
            "findings": [f.to_json() for f in resources.findings],
        }
        write_replacing(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        write_replacing(document.text)
    return EXIT_OK
