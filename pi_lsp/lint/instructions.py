"""Instructions extracted from a context file's Markdown structure.

An instruction is one sentence of a paragraph, a bullet or a numbered item (markdown-it-py
finds the blocks). Left out, because the model does not read them as rules for itself:

* fenced and indented code blocks, HTML blocks, tables, headings;
* example material: every block under a heading that names examples ("Examples",
  "Example output", "Sample …"), the block that follows a lead-in ending with ":" that says
  "for example" / "e.g." / "for instance" / "such as" / "like this", sentences starting with
  "e.g." / "For example" / "Bad:" / "Wrong:", and parenthetical "(e.g. …)" asides;
* a YAML frontmatter block at the top of the file.

Inline code stays in the text (``Run `pnpm test` `` names a package manager), but words inside
it never count as negations. Positions are 0-based lines and columns in code points of the
file as given, the range covering the sentence's text.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from pi_lsp.lint.choices import CODE_MASK, Choice, is_directive, read_choices
from pi_lsp.lint.frames import Frame, frames_of
from pi_lsp.resources.model import SourceRange

Polarity = Literal["always", "never", "neutral"]


@dataclass(frozen=True, slots=True)
class Instruction:
    """One sentence the agent will read as a rule.

    ``text`` is the sentence as it appears in the file (Markdown included, line breaks kept);
    ``normalized`` is its lowercase plain text with spacing collapsed and closing punctuation
    dropped; ``action`` is ``normalized`` without the polarity words, for always/never
    comparison; ``override`` says the sentence or its section declares that it overrides
    another rule; ``frames`` are its action frames (:mod:`pi_lsp.lint.frames`), for
    always/never comparison of paraphrases.
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
    frames: tuple[Frame, ...] = ()


_EXAMPLE_HEADING = re.compile(
    r"\b(?:examples?|samples?|sample output|templates?|anti-?patterns?)\b", re.I
)
#: words of a lead-in that introduces an example; the lead-in ends with ":" and the word
#: comes after the colon before that one
_EXAMPLE_LEAD = re.compile(
    r"\bfor example\b|\be\.g\.|\bfor instance\b|\bsuch as\b|\blike this\b|\bexamples?\b|"
    r"\bsample\b|\bbad\b|\bwrong\b|\bincorrect\b|\bdon'?t do this\b",
    re.I,
)
_EXAMPLE_SENTENCE = re.compile(
    r"^\W*(?:e\.g\.|i\.e\.|(?:for example|for instance|example|bad|wrong|incorrect)\b)|^\W*[❌✗]",
    re.I,
)
_ASIDE = re.compile(r"\((?:e\.g\.|for example|for instance|such as|like|i\.e\.)[^()]*\)", re.I)
_OVERRIDE = re.compile(
    r"\boverrid(?:e|es|ing)\b|\btakes? precedence\b|\bsupersed(?:e|es|ing)\b|"
    r"\bunlike the (?:root|parent|top-level|global)\b|"
    r"\b(?:instead of|rather than|not) (?:what )?the (?:root|parent|top-level|global)\b",
    re.I,
)
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

_PARSER = MarkdownIt("commonmark").enable("table")


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


def _sentences(plain: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(plain):
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


def _clauses(text: str) -> list[tuple[int, int]]:
    """Split a sentence at semicolons and dashes that join independent clauses."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in re.finditer(r";\s+|\s[—–]\s|\s--\s", text):
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

    def run(self) -> list[Instruction]:
        tokens = _PARSER.parse(self.source)
        skip_level: int | None = None
        skip_next_block = False
        in_table = 0
        index = 0
        while index < len(tokens):
            self._check_time()
            token = tokens[index]
            if token.type == "heading_open":
                self._heading(token, tokens[index + 1])
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
                index += 1
                continue
            is_block_open = token.nesting == 1 and token.type in (
                "paragraph_open",
                "bullet_list_open",
                "ordered_list_open",
                "blockquote_open",
            )
            if skip_next_block and (is_block_open or token.type in ("fence", "code_block")):
                skip_next_block = False
                if token.nesting == 1:
                    skip_level = token.level
                index += 1
                continue
            if token.type == "inline" and not in_table and not self._in_example_section():
                lead = self._inline(token)
                if lead:
                    skip_next_block = True
            index += 1
        return self.out

    def _check_time(self) -> None:
        if self.deadline is not None and time.thread_time() > self.deadline:
            raise OutOfTime(self.path)

    def _heading(self, token: Token, inline: Token) -> None:
        level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, inline.content))
        self.section_override = bool(_OVERRIDE.search(inline.content))

    def _in_example_section(self) -> bool:
        return any(_EXAMPLE_HEADING.search(title) for _, title in self.headings)

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
        for begin, end in _sentences(plain.text):
            self._check_time()
            self._sentence(plain, readable, masked, (begin, end), locator, token.content)
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
        if _EXAMPLE_SENTENCE.match(sentence):
            return
        if _OVERRIDE.search(masked):
            self.section_override = True
        choices: list[Choice] = []
        for c_begin, c_end in _clauses(readable):
            clause = readable[c_begin:c_end]
            for choice in read_choices(clause, masked[c_begin:c_end]):
                choices.append(
                    Choice(
                        choice.dimension,
                        choice.value,
                        choice.stance,
                        choice.start + c_begin,
                        choice.end + c_begin,
                        choice.group,
                    )
                )
        content_start = plain.origin[begin]
        content_end = plain.origin[end - 1] + 1
        while content_start > 0 and content[content_start - 1] in "`*_~[":
            content_start -= 1
        while content_end < len(content) and content[content_end] in "`*_~":
            content_end += 1
        line, column = locator.position(content_start)
        end_line, end_column = locator.position(content_end)
        normalized = _normalize(sentence)
        self.out.append(
            Instruction(
                path=self.path,
                where=SourceRange(self.path, line, column, end_line, end_column),
                text=content[content_start:content_end],
                normalized=normalized,
                action=_action(normalized),
                polarity=_polarity(masked),
                directive=is_directive(masked) or bool(choices),
                choices=tuple(choices),
                heading=tuple(title for _, title in self.headings),
                override=self.section_override,
                frames=frames_of(readable, masked),
            )
        )


def extract_instructions(path: str, text: str, seconds: float | None = None) -> list[Instruction]:
    """The instructions of one context file, in file order.

    With ``seconds``, reading stops with :class:`OutOfTime` once it has taken longer, counted
    in the CPU time of the calling thread: time the thread spends waiting (for the processor,
    for the interpreter lock held by another thread) does not count.
    """
    deadline = None if seconds is None else time.thread_time() + seconds
    return _Extractor(path, text, deadline).run()
