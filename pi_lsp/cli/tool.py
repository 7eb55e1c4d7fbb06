"""``pi-lsp tool NAME ARGS``: run one built-in tool and print what the model would receive."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

from pi_lsp.cli.output import EXIT_FAILED, EXIT_OK, fail, write_replacing

__all__ = ["add_tool_parser", "run_tool_command"]


def add_tool_parser(commands: Any) -> None:
    """Declare ``pi-lsp tool`` on the ``commands`` subparsers of ``pi-lsp``."""
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


async def run_tool_command(opts: argparse.Namespace) -> int:
    from pi_lsp.prompt.model_view import tool_result_text
    from pi_lsp.tools.base import AbortSignal, ToolContext
    from pi_lsp.tools.registry import InvalidToolCall, execute, prepare_call

    try:
        args: Any = json.loads(opts.args)
    except json.JSONDecodeError as exc:
        return fail(
            f"arguments are not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        )
    try:
        tool, prepared = prepare_call(opts.name, args)
    except InvalidToolCall as exc:
        return fail(str(exc))
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
        write_replacing(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        write_replacing(tool_result_text(result.content, model_supports_images=opts.images))
    return EXIT_FAILED if result.is_error else EXIT_OK
