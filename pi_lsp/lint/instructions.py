"""Instructions extracted from a context file's Markdown structure.

An instruction is one sentence of a paragraph, a bullet or a numbered item (markdown-it-py
finds the blocks), or one value cell of a table that states settings: a key column and a value
column ("| Package manager | pnpm |"), or a scope column ("Package", "Path", "Language" …)
whose cell becomes the row's :attr:`Instruction.scope_hint`, each other column's header
labelling its cell. Left out, because the model does not read them as rules for itself:

* fenced and indented code blocks, HTML blocks, headings, other tables;
* example material, known by its form: the block that follows a lead-in ending with ":" that
  says "for example" / "e.g." / "for instance" / "such as" / "like this", or a short one
  ("Output:", "Good:", "Example response:"); sentences starting with "e.g." / "For example" /
  "Bad:" / "Wrong:" / "❌"; the good half of a good/bad pair that shows code or a quote
  ("✅ `const a = 'x'`"); a sentence wholly in quotes; parenthetical "(e.g. …)" asides; and
  every block of a section whose heading names examples, samples, templates or anti-patterns
  ("## Examples", "### Example output") — but not the file's title ("# Examples" of an
  ``examples/AGENTS.md``) nor a heading that names them as a place ("Examples package",
  "Working in `examples/`"), whose sections hold real rules;
* a YAML frontmatter block at the top of the file.

A short fragment that opens with a value under a heading naming its dimension reads as that
label ("## Tests" / "Jest with `jest-chrome` for the mocks.").

Inline code stays in the text (``Run `pnpm test` `` names a package manager), but words inside
it never count as negations. Positions are 0-based lines and columns in code points of the
file as given, the range covering the sentence's text.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from itertools import pairwise
from operator import attrgetter
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from pi_lsp.lint import cues, vocabulary
from pi_lsp.lint.blocks import Chunk, chunk_starts, closes_fence, html_terminator
from pi_lsp.lint.choices import CODE_MASK, Choice, is_directive, read_choices
from pi_lsp.lint.fences import (
    command_lines,
    fence_choices,
    heading_leads_commands,
    is_shell_fence,
    leads_commands,
)
from pi_lsp.lint.frames import Frame, command_frames, frames_of
from pi_lsp.lint.purposes import purpose_of
from pi_lsp.lint.scopes import EVERYWHERE, Scope, opening_scope, scope_for
from pi_lsp.resources.model import SourceRange

Polarity = Literal["always", "never", "neutral"]


@dataclass(frozen=True, slots=True)
class Instruction:
    """One sentence the agent will read as a rule.

    ``text`` is the sentence as it appears in the file (Markdown included, line breaks kept);
    ``normalized`` is its lowercase plain text with spacing collapsed and closing punctuation
    dropped; ``action`` is ``normalized`` without the polarity words, for always/never
    comparison; ``override`` says the sentence, its list item or its section declares that
    it overrides another rule ("this package overrides the root rule", "unlike the root
    AGENTS.md", "Exception: …", a heading "Overrides"); ``scope`` says where it applies (see
    :mod:`pi_lsp.lint.scopes`); ``frames`` are its action frames
    (:mod:`pi_lsp.lint.frames`), for always/never comparison of paraphrases.
    """

    path: str
    where: SourceRange
    text: str
    normalized: str
    action: str
    polarity: Polarity
    directive: bool
    choices: tuple[Choice, ...]
    heading: tuple[str, ...] = ()
    override: bool = False
    #: the scope a table row names in its scope column ("apps/web", "TypeScript"); "" for
    #: text outside such a table. See :func:`covers_whole_repo`.
    scope_hint: str = ""
    scope: Scope = EVERYWHERE
    frames: tuple[Frame, ...] = ()
    #: the values an override sentence states after its acknowledgement when the ordinary
    #: reading finds no choice in it ("This package overrides the root testing rule: it stays
    #: on Jest"): compared only as the later side of a pair, so that they are reported as
    #: an acknowledged override and never set a rule of their own
    overriding: tuple[Choice, ...] = ()


_WHOLE_REPO = frozenset(
    {
        "",
        "all",
        "*",
        "**",
        "/",
        ".",
        "(all)",
        "all packages",
        "every package",
        "everything",
        "everywhere",
        "repo",
        "root",
        "whole repo",
        "entire repo",
        "repo-wide",
        "global",
        "default",
        "any",
        "-",
        "\u2013",
        "\u2014",
    }
)


def covers_whole_repo(scope_hint: str) -> bool:
    """Whether a table row's scope (:attr:`Instruction.scope_hint`) covers the whole
    repository: empty, "all", "*", "root", "everywhere" …"""
    return scope_hint.strip().strip("`*_").strip().lower() in _WHOLE_REPO


_EXAMPLE_HEADING = re.compile(
    r"\b(?:examples?|samples?|sample output|templates?|anti-?patterns?)\b", re.I
)
#: a heading that marks its section as no longer followed: a history ("History", "Tooling
#: history, briefly"), or a section flagged "(outdated)", "(do not follow)", "no longer
#: applies". A heading that merely mentions the word ("History matters here") is a section
#: like any other.
_NOT_FOLLOWED_HEADING = re.compile(
    r"\b(?:do\s++not|don't)\s++follow\b|\bno\s++longer\s++(?:used|applies|apply|current|valid)\b|"
    r"\(\s*+(?:outdated|obsolete|deprecated|superseded|historical|archived|old)\b|"
    r"^\W*+(?:outdated|obsolete|deprecated|archived?|superseded)\W*+$|"
    r"^\W*+(?:(?:our|the|project|tooling|repo|repository|some|brief|a\s++bit\s++of)\s++)?"
    r"history(?:\s*+,\s*+briefly)?\W*+$",
    re.I,
)


@lru_cache(maxsize=4096)
def _sets_aside(level: int, title: str) -> bool:
    """Whether a heading makes its section example material or no longer followed (asked for
    every block of the section: remembered per heading)."""
    return bool(
        (_EXAMPLE_HEADING.search(title) and level > 1 and not _EXAMPLE_PLACE.search(title))
        or _NOT_FOLLOWED_HEADING.search(title)
    )


#: words of a lead-in that introduces an example; the lead-in ends with ":" and the word
#: comes after the colon before that one
_EXAMPLE_LEAD = re.compile(
    r"\bfor example\b|\be\.g\.|\bfor instance\b|\bsuch as\b|\blike this\b|\bexamples?\b|"
    r"\bsample\b|\bbad\b|\bwrong\b|\bincorrect\b|\bdon'?t do this\b",
    re.I,
)
#: a short lead-in that introduces sample material ("Output:", "Example response:", "Good:")
_SHORT_LEAD = re.compile(
    r"^\W*+(?:[\w'-]++\s++){0,2}(?:output|result|response|reply|good|correct|right|"
    r"before|after|do this instead|like so)\s*+:$",
    re.I,
)
#: a heading that names examples as a place, so its section holds rules for that place
#: ("Examples package", "Working in `examples/`", "The example app")
_EXAMPLE_PLACE = re.compile(
    r"/|\b(?:package|packages|app|apps|folder|folders|directory|directories|dir|project|"
    r"projects|crate|crates|module|modules|workspace|workspaces|repo|repository|service|"
    r"services|site|library|working in|contributing to)\b",
    re.I,
)
#: an item of a good/bad pair whose body is a code snippet or a quote ("✅ `const a = 'x'`")
_GOOD_SAMPLE = re.compile(
    r"^\W*?(?:\u2705|\u2714\ufe0f?|\u2713|(?:good|correct|right|do)\s*+:)\s*+"
    r"[\x1a\"'\u201c\u2018]"
)
#: a sentence wholly in quotes: a sample of what someone says, not a rule
_QUOTED_SENTENCE = re.compile(r"^\s*+(?:\"[^\"]++\"|\u201c[^\u201c\u201d]++\u201d)[\s.!?,;:)]*+$")
_EXAMPLE_SENTENCE = re.compile(
    r"^\W*(?:e\.g\.|i\.e\.|(?:for example|for instance|example|bad|wrong|incorrect)\b)|^\W*[❌✗]",
    re.I,
)
_ASIDE = re.compile(r"\((?:e\.g\.|for example|for instance|such as|like|i\.e\.)[^()]*\)", re.I)
#: the other file's rule as people name it: "the root", "the repo-wide default"
_OTHER_RULE = (
    r"(?:root|parent|top-level|top level|global|outer|repo-wide|repository-wide|project-wide|"
    r"monorepo-wide|workspace-wide|org-wide|company-wide|root-level|repo-level|"
    r"repo's|repository's|project's)\b"
)
#: what an override names: another file's rule ("the root", "any global instruction",
#: "../AGENTS.md")
_OVERRIDDEN = (
    r"(?:(?:the|any|all|its|those|these|our|some|every)\s++)?(?:[\w'-]++\s++){0,2}?(?:"
    + _OTHER_RULE
    + r"|rules?\b|instructions?\b|guidance\b|conventions?\b|polic(?:y|ies)\b|guidelines?\b|"
    r"agents\b|claude\b|[`(]*+(?:\.\./|~/))"
)
#: words that acknowledge overriding another rule. "Override the method", "explicit flags take
#: precedence" and a bare "instead of npm" (which rejects a value) acknowledge nothing.
_OVERRIDE = re.compile(
    # "this overrides", "this package intentionally overrides", "(overrides `../AGENTS.md`)"
    r"\b(?:this|these|here)(?:\s++[\w'-]++){0,3}?\s++(?:overrid(?:e|es|ing)|"
    r"supersed(?:e|es|ing)|takes? precedence|deviat(?:e|es|ing)|diverg(?:e|es|ing)|"
    r"departs?)\b|\(\s*+(?:overrid(?:e|es)|supersedes)\b|"
    # "unlike the rest of the app", "unlike other services", "unlike elsewhere in the repo"
    r"\bunlike\s++(?:in\s++)?(?:the\s++)?(?:rest\s++of\s++(?:the\s++|our\s++)?\w|"
    r"(?:the\s++)?other\s++\w|elsewhere\b|everywhere\s++else\b)|"
    # "here we use Vitest, not Jest as elsewhere"
    r"\b(?:not|instead\s++of|rather\s++than)\s++(?:[^\s,.;:]++\s++){1,3}?(?:as|like)\s++"
    r"(?:used\s++)?elsewhere\b|"
    # "the root Compose rule does not apply here", "(the root default)"
    r"\b" + _OTHER_RULE + r"(?:\s++[\w'-]++){0,3}?\s++(?:does\s++not|doesn't|do\s++not|"
    r"don't)\s++apply\b|\(\s*+(?:the\s++)?" + _OTHER_RULE + r"(?:\s++\w++)?\s++default\s*+\)|"
    # "overrides the root rule", "takes precedence over any global instruction"
    r"\b(?:overrid(?:e|es|ing)|supersed(?:e|es|ing)|takes? precedence over|wins? over)\s++"
    + _OVERRIDDEN
    + r"|\boverridden\s++(?:here|by this|in this)\b|^\W*+overrides?\s*+:|"
    r"\bunlike (?:in )?(?:the |our )?" + _OTHER_RULE + "|"
    r"\b(?:instead of|rather than|not|ignore|ignoring|replaces?|replacing|departs? from|"
    r"deviates? from|diverges? from|differs? from|in place of) (?:what )?(?:the |our )?"
    + _OTHER_RULE
    + "|"
    r"\b(?:as|like) (?:at|in) the (?:root|parent|top level|top-level|rest of the repo)\b|"
    r"\bexception to (?:the |our )?" + _OTHER_RULE + "|"
    r"^\W*+exceptions?\s*+[:\u2014\u2013]",
    re.I,
)
#: a heading that declares its section an override: any mention ("Overrides", "Local
#: overrides") or an acknowledgment
_OVERRIDE_HEADING = re.compile(r"\boverrid(?:e|es|ing|den)\b", re.I)
#: an override sentence that speaks for its whole section ("This package overrides …", a
#: lead-in "Overrides:"); any other covers its own paragraph or list item
_SECTION_OVERRIDE = re.compile(
    r"^\W*+(?:(?:this|the|these)\s++(?:[\w-]++\s++)?(?:file|package|folder|directory|module|"
    r"service|app|crate|project|subproject|section|template|library|workspace|repo|"
    r"repository)s?\b|overrides?\s*+:)",
    re.I,
)
#: a value named right after these is rejected, not chosen ("… and drops Jest")
_REJECTED_BEFORE = re.compile(
    r"(?:\b" + cues.REJECTING + r"|\b(?:no|without|drops?|dropping|removes?|removing))"
    r"[\s`*_\"'\x1a]*+(?:the\s++)?$",
    re.I,
)
#: characters before a value searched for a rejecting word
_REJECT_REACH = 24
#: a value that names the rule an override sets aside ("the root's Pint rule", "its EF Core
#: policy")
_NAMES_RULE = re.compile(
    r"[\s`*_\"'\x1a-]*+(?:\w++[\s-]++)?(?:rules?|conventions?|polic(?:y|ies)|gates?|defaults?|"
    r"floors?|caps?|requirements?|settings?|guidelines?)\b",
    re.I,
)


def overriding_choices(readable: str, masked: str) -> tuple[Choice, ...]:
    """The values an override sentence states besides its acknowledgement ("This package
    overrides the root testing rule: it stays on Jest"; "This app overrides the root date
    rule and keeps moment.js"; "… the root coverage gate: the threshold here is 50%"; "here
    we install with npm, not pnpm as elsewhere"), read as preferences: every catalogue value
    outside the acknowledgement that no rejecting word comes right before, but for a value
    that names the overridden rule ("the root's Pint rule"). ``()`` when the sentence
    acknowledges no override."""
    acknowledged = _OVERRIDE.search(masked)
    if acknowledged is None:
        return ()
    out: list[Choice] = []
    # the whole sentence is read as one line, so that a number finds its subject in the
    # acknowledgement ("overrides the root coverage gate: the threshold here is 50%")
    flat, flat_masked = readable.replace("\n", " "), masked.replace("\n", " ")
    for found in vocabulary.current().find(flat, flat_masked):
        if acknowledged.start() <= found.start < acknowledged.end():
            continue
        if _NAMES_RULE.match(masked, found.end):
            continue
        if _REJECTED_BEFORE.search(masked[max(0, found.start - _REJECT_REACH) : found.start]):
            continue
        out.append(
            Choice(found.dimension.name, found.value, "prefer", found.start, found.end, found.group)
        )
    return tuple(out)


_FRONTMATTER = re.compile(r"\A---[ \t]*\n(?:.*\n)*?---[ \t]*(?:\n|\Z)")
# Each branch stops where a failed try at the next start would begin, so no start rescans the
# text after it: a code span opens on a whole run of at most 32 backticks and closes on a run of
# the same length (a run length that fails once fails for every later run, so at most 32 runs
# scan to the end); link text and tags cannot hold their own opener; a destination holds one
# level of balanced parentheses.
_INLINE = re.compile(
    r"(?P<code>(?P<ticks>(?<!`)`{1,32}+(?!`))(?P<codetext>.+?)(?<!`)(?P=ticks)(?!`))"
    r"|(?P<link>!?\[(?P<linktext>[^\[\]]*+)\]\((?:[^()]++|\([^()]*+\))*+\))"
    r"|(?P<html><[^<>\n]++>)"
    r"|(?P<escape>\\(?P<escaped>[^\w\s]))"
    r"|(?P<mark>\*\*|__|~~|\*|(?<!\w)_|_(?!\w))",
    re.S,
)
# A run of end marks is tried from its first mark only (each later start would rescan the run),
# and a blank line is found without letting \s* run over every following line break.
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]++[\"')\]]*+(?=\s++\S)|\n(?=[^\S\n]*+\n)")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp)|\.\.)\.?$", re.I)
#: characters before a full stop that can hold an abbreviation ("approx." is the longest)
_ABBREVIATION_WINDOW = 16
_POLARITY_WORDS = re.compile(
    r"^(?:(?:please|you|we|always|never|must|should|shall|make sure to|be sure to|ensure you|"
    r"do not|don'?t|must not|mustn'?t|should not|shouldn'?t|never ever|avoid|remember to|"
    r"need to|be careful to)\s+)+",
)
_NEVER = re.compile(
    r"^\W*(?:please\s+|you\s+|we\s+)?(?:don'?t|do not|never|must not|mustn'?t|should not|"
    r"shouldn'?t|avoid)\b(?!\s+(?:forget|hesitate)\b)",
    re.I,
)
_ALWAYS = re.compile(
    r"^\W*(?:please\s+)?(?:always|must|make sure|be sure|ensure|you must|you should)\b", re.I
)
_STOPWORDS = frozenset({"the", "a", "an", "any", "your", "all", "to", "of"})

# Block structure only: the extractor reads an inline token's raw ``content`` (``_plain``),
# never the inline children, and the inline pass was about half of the parse.
_PARSER = MarkdownIt("commonmark").enable("table").disable("inline")


@dataclass(frozen=True, slots=True)
class _Plain:
    """Inline Markdown reduced to text, with the content offset of every character."""

    text: str
    masked: str
    origin: tuple[int, ...]


def _plain(content: str) -> _Plain:
    text: list[str] = []
    masked: list[str] = []
    origin: list[int] = []

    def keep(start: int, end: int, *, code: bool = False) -> None:
        piece = content[start:end]
        text.append(piece)
        masked.append(CODE_MASK * len(piece) if code else piece)
        origin.extend(range(start, end))

    position = 0
    for match in _INLINE.finditer(content):
        keep(position, match.start())
        if match.group("code") is not None:
            keep(match.start("codetext"), match.end("codetext"), code=True)
        elif match.group("link") is not None:
            keep(match.start("linktext"), match.end("linktext"))
        elif match.group("escape") is not None:
            keep(match.start("escaped"), match.end("escaped"))
        position = match.end()
    keep(position, len(content))
    return _Plain("".join(text), "".join(masked), tuple(origin))


def _introduces_example(text: str) -> bool:
    """Whether ``text`` ends with a lead-in to an example ("For example:", "Bad:")."""
    stripped = text.rstrip()
    if not stripped.endswith(":"):
        return False
    if _SHORT_LEAD.match(stripped):
        return True
    colon = len(stripped) - 1
    previous = stripped.rfind(":", 0, colon)
    return _EXAMPLE_LEAD.search(stripped, previous + 1, colon) is not None


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip(" .!?:;,").lower()


def _action(normalized: str) -> str:
    stripped = _POLARITY_WORDS.sub("", normalized)
    return " ".join(w for w in re.findall(r"[\w'-]+", stripped) if w not in _STOPWORDS)


def _polarity(masked: str) -> Polarity:
    if _NEVER.match(masked):
        return "never"
    if _ALWAYS.match(masked):
        return "always"
    return "neutral"


def _blank_frontmatter(text: str) -> str:
    match = _FRONTMATTER.match(text)
    if match is None:
        return text
    blanked = re.sub(r"[^\n]", "", match.group(0))
    return blanked + text[match.end() :]


class _Locator:
    """Maps offsets in an inline token's content back to file positions."""

    def __init__(self, lines: list[str], first_line: int, content: str) -> None:
        self.starts: list[int] = []
        self.columns: list[int] = []
        self.first_line = first_line
        offset = 0
        for k, part in enumerate(content.split("\n")):
            index = first_line + k
            source = lines[index] if index < len(lines) else ""
            trimmed_source, trimmed_part = source.rstrip(), part.rstrip()
            if trimmed_part and trimmed_source.endswith(trimmed_part):
                column = len(trimmed_source) - len(trimmed_part)
            else:
                found = source.find(part.strip()) if part.strip() else -1
                column = max(found, 0) - (len(part) - len(part.lstrip()))
            self.starts.append(offset)
            self.columns.append(max(column, 0))
            offset += len(part) + 1

    def position(self, offset: int) -> tuple[int, int]:
        k = max(bisect_right(self.starts, offset) - 1, 0)
        return self.first_line + k, self.columns[k] + offset - self.starts[k]


def _sentences(plain: str, masked: str = "") -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(plain):
        # a full stop inside inline code (`pip install -e .`) ends no sentence
        if masked[match.start() : match.start() + 1] == CODE_MASK:
            continue
        # the abbreviation sits right before the full stop: look at a short window there, not
        # at the whole text since the sentence began (many abbreviations in a row)
        tail = max(start, match.start() - _ABBREVIATION_WINDOW)
        if not match.group(0).startswith("\n") and _ABBREVIATION.search(
            plain, tail, match.start() + 1
        ):
            continue
        spans.append((start, match.end()))
        start = match.end()
    spans.append((start, len(plain)))
    out: list[tuple[int, int]] = []
    for begin, end in spans:
        while begin < end and plain[begin].isspace():
            begin += 1
        while end > begin and plain[end - 1].isspace():
            end -= 1
        if begin < end:
            out.append((begin, end))
    return out


#: a short label before a dash: "Formatter — Ruff" is one labelled value, not two clauses
_DASH_LABEL = re.compile(r"^\W*+[A-Za-z][\w./-]*+(?:\s[\w./-]++){0,3}$")
#: a command alone before a dash: "`./mvnw verify` — compiles and runs the tests" is one
#: entry, the command and what it does
_DASH_COMMAND = re.compile(r"^[^\w\x1a]*+\x1a++\s*+$")


#: what joins two independent clauses: ", which is why", a semicolon, a spaced dash, and
#: ", so" before an imperative that follows from what came before ("analysts read these in
#: Looker, so write SQL keywords in uppercase here") or before a statement of its own
_CLAUSE_BREAK = re.compile(
    # ", which is why we word …": what follows is the rule the reason before it explains
    r",\s++(?:which|that)\s++is\s++why\s++|"
    r";\s+|\s[—–]\s|\s--\s|,\s++so\s++(?=(?:always\s++|never\s++|please\s++)?"
    r"(?:use|write|run|keep|put|add|set|prefer|avoid|do\s++not|don'?t|call|make|pin|name|"
    r"format|send|store|log|test|build|install|deploy)\b|"
    # or a statement of its own about a thing it names ("…, so the module's minSdk is 24");
    # not "so this …", which speaks of what the clause before named
    r"(?:the|our|each|every|all)\s)",
    re.IGNORECASE,
)


def _clauses(text: str, masked: str = "") -> list[tuple[int, int]]:
    """Split a sentence at semicolons and dashes that join independent clauses (outside inline
    code), and at ", so" before an imperative or a statement of its own; a dash after
    a short label without code ("Formatter — Ruff") or after a command alone ("`make test` —
    runs the suite") is a label's, not a clause break."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(text):
        if CODE_MASK in masked[match.start() : match.end()]:
            continue  # "`-- migrate:up`", "`a; b`": a mark inside inline code breaks no clause
        if (
            start == 0
            and match.group(0).strip() != ";"
            and (
                (
                    _DASH_LABEL.match(text, 0, match.start())
                    and CODE_MASK not in masked[: match.start()]
                )
                or _DASH_COMMAND.match(masked, 0, match.start())
            )
        ):
            continue
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def _blank_asides(plain: _Plain) -> tuple[str, str]:
    """The readable and masked text with every "(e.g. …)" aside replaced by spaces."""
    readable: list[str] = []
    masked: list[str] = []
    position = 0
    for aside in _ASIDE.finditer(plain.masked):
        blank = " " * (aside.end() - aside.start())
        readable += (plain.text[position : aside.start()], blank)
        masked += (plain.masked[position : aside.start()], blank)
        position = aside.end()
    readable.append(plain.text[position:])
    masked.append(plain.masked[position:])
    return "".join(readable), "".join(masked)


#: a heading short enough to be a label ("Tests", "Package manager", "Formatting")
_HEADING_LABEL_MAX = 30
#: the opening of a verbless fragment: a value of one or two words (or a code span) and then
#: its end, a list, a detail ("Jest with …", "Vitest; `pnpm test`.", "Mocha + Chai"); a
#: value followed by a colon is the label of a description of it ("tsup: two entry points"
#: under "## Build" says how tsup is set up, it does not choose it)
_FRAGMENT_HEAD = re.compile(
    r"(?P<lead>[^\w\x1a]*+)(?:\x1a++|[\w.+-]++)(?:[ \t]++[\w.+-]++)?"
    r"(?=[ \t]*+(?:$|[,(+.;\n\u2014\u2013]|(?:with|for|via|on)\b))",
    re.I,
)

_SCOPE_HEADER = re.compile(
    r"^(?:packages?|folders?|dir(?:ector(?:y|ies))?|paths?|locations?|languages?|lang|"
    r"applies to|applies|scope|workspaces?|modules?|crates?|apps?|projects?|services?|"
    r"components?|subprojects?|file ?types?|files|globs?|where)$",
    re.I,
)
_KEY_HEADER = re.compile(
    r"^(?:key|setting|settings|option|options|name|item|topic|what|area|concern|category|"
    r"aspect|parameter|property|field|purpose|task|dimension|config|configuration|"
    r"convention|rule|limit|tool|tooling|style|step|action|checks?|gates?)$",
    re.I,
)
_VALUE_HEADER = re.compile(
    r"^(?:value|values|choice|tool|tools|standard|default|setting|version|we use|"
    r"answer|decision|policy|convention|limit|requirement|required|current|preferred|"
    r"what we use|stack|rule|providers?|vendors?|library|technology|platform|product|"
    r"commands?|how|how to run|invocation|run)$",
    re.I,
)


#: the header of a column that says what the tool of its row is for
_PURPOSE_HEADER = re.compile(
    r"^(?:purpose|used for|use(?:d)? it for|for|role|job|what for|what it does|does|"
    r"responsibility|usage|use case|area)$",
    re.I,
)


def _header_word(cell: str) -> str:
    return re.sub(r"\s+", " ", cell).strip(" *_`:").lower()


def _table_layout(
    header: list[str],
) -> tuple[int | None, list[tuple[int | None, int]]] | None:
    """How a table states settings: its scope column (if any) and, per instruction of a row,
    the column holding the label (``None``: the value column's header is the label) and the
    column holding the value; ``None`` for tables that state no settings."""
    words = [_header_word(cell) for cell in header]
    scope = next((i for i, w in enumerate(words) if _SCOPE_HEADER.match(w)), None)
    rest = [i for i in range(len(words)) if i != scope]
    if len(rest) >= 2 and _KEY_HEADER.match(words[rest[0]]) and _VALUE_HEADER.match(words[rest[1]]):
        return scope, [(rest[0], rest[1])]
    if (
        len(rest) >= 2
        and _VALUE_HEADER.match(words[rest[0]])
        and _PURPOSE_HEADER.match(words[rest[1]])
    ):
        # "| Tool | Purpose |": what a row's tool is for labels it ("lint and format: Ruff")
        return scope, [(rest[1], rest[0])]
    if scope is not None and rest:
        return scope, [(None, i) for i in rest]
    return None


def _cell_spans(line: str) -> list[tuple[int, int]]:
    """The columns of each cell's text in a table row (pipes escaped by a backslash stay in
    their cell)."""
    bounds = [m.start() for m in re.finditer(r"(?<!\\)\|", line)]
    stripped = line.strip()
    if not stripped.startswith("|"):
        bounds.insert(0, -1)
    if not stripped.endswith("|") or stripped.endswith("\\|"):
        bounds.append(len(line))
    spans: list[tuple[int, int]] = []
    for left, right in pairwise(bounds):
        start, end = left + 1, right
        while start < end and line[start].isspace():
            start += 1
        while end > start and line[end - 1].isspace():
            end -= 1
        spans.append((start, end))
    return spans


def _is_sample(sentence: str, masked: str) -> bool:
    """Whether a sentence is example material by its form: an "e.g." / "Bad:" / "❌" start,
    the good half of a good/bad pair that shows code or a quote, or a sentence in quotes."""
    return bool(
        _EXAMPLE_SENTENCE.match(sentence)
        or _GOOD_SAMPLE.match(masked)
        or _QUOTED_SENTENCE.match(sentence)
    )


_LIST_OPEN = frozenset({"bullet_list_open", "ordered_list_open"})
_LIST_CLOSE = frozenset({"bullet_list_close", "ordered_list_close"})


class OutOfTime(Exception):
    """Reading a file's instructions passed its deadline."""


class _Extractor:
    def __init__(self, path: str, text: str, deadline: float | None = None) -> None:
        self.path = path
        self.deadline = deadline
        self.source = _blank_frontmatter(text)
        self.lines = self.source.split("\n")
        self.out: list[Instruction] = []
        self.headings: list[tuple[int, str]] = []
        self.section_override = False
        #: an override declared earlier in the paragraph or list item being read
        self.block_override = False
        self.skip_next_block = False
        #: the lead of a fence that would follow now (its block level, its sentence, its line
        #: — a line of an earlier chunk counts back from this chunk's first line — and
        #: whether it is a heading), see :mod:`pi_lsp.lint.fences`; ``None``: no fence is
        #: introduced
        self.fence_lead: tuple[int, str, int, bool] | None = None
        #: the text read last ended inside a top-level list, on a line of it (a chunk cut
        #: between two items, see :class:`~pi_lsp.lint.blocks._TightList`): a list that opens
        #: the next text is the same list going on; ``skipping_list``: that list was being
        #: skipped as example material
        self.list_goes_on = False
        self.skipping_list = False
        self.tokens: list[Token] = []
        #: sentence readings kept across chunks and edits (``None``: none kept)
        self.sentences: SentenceMemo | None = None

    def run(self) -> list[Instruction]:
        tokens = self.tokens = _PARSER.parse(self.source)
        skip_level: int | None = None
        skip_next_block = self.skip_next_block
        skipped_until = -1  # the index of the token that closed the latest skipped block
        in_table = 0
        index = 0
        if self.list_goes_on and tokens and tokens[0].type in _LIST_OPEN:
            # the list of the text before goes on: its opening is no new block
            if self.skipping_list:
                skip_level = tokens[0].level
            index = 1
        while index < len(tokens):
            self._check_time()
            token = tokens[index]
            if token.type == "heading_open":
                self._heading(token, tokens[index + 1])
                self.fence_lead = self._heading_lead(token, tokens[index + 1])
                skip_level = None
                skip_next_block = False
                index += 3
                continue
            if token.type in ("table_open",):
                in_table += 1
            elif token.type == "table_close":
                in_table -= 1
            if skip_level is not None:
                if token.nesting == -1 and token.level == skip_level:
                    skip_level = None
                    skipped_until = index
                index += 1
                continue
            is_block_open = token.nesting == 1 and token.type in (
                "paragraph_open",
                "bullet_list_open",
                "ordered_list_open",
                "blockquote_open",
                "table_open",
            )
            if skip_next_block and (is_block_open or token.type in ("fence", "code_block")):
                skip_next_block = False
                if token.nesting == 1:
                    skip_level = token.level
                index += 1
                continue
            if token.type == "fence" and not in_table and not self._in_example_section():
                self._fence(token)
            if token.nesting != -1:
                self.fence_lead = None  # any block but a close stands between lead and fence
            if token.type == "table_open" and not self._in_example_section():
                self._table(tokens, index)
            if token.type == "inline" and not in_table and not self._in_example_section():
                lead = self._inline(token)
                if lead:
                    skip_next_block = True
            index += 1
        self.skip_next_block = skip_next_block
        last = tokens[-1] if tokens else None
        self.list_goes_on = (
            last is not None
            and last.level == 0
            and last.type in _LIST_CLOSE
            and bool(self.lines[-1].strip(" \t\r"))
        )
        self.skipping_list = self.list_goes_on and skipped_until == len(tokens) - 1
        if self.fence_lead is not None:  # the next chunk counts its lines from 0
            level, sentence, line, heading = self.fence_lead
            self.fence_lead = (level, sentence, line - len(self.lines), heading)
        return self.out

    def _check_time(self) -> None:
        if self.deadline is not None and time.thread_time() > self.deadline:
            raise OutOfTime(self.path)

    def _heading(self, token: Token, inline: Token) -> None:
        level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, inline.content))
        # a heading that declares an override covers its section, subsections included
        self.section_override = any(
            _OVERRIDE_HEADING.search(title) or _OVERRIDE.search(title) for _, title in self.headings
        )

    def _heading_lead(self, token: Token, inline: Token) -> tuple[int, str, int, bool] | None:
        """The heading as the lead of a fence right under it, when its section is how to
        work on the project (:func:`~pi_lsp.lint.fences.heading_leads_commands`)."""
        if token.map is None or not heading_leads_commands(inline.content):
            return None
        return (token.level, inline.content, token.map[0], True)

    def _in_example_section(self) -> bool:
        """Whether the current section is example material: a heading that names examples,
        samples or templates, unless it is the file's title or names them as a place
        ("Examples package", "`examples/`"), whose rules are real; or a section its heading
        marks as no longer followed (:data:`_NOT_FOLLOWED_HEADING`)."""
        return any(_sets_aside(level, title) for level, title in self.headings)

    def _table(self, tokens: list[Token], index: int) -> None:
        """Add one instruction per value cell of a settings table (a key column and a value
        column) or of a table with a scope column (the row's scope, see
        :attr:`Instruction.scope_hint`)."""
        rows: list[tuple[int, list[str]]] = []
        for position in range(index + 1, len(tokens)):
            token = tokens[position]
            if token.type == "table_close":
                break
            if token.type == "tr_open" and token.map is not None:
                rows.append((token.map[0], []))
            elif token.type == "inline" and rows:
                rows[-1][1].append(token.content)
        if len(rows) < 2:
            return
        layout = _table_layout([_plain(cell).text for cell in rows[0][1]])
        if layout is None:
            return
        scope, pairs = layout
        for line, cells in rows[1:]:
            self._check_time()
            if line < len(self.lines):
                self._table_row(line, cells, rows[0][1], scope, pairs)

    def _table_row(
        self,
        line: int,
        cells: list[str],
        header: list[str],
        scope: int | None,
        pairs: list[tuple[int | None, int]],
    ) -> None:
        source = self.lines[line]
        spans = _cell_spans(source)
        if len(spans) != len(cells):
            return
        scope_hint = _plain(cells[scope]).text.strip() if scope is not None else ""
        for key, value in pairs:
            label = _plain(cells[key] if key is not None else header[value]).text.strip()
            body = _plain(cells[value])
            if not label or not body.text.strip():
                continue
            clause = f"{label}: {body.text}"
            masked = f"{label}: {body.masked}"
            choices = tuple(read_choices(clause, masked))
            label_span = spans[key if key is not None else value]
            start = min(label_span[0], spans[value][0])
            end = max(label_span[1], spans[value][1])
            normalized = _normalize(clause)
            self.out.append(
                Instruction(
                    path=self.path,
                    where=SourceRange(self.path, line, start, line, end),
                    text=source[start:end],
                    normalized=normalized,
                    action=_action(normalized),
                    polarity=_polarity(body.masked),
                    directive=is_directive(body.masked) or bool(choices),
                    choices=choices,
                    heading=tuple(title for _, title in self.headings),
                    override=self.section_override or bool(_OVERRIDE.search(body.masked)),
                    scope_hint=scope_hint,
                    scope=self._row_scope(clause, scope_hint),
                )
            )

    def _row_scope(self, clause: str, scope_hint: str) -> Scope:
        """A table row's scope: the sentence's own, narrowed by its scope column unless that
        column covers the whole repository."""
        heading = tuple(title for _, title in self.headings)
        scope = scope_for(self.path, heading, clause, None)
        return scope if covers_whole_repo(scope_hint) else scope.with_hint(scope_hint)

    def _fence(self, token: Token) -> None:
        """Add the commands of a shell fence that directly follows its lead (an instruction
        ending with a colon, at the same block level) as one instruction that prefers the
        tools they name (:mod:`pi_lsp.lint.fences`)."""
        lead = self.fence_lead
        if lead is None or token.map is None or not is_shell_fence(token.info):
            return
        level, sentence, lead_line, under_heading = lead
        if level != token.level:
            return
        if under_heading:  # the commands are the fence's own: the range starts at them
            lead_line = token.map[0] + 1
        choices = tuple(fence_choices(token.content))
        frames = command_frames(line for _, line in command_lines(token.content))
        if not choices and not frames:
            return
        text = token.content.rstrip("\n")
        last = token.map[0] + 1 + text.count("\n")
        if last >= len(self.lines):
            return
        normalized = _normalize(text)
        heading = tuple(title for _, title in self.headings)
        self.out.append(
            Instruction(
                path=self.path,
                # the commands are the lead's: the range runs from its line to the fence's end
                where=SourceRange(self.path, lead_line, 0, last, len(self.lines[last])),
                text=text,
                normalized=normalized,
                action=_action(normalized),
                polarity="neutral",
                directive=True,
                choices=choices,
                heading=heading,
                override=self.section_override,
                scope=scope_for(self.path, heading, sentence, None),
                frames=frames,
            )
        )

    def _inline(self, token: Token) -> bool:
        """Add the sentences of one inline token; True when it introduces an example."""
        if token.map is None:
            return False
        plain = _plain(token.content)
        if _introduces_example(plain.text):
            return True
        locator = _Locator(self.lines, token.map[0], token.content)
        readable, masked = _blank_asides(plain)
        section_override = self.section_override
        self.block_override = False
        last: tuple[int, int] | None = None
        for begin, end in _sentences(plain.text, plain.masked):
            self._check_time()
            self._sentence(plain, readable, masked, (begin, end), locator, token.content)
            last = (begin, end)
        if last is not None and leads_commands(masked[last[0] : last[1]]):
            lead = readable[last[0] : last[1]]
            if opening_scope(lead, os.path.dirname(self.path)) is None:
                line, _ = locator.position(plain.origin[last[0]])
                self.fence_lead = (token.level - 1, lead, line, False)
        if token.level > 1:  # an override inside a list item covers that item only
            self.section_override = section_override
        return False

    def _sentence(
        self,
        plain: _Plain,
        readable_all: str,
        masked_all: str,
        span: tuple[int, int],
        locator: _Locator,
        content: str,
    ) -> None:
        begin, end = span
        sentence = plain.text[begin:end]
        readable = readable_all[begin:end]
        masked = masked_all[begin:end]
        heading = tuple(title for _, title in self.headings)
        key = (self.path, heading, sentence, readable, masked)
        memo = self.sentences
        reading = memo.get(key) if memo is not None else None
        if reading is None:
            reading = _read_sentence(self.path, heading, sentence, readable, masked)
            if memo is not None:
                memo.put(key, reading)
        if reading is None or reading.sample:
            return
        if reading.declares == "section":
            self.section_override = True
        elif reading.declares == "block":
            self.block_override = True
        content_start = plain.origin[begin]
        content_end = plain.origin[end - 1] + 1
        while content_start > 0 and content[content_start - 1] in "`*_~[":
            content_start -= 1
        while content_end < len(content) and content[content_end] in "`*_~":
            content_end += 1
        line, column = locator.position(content_start)
        end_line, end_column = locator.position(content_end)
        self.out.append(
            Instruction(
                path=self.path,
                where=SourceRange(self.path, line, column, end_line, end_column),
                text=content[content_start:content_end],
                normalized=reading.normalized,
                action=reading.action,
                polarity=reading.polarity,
                directive=reading.directive,
                choices=reading.choices,
                heading=heading,
                override=self.section_override or self.block_override,
                scope=reading.scope,
                frames=reading.frames,
                overriding=reading.overriding,
            )
        )


