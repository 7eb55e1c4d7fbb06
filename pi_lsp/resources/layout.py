"""The names of the folders Pi reads resources from, written once.

* ``.pi`` (:data:`CONFIG_DIR_NAME`): Pi's own folder. In a project it holds the project's
  ``settings.json``, ``SYSTEM.md``, ``APPEND_SYSTEM.md`` and its ``skills`` and ``prompts``
  folders; in the home folder it holds the default agent dir, ``~/.pi/agent``.
* ``.agents`` (:data:`AGENTS_DIR_NAME`): the folder shared with other agents; Pi reads only
  its ``skills`` folder, in the home folder and in the cwd and its ancestors up to the git root.
* ``skills`` (:data:`SKILLS_DIR_NAME`): skill folders (a ``SKILL.md`` each) and, directly in a
  ``.pi/skills`` or agent-dir ``skills`` folder, single-file ``*.md`` skills.
* ``prompts`` (:data:`PROMPTS_DIR_NAME`): prompt templates, one ``*.md`` file each, in the
  project's ``.pi`` and in the agent dir.
"""

from __future__ import annotations

import os

__all__ = [
    "AGENTS_DIR_NAME",
    "CONFIG_DIR_NAME",
    "PROJECT_DIR_NAMES",
    "PROMPTS_DIR_NAME",
    "SKILLS_DIR_NAME",
    "agents_skills_dir",
]

CONFIG_DIR_NAME = ".pi"
AGENTS_DIR_NAME = ".agents"
SKILLS_DIR_NAME = "skills"
PROMPTS_DIR_NAME = "prompts"

#: The folders a project keeps its resources in: ``<project>/.pi`` and ``<project>/.agents``.
PROJECT_DIR_NAMES = (CONFIG_DIR_NAME, AGENTS_DIR_NAME)


def agents_skills_dir(folder: str) -> str:
    """``<folder>/.agents/skills``: where Pi looks for shared skills in ``folder``."""
    return os.path.join(folder, AGENTS_DIR_NAME, SKILLS_DIR_NAME)
