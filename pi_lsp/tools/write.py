"""Placeholder until the write tool lands."""

from __future__ import annotations

from typing import Any

from pi_lsp.tools.base import ToolContext, ToolError, ToolResult


class _Placeholder:
    name = "write"
    label = "write"
    description = ""
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise ToolError("write is not built yet")


TOOL = _Placeholder()