@dataclass(frozen=True, slots=True)
class SentenceReading:
    """What one sentence says, whatever its place: read once per file path, heading path and
    text (:class:`SentenceMemo`), so that a chunk read again after an edit reads again only
    the sentences the edit changed. ``sample``: example material, not an instruction;
    ``declares``: the override it declares for its section (``"section"``), for its list item
    or paragraph (``"block"``), or none (``""``)."""

    sample: bool
    declares: Literal["", "section", "block"]
    normalized: str = ""
    action: str = ""
    polarity: Polarity = "neutral"
    directive: bool = False
    choices: tuple[Choice, ...] = ()
    scope: Scope = EVERYWHERE
    frames: tuple[Frame, ...] = ()
    overriding: tuple[Choice, ...] = ()


_SAMPLE = SentenceReading(sample=True, declares="")


def _read_sentence(
    path: str, heading: tuple[str, ...], sentence: str, readable: str, masked: str
) -> SentenceReading:
    """The reading of one sentence of ``path`` under ``heading`` (titles, outermost first):
    a function of these alone (and of the catalogue in use), so it can be kept."""
    if _is_sample(sentence, masked):
        return _SAMPLE
    declares: Literal["", "section", "block"] = ""
    if _OVERRIDE.search(masked):
        if _SECTION_OVERRIDE.match(masked) or masked.rstrip().endswith(":"):
            declares = "section"
        else:
            declares = "block"
    choices: list[Choice] = []
    opening: tuple[frozenset[str], str] | None = None
    folder = os.path.dirname(path)
    for c_begin, c_end in _clauses(readable, masked):
        clause = readable[c_begin:c_end]
        # a clause opened by a scope ("For the docs site, use npm") makes its choices in
        # that scope: they are read from the rest of the clause, the scope goes in
        # ``scope``; the first scoped clause of a sentence gives the sentence's scope
        scoped = opening_scope(clause, folder)
        body = 0
        if scoped is not None:
            languages, condition, body = scoped
            limits = bool(languages or condition)
            if limits and (opening is None or (condition and not opening[1])):
                opening = (languages, condition)
        for choice in read_choices(
            clause[body:], masked[c_begin + body : c_end], folder, " / ".join(heading[-2:])
        ):
            shift = c_begin + body
            choices.append(replace(choice, start=choice.start + shift, end=choice.end + shift))
    if not choices:
        choices = _under_heading(heading, readable, masked)
    choices = [
        replace(c, purpose=purpose_of(readable, c.start, c.end, heading, c.dimension))
        for c in choices
    ]
    overriding = () if choices else overriding_choices(readable, masked)
    normalized = _normalize(sentence)
    return SentenceReading(
        sample=False,
        declares=declares,
        normalized=normalized,
        action=_action(normalized),
        polarity=_polarity(masked),
        # a tool a description merely mentions (a weak choice) makes no instruction of it
        directive=is_directive(masked) or any(not c.weak for c in choices),
        choices=tuple(choices),
        scope=scope_for(path, heading, readable, opening, _groups(choices, sentence)),
        frames=frames_of(readable, masked),
        overriding=overriding,
    )


