"""``pi-lsp``: the command line, the ``serve`` command, and :func:`main`, which runs a command.

Each other command declares its options and runs in its own module of :mod:`pi_lsp.cli`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence

from pi_lsp import __version__
from pi_lsp.cli.chat import add_chat_parser, run_chat_command
from pi_lsp.cli.check import add_check_parser, run_check_command
from pi_lsp.cli.output import EXIT_FAILED, EXIT_OK, EXIT_SIGINT, EXIT_USAGE, fail
from pi_lsp.cli.prompt import add_prompt_parser, run_prompt_command
from pi_lsp.cli.session import add_session_parser, run_session_command
from pi_lsp.cli.tool import add_tool_parser, run_tool_command
from pi_lsp.cli.trust import add_trust_parser, run_trust_command


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

    add_tool_parser(commands)
    add_prompt_parser(commands)
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

    add_check_parser(commands)
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    opts = _build_parser().parse_args(argv)
    try:
        if opts.command == "tool":
            return asyncio.run(run_tool_command(opts))
        if opts.command == "prompt":
            return run_prompt_command(opts)
        if opts.command == "check":
            return run_check_command(opts)
        if opts.command == "serve":
            return _run_serve_command(opts)
        if opts.command == "session":
            return run_session_command(opts)
        if opts.command == "chat":
            return run_chat_command(opts)
        if opts.command == "trust":
            return run_trust_command(opts)
    except KeyboardInterrupt:
        return EXIT_SIGINT
    except BrokenPipeError:
        # the reader went away (``| head``); nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return fail(f"unknown command {opts.command!r}")
