"""Commands of a shell fence that an instruction introduces, read as that instruction's choices.

A context file often gives its commands as a fenced block rather than in a sentence:

    Install once at the root with:

    ```bash
    npm ci
    ```

The fence is the rest of the instruction: the lead ("… with:", "Run:", "To build the site,
run:") is an imperative or a "with:"/"using:" lead ending in a colon, and the fence follows it
directly. A heading that names the work of developing the project ("Getting started", "Build
and test", "Commands", "Local development") leads a fence right under it the same way: the
section is the how-to. A fence with no lead (under another heading, after a description)
stays code: it may show anything. Each command line
chooses the tools its command names at its head (`npm ci` → npm, `uv run mkdocs serve` → uv
and MkDocs, `helm upgrade …` → Helm), never a word in an argument or a comment. A fence that
is not a shell fence (YAML, JSON, Python …), one after a lead that introduces an example
("For example:", "Output:"), one in an example section, and one whose lead is a description
("Install instructions shown to readers:") or a condition ("If you need a clean slate, run:")
choose nothing. Console fences (commands after ``$``) read their command lines only.

This is structure, not vocabulary: which commands imply which value stays in the catalogue.
"""

from __future__ import annotations

import re

from pi_lsp.lint import vocabulary
from pi_lsp.lint.choices import CODE_MASK, HOW_TO_VERBS, RUNNERS, Choice

#: the info words of a fence that holds shell commands ("" : no info string)
_SHELL_INFO = frozenset(
    {
        "",
        "sh",
        "bash",
        "shell",
        "zsh",
        "fish",
        "console",
        "shell-session",
        "sh-session",
        "terminal",
        "powershell",
        "pwsh",
        "ps1",
        "cmd",
        "bat",
    }
)

#: the verbs of a how-to lead: "Install once at the root with:", "Render and install it with:"
_LEAD_VERB = re.compile(
    r"^\W*+(?:to\s++[^,:]{1,60},\s*+)?(?:from\s++[^,:]{1,40},\s*+)?"
    r"(?:(?:please|first|then|always|just|now|also|and)\b,?\s*+)*" + HOW_TO_VERBS,
    re.IGNORECASE,
)
#: a lead that ends on the way the commands do the work: "… with:", "… using:", "… via:"
_WITH_END = re.compile(r"\b(?:with|using|via|by running|run|these commands)\s*+:\s*+$", re.I)
#: a lead that is a condition, a hedge or a question: its commands are not the rule
_NOT_A_LEAD = re.compile(
    r"^\W*+(?:if|when|whenever|unless|in case|should|optionally|alternatively|or)\b|"
    r"\b(?:may|might|could|can|optional(?:ly)?|alternatively|if you (?:like|prefer|want|wish)|"
    r"instead of|rather than|shown to|readers|users|for example|e\.g\.|such as|like this|"
    r"sample|example|legacy|deprecated|used to|old|previously|don'?t|do not|never|avoid)\b",
    re.IGNORECASE,
)
#: what may stand before a command's tool on its line: a prompt, variables, a runner
_PROMPT = re.compile(r"^\s*+(?:\$|%|>|PS>)\s++")
_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_]\w*+=\S*+\s++)*+(?:sudo\s++)?")
_RUNNER = re.compile(RUNNERS + r"\s++", re.IGNORECASE)
#: a command that installs one named package ("pip install foo", "go install x@latest"): how a
#: user gets a published package, not which tool the project works with
_INSTALLS_NAMED = re.compile(r"^\S++\s++(?:install|add|i|get)\s++[^\s.\-$]", re.IGNORECASE)
_SEPARATOR = re.compile(r"&&|\|\||[;|]")
#: a comment at the end of a command line: a "#" after a blank
_COMMENT = re.compile(r"\s#.*$")


