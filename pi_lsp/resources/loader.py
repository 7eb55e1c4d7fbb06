"""One immutable snapshot of every resource that shapes a model call, for one working directory.

:func:`load_resources` follows Pi 0.85.0's resource loader (spec §5): decide trust, read the
settings it allows, then context files, SYSTEM.md / APPEND_SYSTEM.md, skills and prompt
templates from their roots in Pi's order. Each part keeps its source paths and line ranges,
and every problem found on the way is a :class:`Finding`.

A :class:`ResourceCache` kept between loads makes a rebuild re-read only what changed (skills
and templates are parsed again only when their file's version changed).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from pi_lsp.resources.agent_dir import canonicalize_path, home_dir, resolve_agent_dir, resolve_path
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES, ContextFiles, load_context_files
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.layout import (
    CONFIG_DIR_NAME,
    PROMPTS_DIR_NAME,
    SKILLS_DIR_NAME,
    agents_skills_dir,
)
from pi_lsp.resources.model import Finding
from pi_lsp.resources.settings import Settings, load_settings
from pi_lsp.resources.skills import (
    LoadSkillsResult,
    Skill,
    SkillParseCache,
    SkillRoot,
    load_skills,
    reload_skills,
)
from pi_lsp.resources.system_files import SystemPrompts, load_system_prompts
from pi_lsp.resources.templates import (
    LoadTemplatesResult,
    PromptTemplate,
    TemplateRoot,
    load_prompt_templates,
)
from pi_lsp.resources.trust import TrustDecision, resolve_project_trust
from pi_lsp.tools.paths import ancestor_dirs, find_git_root
from pi_lsp.tools.registry import BUILTIN_TOOLS, DEFAULT_ACTIVE_TOOLS


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """What a Pi command line (or an editor's settings) says about loading resources."""

    #: the folder Pi would be started in (loading resolves symlinks, as Pi's ``process.cwd()``)
    cwd: str
    agent_dir: str | None = None
    #: ``True`` for ``--approve``, ``False`` for ``--no-approve``, ``None`` when neither is given
    approve: bool | None = None
    no_context_files: bool = False
    no_skills: bool = False
    skill_paths: tuple[str, ...] = ()
    no_prompt_templates: bool = False
    prompt_template_paths: tuple[str, ...] = ()
    system_prompt: str | None = None
    append_system_prompt: tuple[str, ...] | None = None
    #: ``--tools``: the active tools in this order (``None``: settings, else Pi's default)
    tools: tuple[str, ...] | None = None
    home: str | None = None
    env: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Resources:
    """Everything loaded for one working directory, and what is wrong with it."""

    cwd: str
    agent_dir: str
    trust: TrustDecision
    settings: Settings
    context_files: ContextFiles
    system_prompts: SystemPrompts
    skill_load: LoadSkillsResult
    template_load: LoadTemplatesResult
    tools: tuple[str, ...]
    options: LoadOptions

    @property
    def skills(self) -> tuple[Skill, ...]:
        return self.skill_load.skills

    @property
    def templates(self) -> tuple[PromptTemplate, ...]:
        return self.template_load.templates

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every problem found, part by part in load order."""
        return (
            *self.trust.findings,
            *self.settings.findings,
            *self.context_files.findings,
            *self.system_prompts.findings,
            *self.skill_load.findings,
            *self.template_load.findings,
        )

    @property
    def watched_files(self) -> tuple[str, ...]:
        """Every file the snapshot was read from (for watchers)."""
        return (*self.context_files.paths, *self.skill_load.files, *self.template_load.files)


@dataclass
class ResourceCache:
    """State kept between loads so that a rebuild re-reads only what changed."""

    skills: SkillParseCache = field(default_factory=SkillParseCache)


def _unique_template_roots(roots: Sequence[TemplateRoot]) -> list[TemplateRoot]:
    """Roots in order, each real path once: the first insertion wins (spec §5.3)."""
    seen: set[str] = set()
    out: list[TemplateRoot] = []
    for root in roots:
        key = canonicalize_path(root.path)
        if key not in seen:
            seen.add(key)
            out.append(root)
    return out


def _unique_skill_roots(roots: Sequence[SkillRoot]) -> list[SkillRoot]:
    """Roots in order, each real path once per scan mode: the first insertion wins (§5.3).

    Pi de-duplicates the *files* its discovery collects, not the folders: one folder reached
    as two roots with different scan rules (an ``agentDir/skills`` linked to a project
    ``.agents/skills``) contributes the files of both scans, each file once (by real path,
    which :func:`load_skills` does; oracle case ``skills-same-folder-two-modes``). Only a root
    repeated with the same rules is dropped.
    """
    seen: set[tuple[str, str]] = set()
    out: list[SkillRoot] = []
    for root in roots:
        key = (canonicalize_path(root.path), root.mode)
        if key not in seen:
            seen.add(key)
            out.append(root)
    return out


def _agents_skill_dirs(cwd: str, home: str) -> list[str]:
    """``.agents/skills`` from cwd upward, stopping after the git root (or at ``/``)."""
    user_level = canonicalize_path(agents_skills_dir(home))
    stop = find_git_root(cwd)
    out: list[str] = []
    for directory in ancestor_dirs(cwd):
        candidate = agents_skills_dir(directory)
        if os.path.isdir(candidate) and canonicalize_path(candidate) != user_level:
            out.append(candidate)
        if directory == stop:
            break
    return out


def _settings_entries(settings: Settings, key: str, cwd: str, agent_dir: str) -> list[str]:
    """Paths a settings file lists under ``key``: project ones first, each relative to its file."""
    out: list[str] = []
    for file, base in (
        (settings.project_file, os.path.join(cwd, CONFIG_DIR_NAME)),
        (settings.global_file, agent_dir),
    ):
        values = file.data.get(key)
        if isinstance(values, list):
            out.extend(
                resolve_path(v.strip(), base) for v in values if isinstance(v, str) and v.strip()
            )
    return out


_Root = TypeVar("_Root", SkillRoot, TemplateRoot)


def _settings_roots(
    root_type: type[_Root], settings: Settings, key: str, cwd: str, agent_dir: str
) -> list[_Root]:
    """The explicit roots a settings file lists under ``key`` (project scope when inside cwd)."""
    return [
        root_type(
            path, "explicit", "project" if path.startswith(cwd) else "user", source="settings"
        )
        for path in _settings_entries(settings, key, cwd, agent_dir)
    ]


def _cli_roots(root_type: type[_Root], paths: Sequence[str], cwd: str, home: str) -> list[_Root]:
    """The explicit roots named on the command line (``--skill``, ``--prompt-template``)."""
    return [
        root_type(resolve_path(path, cwd, home), "explicit", "temporary", source="cli")
        for path in paths
    ]


def skill_roots(
    options: LoadOptions, cwd: str, agent_dir: str, home: str, trusted: bool, settings: Settings
) -> list[SkillRoot]:
    """Where skills are looked for, in Pi's order (spec §5.2, §5.3): first insertion wins.

    ``--skill`` paths are Pi's ``additionalSkillPaths``, merged *after* everything discovered
    (``mergePaths([...extensionSkills, ...discovered], additional)``): they come last and lose
    name collisions (oracle case ``skills-collision-cli-user-project``).
    """
    roots: list[SkillRoot] = []
    if not options.no_skills:
        roots += _settings_roots(SkillRoot, settings, "skills", cwd, agent_dir)
        if trusted:
            project = os.path.join(cwd, CONFIG_DIR_NAME, SKILLS_DIR_NAME)
            roots.append(SkillRoot(project, "pi", "project"))
            roots += [SkillRoot(d, "agents", "project") for d in _agents_skill_dirs(cwd, home)]
        roots.append(SkillRoot(os.path.join(agent_dir, SKILLS_DIR_NAME), "pi", "user"))
        roots.append(SkillRoot(agents_skills_dir(home), "agents", "user"))
    roots += _cli_roots(SkillRoot, options.skill_paths, cwd, home)
    return _unique_skill_roots(roots)


def template_roots(
    options: LoadOptions, cwd: str, agent_dir: str, home: str, trusted: bool, settings: Settings
) -> list[TemplateRoot]:
    """Where prompt templates are looked for, in Pi's order: ``--prompt-template`` paths last
    (Pi's ``additionalPromptTemplatePaths``, like ``--skill``), so they lose name collisions."""
    roots: list[TemplateRoot] = []
    if not options.no_prompt_templates:
        roots += _settings_roots(TemplateRoot, settings, "prompts", cwd, agent_dir)
        if trusted:
            project = os.path.join(cwd, CONFIG_DIR_NAME, PROMPTS_DIR_NAME)
            roots.append(TemplateRoot(project, "auto", "project"))
        roots.append(TemplateRoot(os.path.join(agent_dir, PROMPTS_DIR_NAME), "auto", "user"))
    roots += _cli_roots(TemplateRoot, options.prompt_template_paths, cwd, home)
    return _unique_template_roots(roots)


def active_tools(options: LoadOptions, settings: Settings) -> tuple[str, ...]:
    """``--tools`` in its order, else the settings' ``defaultTools``, else Pi's default set."""
    if options.tools is not None:
        names: Any = options.tools
    else:
        names = settings.get("defaultTools") or DEFAULT_ACTIVE_TOOLS
    if not isinstance(names, list | tuple):
        names = DEFAULT_ACTIVE_TOOLS
    return tuple(dict.fromkeys(n for n in names if isinstance(n, str) and n in BUILTIN_TOOLS))


def load_resources(
    options: LoadOptions, source: FileSource = DISK, cache: ResourceCache | None = None
) -> Resources:
    """Load every resource for ``options.cwd`` as Pi does; see the module docstring."""
    cache = cache if cache is not None else ResourceCache()
    env = options.env if options.env is not None else dict(os.environ)
    home = options.home or home_dir(env)
    # Pi's cwd is ``process.cwd()``, which the system reports as a real path: started in a
    # folder reached through a symlink, Pi sees (and prints, and looks up trust for) the target
    # (oracle cases ``trust-symlinked-cwd*``).
    cwd = os.path.realpath(os.path.abspath(options.cwd))
    agent_dir = resolve_agent_dir(options.agent_dir, env=env, home=home)

    global_only = load_settings(cwd, agent_dir, project_trusted=False, source=source)
    trust = resolve_project_trust(
        cwd,
        agent_dir,
        approve=options.approve,
        default_project_trust=global_only.default_project_trust,
        home=home,
    )
    settings = (
        load_settings(cwd, agent_dir, project_trusted=True, source=source)
        if trust.trusted
        else global_only
    )
    context = load_context_files(
        cwd, agent_dir, no_context_files=options.no_context_files, source=source
    )
    prompts = load_system_prompts(
        cwd,
        agent_dir,
        project_trusted=trust.trusted,
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt,
        source=source,
    )
    skills = load_skills(
        skill_roots(options, cwd, agent_dir, home, trust.trusted, settings),
        source,
        cache=cache.skills,
    )
    templates = load_prompt_templates(
        template_roots(options, cwd, agent_dir, home, trust.trusted, settings), source
    )
    return Resources(
        cwd=cwd,
        agent_dir=agent_dir,
        trust=trust,
        settings=settings,
        context_files=context,
        system_prompts=prompts,
        skill_load=skills,
        template_load=templates,
        tools=active_tools(options, settings),
        options=options,
    )


def reload_resources(
    previous: Resources,
    changed: Collection[str],
    source: FileSource = DISK,
    cache: ResourceCache | None = None,
) -> Resources:
    """The snapshot after ``changed`` files changed, re-reading only what it must.

    When only the contents of known skill files or context files changed (or a context file
    came or went in the folders the chain is looked up in), only those parts are read again
    (the skills replayed without a walk, the context-file chain looked up again) and everything
    else is kept; any other change loads everything again (still with ``cache``).
    """
    cache = cache if cache is not None else ResourceCache()
    paths = {os.path.abspath(p) for p in changed}
    # a context file of the chain that came, went or changed needs only the chain read again
    chain = {*ancestor_dirs(previous.cwd), previous.agent_dir}
    context_names = {
        p
        for p in paths
        if os.path.basename(p) in CONTEXT_FILE_NAMES and os.path.dirname(p) in chain
    }
    if not paths or not all(source.is_file(p) for p in paths - context_names):
        return load_resources(previous.options, source, cache)
    skill_files = set(previous.skill_load.files)
    context_files = set(previous.context_files.paths) | context_names
    if not paths <= skill_files | context_files:
        return load_resources(previous.options, source, cache)
    updated = previous
    if paths & skill_files:
        skills = reload_skills(previous.skill_load, paths & skill_files, source, cache=cache.skills)
        if skills is None:
            return load_resources(previous.options, source, cache)
        updated = replace(updated, skill_load=skills)
    if paths & context_files:
        context = load_context_files(
            previous.cwd,
            previous.agent_dir,
            no_context_files=previous.options.no_context_files,
            source=source,
        )
        updated = replace(updated, context_files=context)
    return updated
