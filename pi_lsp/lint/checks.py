"""Checks over a Resources snapshot that Pi itself does not make.

Each check is a plain function from the snapshot (and the lint settings) to findings, so it can
be tested without a server or a CLI.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.resources.context_files import ContextFile, same_file
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.loader import Resources
from pi_lsp.resources.model import Finding, RelatedLocation, Severity, SourceRange
from pi_lsp.resources.resource_walk import list_directory
from pi_lsp.resources.shown_paths import shown_path
from pi_lsp.resources.trust import TrustDecision, TrustRequirement

#: Frontmatter fields of the Agent Skills spec, plus those Pi and Claude Code read.
KNOWN_SKILL_FIELDS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "disable-model-invocation",
        "user-invocable",
        "argument-hint",
        "model",
        "context",
        "agent",
        "hooks",
        "version",
    }
)
SHORT_DESCRIPTION = 20  # characters


@dataclass(frozen=True, slots=True)
class LintSettings:
    """What the checks need to know beyond the files (an editor or the CLI sets these)."""

    model_window: int = 128_000
    #: context files may take at most this share of the window before PI504 fires
    context_budget_share: float = 0.10


Check = Callable[[Resources, LintSettings, "LintRun"], Iterator[Finding]]


@lru_cache(maxsize=512)
def _tokens_of(text: str) -> int:
    """Tokens of a context file's text, counted once per content."""
    return count_tokens(text)


def shadowed_context_files(resources: Resources, _: LintSettings, __: LintRun) -> Iterator[Finding]:
    """AGENTS.md next to AGENTS.override.md, CLAUDE.md next to AGENTS.md: never read by Pi."""
    for winner in resources.context_files.files:
        for loser in winner.shadows:
            if same_file(loser, winner.path):
                continue  # a symlink to the file that is read: same text, nothing lost
            name = os.path.basename(loser)
            severity: Severity = "information" if name.upper().startswith("CLAUDE") else "warning"
            yield Finding(
                SourceRange(loser),
                severity,
                "shadowed-context-file",
                f"Pi never reads {name}: {winner.name} in the same folder is read instead"
                + (
                    " (other agents may still read this one)." if severity == "information" else "."
                ),
                related=(RelatedLocation(winner.where, f"{winner.name} is the file Pi reads"),),
            )


def _owner(requirement: TrustRequirement) -> str:
    """The project folder a trust-requiring resource belongs to (the one holding ``.pi`` or
    ``.agents``): trusting it covers every working directory below it."""
    return os.path.dirname(os.path.dirname(requirement.path))


class LintRun:
    """What the checks share across the working directories of one lint run (one rebuild of
    the server, one ``pi-lsp check``): the file source they read through, and the file found
    inside each ignored resource folder, looked for once per folder."""

    def __init__(self, source: FileSource = DISK) -> None:
        self.source = source
        self._inside: dict[str, str | None] = {}

    def file_inside(self, folder: str) -> str | None:
        """A file an editor can open for the resource folder ``folder``, cached for the run."""
        if folder not in self._inside:
            self._inside[folder] = _file_inside(folder, self.source)
        return self._inside[folder]


def _file_inside(folder: str, source: FileSource) -> str | None:
    """The first ``<folder>/<name>/SKILL.md`` in name order, else the first ``<folder>/*.md``:
    two levels at most, and only Markdown (never a binary file a skill folder also holds)."""
    try:
        entries = list_directory(folder)
    except OSError:
        return None
    for entry in entries:
        if entry.is_dir and source.is_file(skill := os.path.join(entry.path, "SKILL.md")):
            return skill
    return next((e.path for e in entries if e.is_file and e.name.endswith(".md")), None)


def _openable_location(requirement: TrustRequirement, resources: Resources, run: LintRun) -> str:
    """A file an editor can open for the resource ``requirement`` names: the resource itself
    when it is a file, a file inside it when it is a folder, else the context file nearest to
    it (a folder alone opens nothing)."""
    if not os.path.isdir(requirement.path):
        return requirement.path
    inside = run.file_inside(requirement.path)
    if inside is not None:
        return inside
    owner = _owner(requirement)
    files = resources.context_files.files
    nearest = next((f for f in reversed(files) if f.directory == owner), None)
    nearest = nearest or next((f for f in reversed(files) if f.scope == "project"), None)
    return nearest.path if nearest is not None else requirement.path


