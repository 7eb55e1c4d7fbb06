"""The ``write`` tool: create or replace a whole file, making missing directories (spec §2.7)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_lsp.tools.base import ToolContext, ToolResult
from pi_lsp.tools.file_mutation import (
    file_mutation_lock,
    make_parent_dirs,
    run_to_completion,
    write_text_file,
)
from pi_lsp.tools.paths import resolve_to_cwd


@dataclass(frozen=True, slots=True)
class WriteOperations:
    """How the tool reaches files; replace these to write elsewhere (a remote machine, a test)."""

    make_dirs: Callable[[str], None] = make_parent_dirs
    write_file: Callable[[str, str], None] = write_text_file


WRITE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["path", "content"],
    "properties": {
        "path": {
            "type": "string",
            "description": "The file to write, absolute or relative to the working directory",
        },
        "content": {
            "type": "string",
            "description": "The complete text the file should contain",
        },
    },
}

WRITE_DESCRIPTION = (
    "Put the given content into a file: a missing file is created, an existing one is replaced "
    "entirely. Parent directories that do not exist yet are created."
)


def write_success(path: str) -> ToolResult:
    """The result of a write that was done (by the tool or the editor)."""
    return ToolResult.text(f"Successfully wrote to {path}")


class WriteTool:
    """Pi's ``write`` built-in."""

    name = "write"
    label = "write"
    description = WRITE_DESCRIPTION
    parameters = WRITE_PARAMETERS

    def __init__(self, operations: WriteOperations | None = None) -> None:
        self.operations = operations or WriteOperations()

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = str(args["path"])
        content = str(args["content"])
        absolute = resolve_to_cwd(path, ctx.cwd)
        async with file_mutation_lock(absolute):
            await run_to_completion(self._write_file, absolute, content, ctx)
        return write_success(path)

    def _write_file(self, absolute: str, content: str, ctx: ToolContext) -> None:
        """Make the directories, then the file; the abort signal is looked at between steps."""
        ctx.check_aborted()
        self.operations.make_dirs(os.path.dirname(absolute))
        ctx.check_aborted()
        self.operations.write_file(absolute, content)
        ctx.check_aborted()


TOOL = WriteTool()