#: a heading whose section is how to work on the project: a fence right under it holds the
#: commands to run ("## Getting started", "## Build and test", "### Local development").
#: Not "Usage" or "Examples": those show a product's commands to its users
_HOW_TO_HEADING = re.compile(
    r"(?:(?:local|dev|development|developer|project|environment|initial|first-time|quick|"
    r"common|useful|everyday|day-to-day|daily)\s++)?"
    r"(?:getting started|get started|set ?up|setting up|install(?:ation|ing)?|"
    r"build(?:ing)?(?:\s*+(?:and|&|/|,)\s*+(?:test(?:ing)?|run(?:ning)?))?|"
    r"test(?:s|ing)?|run(?:ning)? (?:the )?tests|commands?|development|developing|"
    r"run(?:ning)?(?: it)?(?: locally)?|quick ?start|workflow|"
    r"lint(?:ing)?(?:\s*+(?:and|&|/|,)\s*+format(?:ting)?)?|format(?:ting)?|scripts|"
    r"tasks|toolchain|checks|dev loop|preview(?:ing)?|deploy(?:ing|ment)?|"
    r"how to (?:build|test|run|preview|deploy))"
    r"(?:\s++(?:commands|steps|instructions|workflow|setup))?",
    re.IGNORECASE,
)


def heading_leads_commands(title: str) -> bool:
    """Whether a heading's section is how to work on the project, so that a shell fence right
    under it holds the commands to run (see the module's docstring). Numbering, marks and
    emphasis around the title's words do not count ("2. Commands", "**Setup:**")."""
    text = title[:100]
    start, end = 0, len(text)
    while start < end and not text[start].isalpha():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return _HOW_TO_HEADING.fullmatch(" ".join(text[start:end].split())) is not None


def is_shell_fence(info: str) -> bool:
    """Whether a fence's info string says it holds shell commands (or says nothing)."""
    words = info.strip().split()
    return (words[0].lower() if words else "") in _SHELL_INFO


def leads_commands(sentence: str) -> bool:
    """Whether ``sentence`` (the last one of a paragraph, inline code masked) introduces the
    fence after it as its commands: an instruction ending with a colon ("Render and install it
    with:", "To preview the docs, run:"), not a condition, hedge, example or description."""
    stripped = sentence.strip()
    if not stripped.endswith(":") or _NOT_A_LEAD.search(stripped):
        return False
    return bool(_LEAD_VERB.match(stripped) or _WITH_END.search(stripped))


def command_lines(content: str) -> list[tuple[int, str]]:
    """The command segments of a fence's text, each with its offset in ``content``: prompts,
    variables, ``sudo`` and comments removed, ``a && b`` split; in a console fence (one with
    ``$`` prompts) the lines without a prompt are output and left out."""
    lines: list[tuple[int, str]] = []
    offset = 0
    raw = content.split("\n")
    prompted = any(_PROMPT.match(line) for line in raw)
    for line in raw:
        start = offset
        offset += len(line) + 1
        prompt = _PROMPT.match(line)
        if prompted and prompt is None:
            continue
        body_start = prompt.end() if prompt else len(line) - len(line.lstrip())
        body = _COMMENT.sub("", line[body_start:]).rstrip()
        if not body or body.startswith("#"):
            continue
        position = 0
        for piece in _SEPARATOR.split(body):
            at = body.find(piece, position)
            position = at + len(piece)
            segment = piece.strip()
            at += len(piece) - len(piece.lstrip())
            lead = _ASSIGNMENTS.match(segment)
            skip = lead.end() if lead else 0
            if segment[skip:].strip() and not _INSTALLS_NAMED.match(segment[skip:]):
                lines.append((start + body_start + at + skip, segment[skip:]))
    return lines


def fence_choices(content: str) -> list[Choice]:
    """The tools the commands of a fence name at their head, each preferred once, offsets in
    ``content``; none when the fence names two values of one role (alternatives)."""
    found: dict[tuple[str, str], Choice] = {}
    values: dict[str, set[str]] = {}
    for start, segment in command_lines(content):
        heads = {0}
        runner = _RUNNER.match(segment)
        if runner is not None:
            heads.add(runner.end())
        masked = CODE_MASK * len(segment)
        for hit in vocabulary.current().find(segment, masked):
            if hit.start not in heads or hit.numeric or hit.dimension.kind != "choice":
                continue
            key = (hit.dimension.name, hit.value)
            if hit.group:
                values.setdefault(f"{hit.dimension.name}\x00{hit.group}", set()).add(hit.value)
            else:
                values.setdefault(hit.dimension.name, set()).add(hit.value)
            if key not in found:
                found[key] = Choice(
                    hit.dimension.name,
                    hit.value,
                    "prefer",
                    start + hit.start,
                    start + hit.end,
                    hit.group,
                )
    ambiguous = {k.split("\x00")[0] for k, names in values.items() if len(names) > 1}
    return [c for c in found.values() if c.dimension not in ambiguous]
