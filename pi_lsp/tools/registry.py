"""The built-in tools by name, and running one call the way Pi's agent loop does."""

from __future__ import annotations

import logging
from typing import Any

from pi_lsp.tools import bash, edit, find, grep, ls, read, write
from pi_lsp.tools.base import Tool, ToolContext, ToolError, ToolResult
from pi_lsp.tools.schema import validate

log = logging.getLogger(__name__)

#: Every built-in tool, in the order Pi lists them.
BUILTIN_TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        read.TOOL,
        bash.TOOL,
        edit.TOOL,
        write.TOOL,
        grep.TOOL,
        find.TOOL,
        ls.TOOL,
    )
}

#: The tools a session starts with when nothing else is configured.
DEFAULT_ACTIVE_TOOLS = ("read", "bash", "edit", "write")


class InvalidToolCall(Exception):
    """The call cannot run: unknown tool, or arguments that break its schema."""


def prepare_call(name: str, args: Any) -> tuple[Tool, dict[str, Any]]:
    """Find the tool, repair and check the arguments; raise :class:`InvalidToolCall` if unusable."""
    tool = BUILTIN_TOOLS.get(name)
    if tool is None:
        known = ", ".join(BUILTIN_TOOLS)
        raise InvalidToolCall(f"unknown tool {name!r} (built-in tools: {known})")
    if not isinstance(args, dict):
        raise InvalidToolCall(f"arguments for {name} must be a JSON object")
    try:
        prepared = tool.prepare_arguments(dict(args))
    except ToolError as exc:
        raise InvalidToolCall(exc.message) from exc
    problems = validate(tool.parameters, prepared)
    if problems:
        raise InvalidToolCall(f"invalid arguments for {name}: " + "; ".join(problems))
    return tool, prepared


async def execute(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Run a prepared call; a raised failure becomes the error result the model reads."""
    try:
        return await tool.execute(args, ctx)
    except ToolError as exc:
        return ToolResult.error(exc.message)
    except Exception as exc:  # a tool bug must not take the caller down; report it like Pi
        log.exception("tool %s failed", tool.name)
        return ToolResult.error(str(exc) or type(exc).__name__)


async def run_tool(name: str, args: Any, ctx: ToolContext) -> ToolResult:
    """Prepare and run one call; invalid calls become error results (as in the agent loop)."""
    try:
        tool, prepared = prepare_call(name, args)
    except InvalidToolCall as exc:
        return ToolResult.error(str(exc))
    return await execute(tool, prepared, ctx)