def _untrusted_reason(trust: TrustDecision) -> str:
    """Why the project is not trusted, in words that do not depend on the working directory."""
    if trust.rule == "saved-decision" and trust.entry is not None:
        store, key = shown_path(trust.store_path, ""), shown_path(trust.entry.key, "")
        return f"{store} marks {key} as not trusted"
    return trust.reason


def untrusted_project_resources(
    resources: Resources, _: LintSettings, run: LintRun
) -> Iterator[Finding]:
    """One finding per ignored resource, worded the same from every working directory that
    sees it, so a tree with many working directories reports each resource once."""
    trust = resources.trust
    if trust.trusted:
        return
    for requirement in trust.requirements:
        owner = _owner(requirement)
        resource = os.path.relpath(requirement.path, owner)
        # the folder by its name: the finding sits inside it, and the fix names it whole
        project = os.path.basename(owner) or owner
        yield Finding(
            SourceRange(_openable_location(requirement, resources, run)),
            "warning",
            "untrusted-project-resource",
            f"Ignored: {resource} of the project `{project}` is not loaded because it is "
            f"not trusted ({_untrusted_reason(trust)}). Trust it to load its .pi settings, "
            "SYSTEM.md, skills and prompts.",
            data={"cwd": owner, "resource": requirement.path},
        )


def empty_context_files(resources: Resources, _: LintSettings, __: LintRun) -> Iterator[Finding]:
    for file in resources.context_files.files:
        if not file.content.strip():
            yield Finding(
                SourceRange(file.path),
                "information",
                "context-file-empty",
                "This context file is empty; it still adds an empty block to every request"
                + (
                    f" and hides {', '.join(map(os.path.basename, file.shadows))}."
                    if file.shadows
                    else "."
                ),
            )


def context_budget(resources: Resources, settings: LintSettings, _: LintRun) -> Iterator[Finding]:
    files = resources.context_files.files
    if not files:
        return
    budget = int(settings.model_window * settings.context_budget_share)
    tokens = [_tokens_of(f.content) for f in files]
    total = sum(tokens)
    if total <= budget:
        return
    biggest = max(range(len(files)), key=tokens.__getitem__)
    others = tuple(
        RelatedLocation(f.where, f"{t} tokens")
        for i, (f, t) in enumerate(zip(files, tokens, strict=True))
        if i != biggest
    )
    share = total / settings.model_window
    yield Finding(
        files[biggest].where,
        "warning",
        "context-over-budget",
        f"The context files that load here take {total} tokens, {share:.0%} of a "
        f"{settings.model_window}-token window (limit {settings.context_budget_share:.0%}); "
        f"this file is the largest with {tokens[biggest]} tokens.",
        related=others,
        data={"tokens": total, "budget": budget},
    )


def agent_skills_spec(resources: Resources, _: LintSettings, __: LintRun) -> Iterator[Finding]:
    """The Agent Skills spec checks that Pi does not apply (lower severity)."""
    for skill in resources.skills:
        if os.path.basename(skill.file_path) == "SKILL.md" and skill.name_range is not None:
            folder = os.path.basename(os.path.dirname(skill.file_path))
            if skill.name != folder:
                yield Finding(
                    skill.name_range,
                    "information",
                    "skill-name-folder-mismatch",
                    f'The skill is named "{skill.name}" but its folder is "{folder}"; the Agent '
                    "Skills spec asks for the same name.",
                )
        for key, where in skill.fields:
            if key not in KNOWN_SKILL_FIELDS:
                yield Finding(
                    where,
                    "information",
                    "skill-unknown-field",
                    f'"{key}" is not a skill field that Pi or the Agent Skills spec reads; '
                    "it is ignored.",
                )
        if len(skill.description.strip()) < SHORT_DESCRIPTION and skill.description_range:
            yield Finding(
                skill.description_range,
                "information",
                "skill-description-short",
                "This description is very short; the model chooses skills by their description, "
                "so say what the skill does and when to use it.",
            )


CHECKS: tuple[Check, ...] = (
    shadowed_context_files,
    untrusted_project_resources,
    empty_context_files,
    context_budget,
    agent_skills_spec,
)


def run_checks(
    resources: Resources, settings: LintSettings, run: LintRun | None = None
) -> list[Finding]:
    """Every check's findings for one snapshot; ``run`` is shared by the snapshots of one lint
    run (a new one when not given)."""
    run = run or LintRun()
    return [finding for check in CHECKS for finding in check(resources, settings, run)]


def context_chain(resources: Resources) -> list[ContextFile]:
    """The context files that load together for the snapshot's working directory, in order."""
    return list(resources.context_files.files)
