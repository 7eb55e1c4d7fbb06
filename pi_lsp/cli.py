"""``pi-lsp``: the engine from a terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_lsp import __version__
from pi_lsp.cli_chat import add_chat_parser, run_chat_command
from pi_lsp.cli_session import add_session_parser, run_session_command
from pi_lsp.cli_trust import add_trust_parser, left_out_lines, run_trust_command
from pi_lsp.lint.fail_levels import DEFAULT_FAIL_ON, FAIL_ON_LEVELS

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"pi-lsp: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pi-lsp",
        description="See, lint and run the context a coding agent assembles (Pi-compatible).",
    )
    parser.add_argument("--version", action="version", version=f"pi-lsp {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    tool = commands.add_parser(
        "tool",
        help="run one built-in tool and print what the model would receive",
        description=(
            "Run one built-in tool (read, bash, edit, write, grep, find, ls) and print its "
            "result as a text-only model receives it. Exit 0 on success, 1 when the result is "
            "an error, 2 when the call itself is invalid."
        ),
    )
    tool.add_argument("name", help="tool name, e.g. bash")
    tool.add_argument("args", help='arguments as a JSON object, e.g. \'{"command": "ls"}\'')
    tool.add_argument("--cwd", type=Path, default=None, help="working directory (default: .)")
    tool.add_argument("--json", action="store_true", help="print the whole result with details")
    tool.add_argument(
        "--images",
        action="store_true",
        help="act for a model that accepts images (default: a text-only model)",
    )
    tool.add_argument(
        "--stream", action="store_true", help="copy streamed output to stderr as it arrives"
    )
    prompt = commands.add_parser(
        "prompt",
        help="print the system prompt the agent would send",
        description=(
            "Print the system prompt exactly as the agent would send it for a working "
            "directory, after loading context files, skills, SYSTEM.md and settings as Pi does. "
            "Problems found on the way are reported on stderr."
        ),
    )
    _add_resource_options(prompt)
    prompt.add_argument(
        "--json", action="store_true", help="print the prompt with its spans, sources and tokens"
    )
    add_session_parser(commands)
    add_chat_parser(commands)
    add_trust_parser(commands)
    serve = commands.add_parser(
        "serve",
        help="run the language server",
        description="Run the pi-lsp language server (LSP over stdio by default).",
    )
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    serve.add_argument("--tcp", action="store_true", help="listen on TCP instead (debugging)")
    serve.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    serve.add_argument("--log-file", default=None, help="also write the server log to this file")

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
    _add_approve_options(
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
    return parser


def _run_check_command(opts: argparse.Namespace) -> int:
    from pi_lsp.lint.checks import LintSettings
    from pi_lsp.lint.engine import LintConfig, lint_tree
    from pi_lsp.lint.fail_levels import fails
    from pi_lsp.lint.report import as_json, as_sarif, as_text
    from pi_lsp.resources.agent_dir import resolve_agent_dir

    root = os.path.abspath(opts.path)
    if not os.path.isdir(root):
        return _fail(f"not a folder: {opts.path}")
    if opts.model_window <= 0:
        return _fail("--model-window must be a positive number of tokens")
    config = LintConfig(settings=LintSettings(model_window=opts.model_window))
    result = lint_tree(root, agent_dir=opts.agent_dir, approve=opts.approve, config=config)
    render = {"text": as_text, "json": as_json, "sarif": as_sarif}[opts.format]
    _write_stdout(render(result, root, resolve_agent_dir(opts.agent_dir)))
    failed = fails((d.severity for d in result.diagnostics), opts.fail_on)
    return EXIT_FAILED if failed else EXIT_OK


def _add_approve_options(parser: argparse.ArgumentParser, *, approve: str, no_approve: str) -> None:
    """``--approve`` / ``--no-approve``: ``opts.approve`` is True, False or None (not given)."""
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument(
        "--approve", "-a", dest="approve", action="store_const", const=True, help=approve
    )
    trust.add_argument(
        "--no-approve", "-na", dest="approve", action="store_const", const=False, help=no_approve
    )


def _run_serve_command(opts: argparse.Namespace) -> int:
    import logging

    from pi_lsp.agent.providers.secret import redact_log_output
    from pi_lsp.server import serve_stdio, serve_tcp

    if opts.log_file:
        logging.basicConfig(filename=opts.log_file, level=logging.INFO)
    redact_log_output()  # no provider key or header value reaches the log file or stderr
    if opts.tcp:
        serve_tcp(opts.host, opts.port)
    else:
        serve_stdio()
    return EXIT_OK


def _add_resource_options(parser: argparse.ArgumentParser) -> None:
    """The options that say which resources load, with Pi's names and meanings."""
    parser.add_argument("--cwd", type=Path, default=None, help="working directory (default: .)")
    parser.add_argument("--agent-dir", default=None, help="agent dir (default: ~/.pi/agent)")
    _add_approve_options(
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


def _load_options(opts: argparse.Namespace) -> Any:
    from pi_lsp.resources.loader import LoadOptions

    tools = None
    if opts.tools is not None:
        tools = tuple(t.strip() for t in opts.tools.split(",") if t.strip())
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


def _report_findings(findings: Sequence[Any], root: str | None = None) -> None:
    """Each finding as a ``file:line:column`` line on stderr, paths relative to ``root`` (as
    ``pi-lsp check`` writes them) when given, else absolute."""
    from pi_lsp.resources.shown_paths import shown_path

    def show(path: str) -> str:
        return path if root is None else shown_path(path, root)

    for finding in findings:
        sys.stderr.write(finding.to_text(show) + "\n")


def _run_prompt_command(opts: argparse.Namespace) -> int:
    from pi_lsp.prompt.assemble import build_prompt
    from pi_lsp.resources.loader import load_resources

    options = _load_options(opts)
    if opts.tools is not None:
        from pi_lsp.tools.registry import BUILTIN_TOOLS

        unknown = [t for t in options.tools if t not in BUILTIN_TOOLS]
        if unknown:
            return _fail(f"unknown tool(s) in --tools: {', '.join(unknown)}")
    if not os.path.isdir(options.cwd):
        return _fail(f"working directory does not exist: {options.cwd}")
    resources = load_resources(options)
    document = build_prompt(resources)
    _report_findings(resources.findings, resources.cwd)
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
        _write_stdout(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        _write_stdout(document.text)
    return EXIT_OK


def _write_stdout(text: str) -> None:
    data = text.encode("utf-8", "replace")
    if sys.stdout.isatty() and not text.endswith("\n"):
        data += b"\n"
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _fail(message: str) -> int:
    sys.stderr.write(f"pi-lsp: {message}\n")
    return EXIT_USAGE


async def _run_tool_command(opts: argparse.Namespace) -> int:
    from pi_lsp.prompt.model_view import tool_result_text
    from pi_lsp.tools.base import AbortSignal, ToolContext
    from pi_lsp.tools.registry import InvalidToolCall, execute, prepare_call

    try:
        args: Any = json.loads(opts.args)
    except json.JSONDecodeError as exc:
        return _fail(
            f"arguments are not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        )
    try:
        tool, prepared = prepare_call(opts.name, args)
    except InvalidToolCall as exc:
        return _fail(str(exc))
    cwd = (opts.cwd or Path.cwd()).absolute()

    signal_ = AbortSignal()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, signal_.abort)

    def on_output(chunk: str) -> None:
        sys.stderr.write(chunk)
        sys.stderr.flush()

    ctx = ToolContext(
        cwd=cwd,
        signal=signal_,
        on_output=on_output if opts.stream else None,
        model_supports_images=opts.images,
    )
    result = await execute(tool, prepared, ctx)
    if opts.json:
        payload = {"toolName": tool.name, "isError": result.is_error, "result": result.to_json()}
        _write_stdout(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        _write_stdout(tool_result_text(result.content, model_supports_images=opts.images))
    return EXIT_FAILED if result.is_error else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    opts = _build_parser().parse_args(argv)
    try:
        if opts.command == "tool":
            return asyncio.run(_run_tool_command(opts))
        if opts.command == "prompt":
            return _run_prompt_command(opts)
        if opts.command == "check":
            return _run_check_command(opts)
        if opts.command == "serve":
            return _run_serve_command(opts)
        if opts.command == "session":
            return run_session_command(opts)
        if opts.command == "chat":
            return run_chat_command(opts)
        if opts.command == "trust":
            return run_trust_command(opts)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (``| head``); nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return _fail(f"unknown command {opts.command!r}")
