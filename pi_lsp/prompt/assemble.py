"""From a Resources snapshot to the system prompt document the agent sends."""

from __future__ import annotations

from pi_lsp.prompt.system_prompt import (
    PromptContextFile,
    PromptDocument,
    PromptInputs,
    PromptSkill,
    build_system_prompt,
)
from pi_lsp.resources.loader import Resources


def prompt_inputs(resources: Resources) -> PromptInputs:
    env_setting = resources.settings.get("exposeSessionEnvironment", True)
    return PromptInputs(
        cwd=resources.cwd,
        tools=resources.tools,
        custom_prompt=resources.system_prompts.system_prompt,
        append=resources.system_prompts.append,
        context_files=tuple(
            PromptContextFile(f.path, f.content) for f in resources.context_files.files
        ),
        skills=tuple(
            PromptSkill(s.name, s.description, s.file_path, s.visible, s.location)
            for s in resources.skills
        ),
        session_environment=env_setting is not False,
    )


def build_prompt(resources: Resources) -> PromptDocument:
    """The system prompt for the snapshot's working directory, with spans and token counts."""
    return build_system_prompt(prompt_inputs(resources))