def _under_heading(heading: tuple[str, ...], readable: str, masked: str) -> list[Choice]:
    """The value a fragment names under a heading that names its dimension: under
    "## Tests", "Jest with `jest-chrome` for the mocks." reads as "Tests: Jest"."""
    if not heading:
        return []
    title = _plain(heading[-1]).text.strip()
    head = _FRAGMENT_HEAD.match(masked)
    if not title or len(title) > _HEADING_LABEL_MAX or head is None:
        return []
    # only the opening words are read: the value must be the fragment's first word(s)
    prefix = f"{title}: "
    clause, masked_clause = readable[: head.end()], masked[: head.end()]
    found: list[Choice] = []
    for choice in read_choices(prefix + clause, prefix + masked_clause):
        start, end = choice.start - len(prefix), choice.end - len(prefix)
        if start == head.end("lead"):
            found.append(replace(choice, stance="prefer", start=start, end=end))
    return found


_SentenceKey = tuple[str, tuple[str, ...], str, str, str]


class SentenceMemo:
    """:class:`SentenceReading` by (path, heading titles, sentence, readable, masked text),
    the most recent ``size``; one per catalogue (a reading depends on the catalogue in use),
    held by the :class:`BlockMemo` of that catalogue."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._read: OrderedDict[_SentenceKey, SentenceReading] = OrderedDict()
        self._lock = threading.Lock()
        #: sentences read (not found) since the memo was made
        self.misses = 0

    def get(self, key: _SentenceKey) -> SentenceReading | None:
        with self._lock:
            known = self._read.get(key)
            if known is not None:
                self._read.move_to_end(key)
            return known

    def put(self, key: _SentenceKey, reading: SentenceReading) -> None:
        with self._lock:
            self.misses += 1
            self._read[key] = reading
            if len(self._read) > self._size:
                self._read.popitem(last=False)


def _groups(choices: list[Choice], sentence: str) -> list[str]:
    """The ecosystem groups of the values a sentence that makes choices names, chosen or not
    ("Prettier with `printWidth: 80`" chooses a line length and names a JavaScript tool)."""
    if not choices:
        return []
    return [c.group for c in choices] + [f.group for f in vocabulary.current().find(sentence)]


#: attributes of :class:`_Extractor` that belong to the text being read, not to the state
#: that one block hands to the next (heading path, section override, a pending example skip,
#: and whatever reading state is added later: every other attribute counts as state)
_PER_TEXT = frozenset({"path", "deadline", "source", "lines", "out", "tokens", "sentences"})


class _FrozenList(tuple):  # type: ignore[type-arg]
    """A list attribute of the reading state, as part of a cache key."""


class _FrozenDict(tuple):  # type: ignore[type-arg]
    """A dict attribute of the reading state, as part of a cache key."""


class _FrozenSet(frozenset):  # type: ignore[type-arg]
    """A set attribute of the reading state, as part of a cache key."""


_State = tuple[tuple[str, object], ...]


def _freeze(value: object) -> object:
    if isinstance(value, list):
        return _FrozenList(value)
    if isinstance(value, dict):
        return _FrozenDict(value.items())
    if isinstance(value, set):
        return _FrozenSet(value)
    return value


def _thaw(value: object) -> object:
    if isinstance(value, _FrozenList):
        return list(value)
    if isinstance(value, _FrozenDict):
        return dict(value)
    if isinstance(value, _FrozenSet):
        return set(value)
    return value


def _state_of(extractor: _Extractor) -> _State:
    return tuple((k, _freeze(v)) for k, v in vars(extractor).items() if k not in _PER_TEXT)


def _restore(extractor: _Extractor, state: _State) -> None:
    for name, value in state:
        setattr(extractor, name, _thaw(value))


@dataclass(frozen=True, slots=True)
class _BlockRead:
    """The instructions of one chunk read alone, placed as if it started at ``first_line``,
    and the reading state after it; ``open``: its last top-level block (a fence, an HTML
    comment) is not closed within it, so it cannot stand alone unless it ends the file."""

    first_line: int
    instructions: tuple[Instruction, ...]
    after: _State
    open: bool


@dataclass(frozen=True, slots=True)
class _Unit:
    """A chunk as the latest reading of its file cut it: ``length`` characters (the next
    chunk starts after them and a line break) and ``lines`` lines from ``read.first_line`` on,
    read with the reading state ``state``. No character offset is kept, so an edit that adds
    no line takes over the chunks after it as they are."""

    length: int
    lines: int
    state: _State
    read: _BlockRead


@dataclass(frozen=True, slots=True)
class _FileBlocks:
    """The latest reading of a file, chunk by chunk."""

    text: str
    units: tuple[_Unit, ...]


class BlockMemo:
    """Instructions read per chunk of top-level Markdown blocks, so that an edit reads again
    only the chunk it changed: by file path, chunk text and the reading state entering the
    chunk (heading path, section override, a pending example skip), the most recent ``size``
    chunks; and the latest reading of each of the last ``files`` files read, so that the
    chunks before and after an edit are taken over whole, moved by the lines it added; and
    the readings of the last ``sentences`` sentences (:class:`SentenceMemo`), so that a chunk
    read again reads again only its sentences that changed."""

    def __init__(self, size: int, files: int = 256, sentences: int = 16_384) -> None:
        self._size = size
        self.sentences = SentenceMemo(sentences)
        self._files_size = files
        self._read: OrderedDict[tuple[str, _State, str], _BlockRead] = OrderedDict()
        self._files: OrderedDict[str, _FileBlocks] = OrderedDict()
        self._lock = threading.Lock()
        #: chunks read (found neither way) since the memo was made
        self.misses = 0

    def get(self, key: tuple[str, _State, str]) -> _BlockRead | None:
        with self._lock:
            known = self._read.get(key)
            if known is not None:
                self._read.move_to_end(key)
            return known

    def put(self, key: tuple[str, _State, str], read: _BlockRead) -> None:
        with self._lock:
            self.misses += 1
            self._read[key] = read
            self._read.move_to_end(key)
            if len(self._read) > self._size:
                self._read.popitem(last=False)

    def latest(self, path: str) -> _FileBlocks | None:
        with self._lock:
            return self._files.get(path)

    def keep(self, path: str, blocks: _FileBlocks) -> None:
        with self._lock:
            self._files[path] = blocks
            self._files.move_to_end(path)
            if len(self._files) > self._files_size:
                self._files.popitem(last=False)


def _ends_open(tokens: list[Token], lines: list[str]) -> bool:
    """Whether the last top-level block of ``tokens`` is a fence or an HTML block (of a kind
    that a blank line does not end) that runs to the end of the text unclosed."""
    last = next((t for t in reversed(tokens) if t.level == 0 and t.map is not None), None)
    if last is None or last.map is None:
        return False
    start, end = last.map
    if last.type == "fence":
        if end - 1 <= start or end > len(lines):
            return True
        return not closes_fence(lines[end - 1], last.markup[0], len(last.markup))
    if last.type == "html_block":
        terminator = html_terminator(lines[start]) if start < len(lines) else None
        if terminator is None or end - 1 <= start:
            return False
        return end > len(lines) or terminator not in lines[end - 1]
    return False


def _read_chunk(extractor: _Extractor, chunk: Chunk, state: _State) -> _BlockRead:
    _restore(extractor, state)
    extractor.source = chunk.text
    extractor.lines = chunk.text.split("\n")
    extractor.out = []
    extractor.run()
    instructions = tuple(_shifted(i, chunk.first_line) for i in extractor.out)
    is_open = _ends_open(extractor.tokens, extractor.lines)
    return _BlockRead(chunk.first_line, instructions, _state_of(extractor), is_open)


_LONE_CR = re.compile(r"\r(?!\n)")
_FIELDS = tuple(f.name for f in fields(Instruction))
_FIELD_VALUES = attrgetter(*_FIELDS)
_WHERE = _FIELDS.index("where")


def _shifted(instruction: Instruction, lines: int) -> Instruction:
    """``instruction`` ``lines`` further down (a copy made field by field: ``replace`` costs
    twice as much, and an edit that adds a line moves every instruction after it)."""
    if lines == 0:
        return instruction
    where = instruction.where
    values = list(_FIELD_VALUES(instruction))
    values[_WHERE] = SourceRange(  # not ``replace``: it costs as much as the rest of the copy
        where.path,
        where.start_line + lines,
        where.start_column,
        where.end_line + lines,
        where.end_column,
    )
    return Instruction(*values)


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (compared a slice at a
    time: a character loop in Python would cost more than the rest of an edit)."""
    n, i, step = min(len(a), len(b)), 0, 4096
    while i < n and a[i : i + step] == b[i : i + step]:
        i += step
    if i >= n:
        return n
    low, high = i, min(i + step, n)  # a[:low] == b[:low]; they differ before ``high``
    while low < high:
        middle = (low + high) // 2
        if a[low : middle + 1] == b[low : middle + 1]:
            low = middle + 1
        else:
            high = middle
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix of ``a`` and ``b``, at most ``limit``."""
    la, lb, i, step = len(a), len(b), 0, 4096
    while i < limit:
        j = min(i + step, limit)
        if a[la - j : la - i] != b[lb - j : lb - i]:
            break
        i = j
    else:
        return limit
    low, high = i, min(i + step, limit)  # the last ``low`` agree, the last ``high`` do not
    while low < high - 1:
        middle = (low + high) // 2
        if a[la - middle : la - low] == b[lb - middle : lb - low]:
            low = middle
        else:
            high = middle
    return low


#: characters after the end of a chunk that decide whether a cut is made there (the blank
#: line's break and the start of the next line, :func:`~pi_lsp.lint.blocks.chunk_starts`)
_DECIDED = 26


def _moved(unit: _Unit, lines: int) -> _Unit:
    read = unit.read
    moved = tuple(_shifted(i, lines) for i in read.instructions)
    read = _BlockRead(read.first_line + lines, moved, read.after, read.open)
    return _Unit(unit.length, unit.lines, unit.state, read)


def _read_blocks(extractor: _Extractor, memo: BlockMemo | None) -> list[Instruction]:
    """Read ``extractor.source`` chunk by chunk. With ``memo``: the chunks before the first
    changed character since the file's latest reading, and those after the last one once a
    cut and the reading state agree again, are taken over; each chunk between them is looked
    up by content and read only when it is new."""
    text, path = extractor.source, extractor.path
    old = memo.latest(path) if memo is not None else None
    if memo is not None:
        extractor.sentences = memo.sentences
    units: list[_Unit] = []
    start = first_line = 0
    #: the reading state entering the chunk (the extractor's own attributes hold it only
    #: while a chunk is read: a chunk found in the memo hands its state on as it is)
    state = _state_of(extractor)
    later: dict[int, int] = {}  # old start of a chunk in the unchanged end -> its index
    same_from = len(text) + 1
    characters = 0
    if old is not None:
        prefix = _common_prefix(old.text, text)
        limit = min(len(old.text), len(text)) - prefix
        suffix = _common_suffix(old.text, text, limit)
        for unit in old.units:
            if start + unit.length + _DECIDED >= prefix:
                break
            units.append(unit)
            start += unit.length + 1
        if units:
            first_line = units[-1].read.first_line + units[-1].lines
            state = units[-1].read.after
        characters = len(text) - len(old.text)
        same_from = len(text) - suffix
        old_from = len(old.text) - suffix
        at = len(old.text) + 1  # where the chunk after the last one would start
        for index in range(len(old.units) - 1, -1, -1):
            at -= old.units[index].length + 1
            if at < old_from:
                break
            later[at] = index
    chunk_start = start
    merged_from: int | None = None  # where a chunk left open (merged with the next) starts
    for here in itertools.chain(chunk_starts(text, start), (len(text) + 1,)):
        extractor._check_time()
        if old is not None and merged_from is None and chunk_start >= same_from:
            k = later.get(chunk_start - characters)
            if k is not None and old.units[k].state == state:
                lines = first_line - old.units[k].read.first_line
                tail = old.units[k:]
                units.extend(tail if lines == 0 else (_moved(u, lines) for u in tail))
                break
        unit_start = chunk_start if merged_from is None else merged_from
        piece = text[unit_start : here - 1]
        chunk_start = here
        count = piece.count("\n") + 1
        key = (path, state, piece)
        read = memo.get(key) if memo is not None else None
        if read is None:
            read = _read_chunk(extractor, Chunk(first_line, count, piece), state)
            if memo is not None:
                memo.put(key, read)
        if read.open and here <= len(text):
            merged_from = unit_start  # read again with the chunk after it
            continue
        merged_from = None
        if read.first_line != first_line:
            moved = tuple(_shifted(i, first_line - read.first_line) for i in read.instructions)
            read = _BlockRead(first_line, moved, read.after, read.open)
        units.append(_Unit(here - 1 - unit_start, count, state, read))
        state = read.after
        first_line += count
    if memo is not None:
        memo.keep(path, _FileBlocks(text, tuple(units)))
    out: list[Instruction] = []
    for unit in units:
        out.extend(unit.read.instructions)
    return out


def extract_instructions(
    path: str,
    text: str,
    seconds: float | None = None,
    memo: BlockMemo | None = None,
    *,
    whole: bool = False,
) -> list[Instruction]:
    """The instructions of one context file, in file order.

    The file is read chunk by chunk (:func:`~pi_lsp.lint.blocks.split_blocks`: runs of whole
    top-level blocks), each chunk parsed alone with the reading state the chunks before it
    left; with ``memo``, a chunk read before with the same text and state is not read again.
    ``whole``: parse the file as one document (the reference the chunks must agree with).

    With ``seconds``, reading stops with :class:`OutOfTime` once it has taken longer, counted
    in the CPU time of the calling thread: time the thread spends waiting (for the processor,
    for the interpreter lock held by another thread) does not count.
    """
    deadline = None if seconds is None else time.thread_time() + seconds
    extractor = _Extractor(path, text, deadline)
    if whole or _LONE_CR.search(text) is not None:
        # markdown-it breaks lines at a lone carriage return too: a file that holds one is
        # read whole, its lines numbered as they always were
        return extractor.run()
    return _read_blocks(extractor, memo)
