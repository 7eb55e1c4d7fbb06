"""Every lint rule: a stable code, a kebab-case name, a default severity and its documentation.

``docs/rules.md`` is generated from this table (``python -m pi_lsp.lint.rules_doc``), so the
rules document themselves. Rules whose problem Pi also reports carry ``pi_reports=True``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_lsp.resources.model import Severity


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    why: str
    example: str
    pi_reports: bool = False


def _r(
    code: str, name: str, severity: Severity, summary: str, why: str, example: str, pi: bool = False
) -> Rule:
    return Rule(code, name, severity, summary, why, example, pi)


RULES: tuple[Rule, ...] = (
    # --- instructions ------------------------------------------------------------------------
    _r(
        "PI101",
        "conflicting-instructions",
        "warning",
        "Two context files that load together give instructions that cannot both be followed.",
        "Pi concatenates every context file from the agent dir down to the working directory and "
        "leaves contradictions to the model, which may follow either one.",
        "~/.pi/agent/AGENTS.md: `Use npm for packages.`\n"
        "project/AGENTS.md: `Always use pnpm.`  <- reported here, pointing at the first",
    ),
    _r(
        "PI102",
        "conflicting-instructions-in-file",
        "warning",
        "One context file contradicts itself.",
        "The model sees both sentences and has no way to tell which one you meant.",
        "AGENTS.md: `Indent with tabs.` ... `Use 2 spaces for indentation.`",
    ),
    _r(
        "PI103",
        "duplicate-instruction",
        "information",
        "The same instruction appears in two files that load together.",
        "Every copy costs tokens in every request; keep it in the outermost file that needs it.",
        "AGENTS.md and packages/api/AGENTS.md both say `Run the tests before committing.`",
    ),
    _r(
        "PI104",
        "instructions-not-checked",
        "information",
        "A context file is longer than the instruction budget (256 KiB); its end was not checked.",
        "The conflict and duplicate checks read a context file up to the budget so that one huge "
        "file cannot stall the linter; Pi still sends the whole file to the model.",
        "a 2 MB AGENTS.md: checked up to line 9,000, reported there",
    ),
    _r(
        "PI105",
        "instructions-out-of-time",
        "warning",
        "Reading a context file's instructions took longer than the language server's time "
        "budget per file (4 s of CPU time, setting fileBudgetMs).",
        "The file is left out of the conflict and duplicate checks so that the diagnostics and "
        "hovers of every other file stay live; Pi still sends the whole file to the model.",
        "a 500 KB AGENTS.md of dense prose on a slow machine",
    ),
    _r(
        "PI106",
        "acknowledged-override",
        "information",
        "A later context file (or its section) says it overrides an earlier rule, and does.",
        "The override is intended, so it is not reported as a conflict; it is shown, quoting both "
        "sides, because the model still receives both texts. It covers the list item or section "
        'that says so: "this package overrides the root rule", "unlike the root AGENTS.md", '
        '"takes precedence over", "Exception:", a heading "Overrides". A bare "instead '
        'of npm" rejects a value and acknowledges nothing.',
        "project/AGENTS.md: `- Use pnpm.`\n"
        "project/legacy/AGENTS.md: `This package overrides the root rule: use npm.`  <- here",
    ),
    _r(
        "PI107",
        "judged-conflict",
        "warning",
        "The model judge (opt-in: `pi-lsp check --judge`, server setting `judge`) read two "
        "instructions as conflicting; the message gives the model's one-line reason. A pair it "
        "reads as a deliberate override is reported at information severity.",
        "Some contradictions need reading, not word matching: a convention stated as a fact "
        "against a rule, or a scope that may or may not cover the other file. The judge asks "
        "your own configured model about the pairs the word rules left undecided; its verdict "
        "is cached, and discarded when its quotes are not in the files.",
        "AGENTS.md: `The docs site is built with npm.`\n"
        "docs/AGENTS.md: `Always use pnpm here.`  <- judged: one tool for the docs",
    ),
    # --- shadowing and trust -----------------------------------------------------------------
    _r(
        "PI201",
        "shadowed-context-file",
        "warning",
        "A context file is never read because another file in the same folder wins.",
        "Pi reads one file per folder, the first of AGENTS.override.md, AGENTS.md, AGENTS.MD, "
        "CLAUDE.md, CLAUDE.MD. Edits to the others never reach Pi (other agents may read them).",
        "AGENTS.md next to AGENTS.override.md; CLAUDE.md next to AGENTS.md",
    ),
    _r(
        "PI202",
        "context-file-worktree-shadowed",
        "information",
        "In a linked git worktree, the main checkout's file of the same name is left out.",
        "Pi loads the worktree's own copy instead, so both are not sent twice.",
        "repo/AGENTS.md is skipped when working in repo/.worktrees/feature with its AGENTS.md",
    ),
    _r(
        "PI203",
        "untrusted-project-resource",
        "warning",
        "A project resource is ignored because the project is not trusted.",
        "Pi loads .pi/settings.json, .pi/SYSTEM.md, .pi/APPEND_SYSTEM.md, .pi/skills, "
        ".pi/prompts and .agents/skills of a project only once it is trusted.",
        "project/.pi/SYSTEM.md while trust.json has no entry for the project",
    ),
    # --- skills ------------------------------------------------------------------------------
    _r(
        "PI301",
        "skill-description-required",
        "warning",
        "A SKILL.md has no description, so Pi does not load it.",
        "The description is what the model reads to decide when to use the skill.",
        "---\nname: deploy\n---",
        True,
    ),
    _r(
        "PI302",
        "skill-description-too-long",
        "warning",
        "A skill description is longer than 1024 characters (Pi still loads it).",
        "Every visible skill's description is in every request.",
        "description: <1,100 characters>",
        True,
    ),
    _r(
        "PI303",
        "skill-name-too-long",
        "warning",
        "A skill name is longer than 64 characters.",
        "Pi and the Agent Skills spec limit names.",
        "name: a-very-long-name-…",
        True,
    ),
    _r(
        "PI304",
        "skill-name-invalid-characters",
        "warning",
        "A skill name uses characters other than lowercase a-z, 0-9 and hyphens.",
        "Names are used in /skill:name commands and by other agents.",
        "name: Deploy_Tool",
        True,
    ),
    _r(
        "PI305",
        "skill-name-hyphen-edge",
        "warning",
        "A skill name starts or ends with a hyphen.",
        "The Agent Skills spec forbids it.",
        "name: -deploy",
        True,
    ),
    _r(
        "PI306",
        "skill-name-consecutive-hyphens",
        "warning",
        "A skill name contains two hyphens in a row.",
        "The Agent Skills spec forbids it.",
        "name: deploy--prod",
        True,
    ),
    _r(
        "PI307",
        "skill-invalid-frontmatter",
        "warning",
        "A SKILL.md frontmatter is not valid YAML; Pi skips the skill.",
        "Pi parses frontmatter as YAML 1.2 and drops files it cannot read.",
        "description: [unclosed",
        True,
    ),
    _r(
        "PI308",
        "skill-name-collision",
        "warning",
        "Two skills have the same name; the one loaded first wins, the other is dropped.",
        "Project skills load before user skills, so a project can shadow a user skill silently.",
        "~/.pi/agent/skills/review and .pi/skills/review",
        True,
    ),
    _r(
        "PI309",
        "skill-read-error",
        "warning",
        "A skill file cannot be read.",
        "Pi skips it.",
        "a SKILL.md without read permission",
        True,
    ),
    _r(
        "PI310",
        "skill-path-missing",
        "warning",
        "A configured skill path does not exist.",
        "It was given with --skill or in settings.json.",
        '"skills": ["./missing"]',
        True,
    ),
    _r(
        "PI311",
        "skill-path-not-markdown",
        "warning",
        "A configured skill path is neither a folder nor a .md file.",
        "Pi ignores it.",
        '"skills": ["./tool.py"]',
        True,
    ),
    _r(
        "PI312",
        "skill-directory-unreadable",
        "warning",
        "A skills folder cannot be listed.",
        "Skills inside it are not loaded.",
        "a skills folder without read permission",
    ),
    _r(
        "PI313",
        "skill-directory-loop",
        "warning",
        "A symbolic link inside a skills folder leads back to a folder above it.",
        "pi-lsp stops there; Pi would walk it until the system refuses.",
        "skills/a/up -> ..",
    ),
    _r(
        "PI314",
        "skill-path-not-utf8",
        "warning",
        "A skill path is not valid UTF-8.",
        "Pi cannot name it.",
        "a folder named with Latin-1 bytes",
        True,
    ),
    _r(
        "PI320",
        "skill-name-folder-mismatch",
        "information",
        "A skill's name differs from its folder's name.",
        "The Agent Skills spec asks for the name to match the folder; Pi accepts either.",
        "skills/deploy/SKILL.md with name: release",
    ),
    _r(
        "PI321",
        "skill-unknown-field",
        "information",
        "A SKILL.md frontmatter has a field the Agent Skills spec does not define.",
        "Pi ignores unknown fields; a typo such as `descripton` loses the value silently.",
        "descripton: Deploys the app",
    ),
    _r(
        "PI322",
        "skill-description-short",
        "information",
        "A skill description is very short.",
        "The model picks skills by their description; a few words rarely say when to use one.",
        "description: Deploy",
    ),
    # --- prompt templates --------------------------------------------------------------------
    _r(
        "PI401",
        "template-name-collision",
        "warning",
        "Two prompt templates have the same name; the first one loaded wins.",
        "Project templates load before user templates.",
        "~/.pi/agent/prompts/review.md and .pi/prompts/review.md",
        True,
    ),
    _r(
        "PI402",
        "template-invalid-frontmatter",
        "warning",
        "A prompt template's frontmatter is not valid YAML; Pi skips the template.",
        "It will not be offered as a /command.",
        "argument-hint: [unclosed",
    ),
    _r(
        "PI403",
        "template-read-error",
        "warning",
        "A prompt template cannot be read.",
        "Pi skips it.",
        "a template without read permission",
    ),
    _r(
        "PI404",
        "template-path-missing",
        "error",
        "A configured prompt-template path is missing.",
        "It was given with --prompt-template or in settings.json.",
        '"prompts": ["./missing"]',
        True,
    ),
    _r(
        "PI405",
        "template-path-not-markdown",
        "warning",
        "A configured prompt-template path is not a .md file.",
        "Pi ignores it.",
        '"prompts": ["./t.txt"]',
    ),
    _r(
        "PI406",
        "template-directory-unreadable",
        "warning",
        "A prompts folder cannot be listed.",
        "Templates inside it are not loaded.",
        "a prompts folder without read permission",
    ),
    # --- context files, system prompt, budget -------------------------------------------------
    _r(
        "PI501",
        "context-file-unreadable",
        "warning",
        "A context file cannot be read.",
        "Pi warns and tries the next file name in that folder.",
        "AGENTS.md without read permission",
        True,
    ),
    _r(
        "PI502",
        "context-file-invalid-utf8",
        "warning",
        "A context file is not valid UTF-8 (or is binary).",
        "Pi decodes it anyway; invalid bytes reach the model as replacement characters.",
        "an AGENTS.md saved as Latin-1",
    ),
    _r(
        "PI503",
        "context-file-empty",
        "information",
        "A context file is empty.",
        "It still wraps an empty block into every request, and shadows other names in its folder.",
        "an empty CLAUDE.md next to AGENTS.md",
    ),
    _r(
        "PI504",
        "context-over-budget",
        "warning",
        "The context files take more than a set share of the model's window.",
        "What they take is missing for the conversation; compaction comes sooner.",
        "a 120 KB AGENTS.md with a 128k-token window",
    ),
    _r(
        "PI505",
        "system-prompt-unreadable",
        "warning",
        "SYSTEM.md or APPEND_SYSTEM.md cannot be read.",
        "Pi warns and uses the path text itself as the prompt.",
        "a folder named SYSTEM.md",
        True,
    ),
    _r(
        "PI506",
        "system-prompt-invalid-utf8",
        "warning",
        "SYSTEM.md or APPEND_SYSTEM.md is not valid UTF-8.",
        "Invalid bytes reach the model as replacement characters.",
        "a Latin-1 SYSTEM.md",
    ),
    _r(
        "PI507",
        "context-file-not-regular",
        "warning",
        "A context file name is taken by a named pipe, socket or device, not a regular file.",
        "Pi skips it and tries the next name in that folder; pi-lsp never reads it (a pipe would "
        "block, /dev/zero never ends).",
        "AGENTS.md -> /dev/zero",
    ),
    # --- settings and trust store -------------------------------------------------------------
    _r(
        "PI601",
        "settings-invalid-json",
        "warning",
        "A settings.json is not valid JSON.",
        "Pi warns and uses no settings from that file.",
        '{"defaultTools": ["read",]}',
        True,
    ),
    _r(
        "PI602",
        "settings-not-object",
        "warning",
        "A settings.json is not a JSON object.",
        "Pi cannot use it.",
        "[]",
        True,
    ),
    _r(
        "PI603",
        "settings-unreadable",
        "warning",
        "A settings.json cannot be read.",
        "Pi uses no settings from that file.",
        "settings.json without read permission",
        True,
    ),
    _r(
        "PI604",
        "lint-catalogue-invalid",
        "warning",
        "An entry of `lint.catalogue` in a settings.json cannot be used.",
        "pi-lsp's lint reads `lint.catalogue` to learn roles and values beyond its own catalogue "
        "(a list of roles: name, label, kind, values with aliases and commands; see the catalogue "
        "section). An entry it cannot read is skipped, with this finding at its line; the rest "
        "of the catalogue still applies.",
        '{"lint": {"catalogue": [{"name": "Queue", "values": []}]}}',
    ),
    _r(
        "PI611",
        "trust-store-invalid-json",
        "error",
        "trust.json is not valid JSON.",
        "Pi stops with an error whenever it must read the store.",
        '{"/proj": true,',
        True,
    ),
    _r(
        "PI612",
        "trust-store-not-object",
        "error",
        "trust.json is not a JSON object.",
        "Pi stops with an error whenever it must read the store.",
        "[]",
        True,
    ),
    _r(
        "PI613",
        "trust-store-invalid-value",
        "error",
        "A trust.json value is not true, false or null.",
        "Pi stops with an error.",
        '{"/proj": "yes"}',
        True,
    ),
    _r(
        "PI614",
        "trust-store-unreadable",
        "error",
        "trust.json cannot be read.",
        "Pi stops with an error whenever it must read the store.",
        "trust.json without read permission",
        True,
    ),
    _r(
        "PI615",
        "trust-store-locked",
        "warning",
        "trust.json is locked by another process.",
        "pi-lsp read it anyway; Pi would fail.",
        "a stale trust.json.lock",
    ),
    _r(
        "PI616",
        "trust-store-lock-failed",
        "warning",
        "The trust.json lock cannot be created.",
        "pi-lsp read the store without it.",
        "a read-only agent dir",
    ),
)

BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}
BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}

#: A finding whose rule is not in the table still gets a code, so nothing is lost.
UNKNOWN = Rule("PI999", "unknown", "warning", "A problem without a documented rule.", "", "")


def rule_for(name: str) -> Rule:
    return BY_NAME.get(name, UNKNOWN)
