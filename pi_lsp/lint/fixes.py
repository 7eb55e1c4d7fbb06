"""Fixes for lint diagnostics: plain descriptions of the edits that resolve a problem.

:func:`fixes_for` takes one :class:`~pi_lsp.lint.engine.Diagnostic` and a :class:`FixContext`
(how to read a file's current text, which skill names are taken, whether the editor can rename
folders) and returns :class:`Fix` values: text edits in code-point positions, folder renames,
or a command such as :class:`TrustProject`. Nothing here writes a file or knows the protocol;
the language server turns a ``Fix`` into an LSP code action.

Each fixer reads the file as it is *now* and locates what it changes itself (the ``name:`` key,
the duplicated sentence), so a diagnostic that went stale since it was published yields no fix
rather than a wrong edit. Skill and instruction fixes are applied to the text in memory and
checked before they are offered (the new frontmatter parses and says what we meant; the
instruction now declares its override).

Rules with fixes:

* ``skill-name-collision`` — rename the skill that lost: to its folder's name when that is
  free and differs, else to ``<name>-2`` (``-3`` …, the first name no loaded skill uses). A
  ``SKILL.md`` whose folder carries the old name inside a ``skills`` folder has the folder
  renamed with it when the editor can rename files; otherwise only the name changes, the title
  says that the folder keeps its name, and ``skill-name-folder-mismatch`` (information) follows.
* ``skill-description-required`` — add (or fill in) ``description:`` with a draft taken from
  the body: its first paragraph, else its first heading, else a placeholder asking for one.
* ``duplicate-instruction`` — delete the later copy: its whole line (newline included) when
  the sentence is all the line holds, else just the sentence; for a copied block, its
  sentences and the markers between them (a heading or code block inside the block stays).
* ``conflicting-instructions`` / ``-in-file`` — append ``(this overrides `../AGENTS.md`)`` to the
  later instruction (the path relative to the edited file, ``~/…`` for the global file), which
  turns the warning into an ``acknowledged-override`` (information) that names the other file;
  for one file, also offer to delete the earlier instruction.
* ``untrusted-project-resource`` — :class:`TrustProject` for the project folder holding the
  ignored resource (``data["cwd"]``), which covers every working directory below it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from markdown_it import MarkdownIt

from pi_lsp.lint.conflicts import CONFLICT, CONFLICT_IN_FILE, DUPLICATE, instructions_of
from pi_lsp.lint.engine import Diagnostic
from pi_lsp.lint.instructions import Instruction
from pi_lsp.lint.rules import rule_for
from pi_lsp.lint.vocabulary import Vocabulary, using
from pi_lsp.resources.frontmatter import Frontmatter, FrontmatterError, parse_frontmatter
from pi_lsp.resources.layout import SKILLS_DIR_NAME
from pi_lsp.resources.model import Finding, SourceRange
from pi_lsp.resources.shown_paths import reference_from, shown_path
from pi_lsp.resources.yaml_core import core_scalar

__all__ = [
    "FIXABLE_RULES",
    "Fix",
    "FixContext",
    "FixKind",
    "TextEdit",
    "TrustProject",
    "apply_edits",
    "description_draft",
    "finding_fixes",
    "fixes_for",
    "yaml_scalar",
]

FixKind = Literal["quickfix", "refactor"]
TextOf = Callable[[str], "str | None"]

#: Longest description draft, in characters (Pi's limit is 1024; a draft should be short).
DRAFT_LIMIT = 200
PLACEHOLDER_DESCRIPTION = "Describe what this skill does and when to use it."


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``where`` (code-point columns, end exclusive) with ``new_text``."""

    where: SourceRange
    new_text: str

    @property
    def path(self) -> str:
        return self.where.path


@dataclass(frozen=True, slots=True)
class TrustProject:
    """Record in ``trust.json`` that ``directory`` is trusted, then rebuild."""

    directory: str


@dataclass(frozen=True, slots=True)
class Fix:
    """One way to resolve a diagnostic.

    ``edits`` apply to the files as they are now; ``renames`` (``(old, new)`` paths, files or
    folders) come after the edits, so an edit names a file by its old path. ``command`` is an
    action that is not an edit. ``preferred`` marks the one obvious fix (editors may apply it
    with "auto fix").
    """

    title: str
    kind: FixKind = "quickfix"
    edits: tuple[TextEdit, ...] = ()
    renames: tuple[tuple[str, str], ...] = ()
    command: TrustProject | None = None
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class FixContext:
    """What the fixers may look at besides the diagnostic.

    ``text_of`` gives a file's current text (an unsaved buffer or the disk), ``None`` when it
    cannot be read; ``skill_names`` every skill name in use; ``can_rename`` whether the editor
    can rename files and folders; ``home`` abbreviates paths outside the project as ``~/…``;
    ``seconds`` is the CPU time a file may take to be read for instructions, as in the lint
    (a file read past it, or the part of it past the size budget, gets no instruction fix);
    ``vocabulary`` the catalogue the lint read the file with (the settings' ``lint.catalogue``
    extension, :func:`~pi_lsp.lint.engine.user_vocabulary`; ``None``: the shipped one), so a
    fix reads the file as the finding was made, and reuses that reading.
    """

    text_of: TextOf
    skill_names: frozenset[str] = frozenset()
    can_rename: bool = False
    exists: Callable[[str], bool] = os.path.exists
    home: str | None = None
    seconds: float | None = None
    vocabulary: Vocabulary | None = None


# ---------------------------------------------------------------------------------------------
# Text positions


class _Text:
    """A file's text with (line, code-point column) <-> offset conversion."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = text.split("\n")
        self.starts: list[int] = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line) + 1

    @property
    def eol(self) -> str:
        """The file's line ending, as its first line break spells it."""
        return "\r\n" if self.lines[0].endswith("\r") and len(self.lines) > 1 else "\n"

    @property
    def has_lone_cr(self) -> bool:
        """A CR that is not part of CRLF: frontmatter parsing would see other lines than we do."""
        return "\r" in self.text.replace("\r\n", "")

    def offset(self, line: int, column: int) -> int:
        if line >= len(self.lines):
            return len(self.text)
        line = max(line, 0)
        return self.starts[line] + min(max(column, 0), len(self.lines[line]))

    def position(self, offset: int) -> tuple[int, int]:
        offset = min(max(offset, 0), len(self.text))
        line = max(i for i, start in enumerate(self.starts) if start <= offset)
        return line, offset - self.starts[line]

    def range(self, start: int, end: int) -> SourceRange:
        (a, b), (c, d) = self.position(start), self.position(end)
        return SourceRange(self.path, a, b, c, d)

    def insertion(self, line: int, column: int, new_text: str) -> TextEdit:
        return TextEdit(SourceRange(self.path, line, column, line, column), new_text)

    def content(self, line: int) -> str:
        """A line without its CR."""
        text = self.lines[line]
        return text[:-1] if text.endswith("\r") else text


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with ``edits`` applied (all to this one file; they must not overlap)."""
    doc = _Text("", text)
    spans = sorted(
        (
            doc.offset(e.where.start_line, e.where.start_column),
            doc.offset(e.where.end_line, e.where.end_column),
            e.new_text,
        )
        for e in edits
    )
    out: list[str] = []
    position = 0
    for start, end, new_text in spans:
        if start < position or end < start:
            raise ValueError("overlapping or inverted edits")
        out += [text[position:start], new_text]
        position = end
    out.append(text[position:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# YAML values


_PLAIN_SAFE = re.compile(r"[^\W_][\w.-]*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar that reads back as this string: plain when that is safe,
    else double-quoted (a JSON string is a valid YAML double-quoted scalar)."""
    if _PLAIN_SAFE.fullmatch(value) and core_scalar(value) == value:
        return value
    return json.dumps(value, ensure_ascii=False)


def _frontmatter(doc: _Text) -> Frontmatter | None:
    if doc.has_lone_cr:
        return None
    try:
        return parse_frontmatter(doc.text)
    except FrontmatterError:
        return None


def _field_edit(doc: _Text, frontmatter: Frontmatter, key: str, line_text: str) -> TextEdit:
    """Replace the ``key`` field (key through value) with ``line_text``."""
    span = frontmatter.fields[key]
    # An empty value's span runs up to a comment after it: keep the spacing before the comment.
    floor = span.column if span.end_line == span.line else 0
    kept = doc.content(span.end_line)[floor : span.end_column].rstrip(" \t")
    return TextEdit(
        SourceRange(doc.path, span.line, span.column, span.end_line, floor + len(kept)), line_text
    )


def _parsed_value(doc: _Text, edits: Sequence[TextEdit], key: str) -> object:
    """The frontmatter value of ``key`` once ``edits`` are applied (``None`` if unparseable)."""
    try:
        return parse_frontmatter(apply_edits(doc.text, edits)).data.get(key)
    except (FrontmatterError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# skill-name-collision


#: A name the Agent Skills spec accepts (what a folder must look like to lend its name).
_SPEC_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _free_name(name: str, taken: frozenset[str], usable: Callable[[str], bool]) -> str:
    for number in range(2, 1000):
        candidate = f"{name}-{number}"
        if candidate not in taken and usable(candidate):
            return candidate
    raise ValueError(f"no free name for {name!r}")  # pragma: no cover - a thousand skills


def _rename_skill(diagnostic: Diagnostic, context: FixContext) -> list[Fix]:
    finding = diagnostic.finding
    name = finding.data.get("name")
    path = finding.data.get("loserPath", finding.where.path)
    if not isinstance(name, str) or not isinstance(path, str):
        return []
    text = context.text_of(path)
    if text is None:
        return []
    doc = _Text(path, text)
    frontmatter = _frontmatter(doc)
    if frontmatter is None or not frontmatter.has_frontmatter:
        return []
    folder_path = os.path.dirname(path)
    folder = os.path.basename(folder_path)
    declared = os.path.basename(path) == "SKILL.md"
    current = frontmatter.data.get("name")
    if (current if isinstance(current, str) and current else folder) != name:
        return []  # renamed since the diagnostic was made
    taken = context.skill_names | {name}

    # The folder moves with the name only where that is safe: a SKILL.md in its own folder
    # directly inside a skills folder, named like the skill (not a root a setting points at).
    movable = (
        declared
        and folder == name
        and os.path.basename(os.path.dirname(folder_path)) == SKILLS_DIR_NAME
        and context.can_rename
    )
    parent = os.path.dirname(folder_path)
    renames: tuple[tuple[str, str], ...] = ()
    if declared and folder != name and folder not in taken and _SPEC_NAME.fullmatch(folder):
        new_name = folder  # the name the Agent Skills spec asks for, and it is free
    elif movable:
        new_name = _free_name(name, taken, lambda c: not context.exists(os.path.join(parent, c)))
        renames = ((folder_path, os.path.join(parent, new_name)),)
    else:
        new_name = _free_name(name, taken, lambda _: True)

    line = f"name: {yaml_scalar(new_name)}"
    if "name" in frontmatter.fields:
        edit = _field_edit(doc, frontmatter, "name", line)
    else:
        edit = doc.insertion(frontmatter.start_line + 1, 0, line + doc.eol)
    if _parsed_value(doc, [edit], "name") != new_name:
        return []
    if renames:
        title = f'Rename the skill to "{new_name}", and its folder'
    elif new_name == folder:
        title = f'Rename the skill to "{new_name}", its folder\'s name'
    elif declared and folder == name:
        title = f'Rename the skill to "{new_name}" (the folder keeps the name "{folder}")'
    else:
        title = f'Rename the skill to "{new_name}"'
    return [Fix(title, edits=(edit,), renames=renames, preferred=True)]


# ---------------------------------------------------------------------------------------------
# skill-description-required

_MARKDOWN = MarkdownIt("commonmark")
# linear as the same constructs in pi_lsp.lint.instructions are (see the note on _INLINE there)
_LINK = re.compile(r"!?\[([^\[\]]*+)\]\((?:[^()]++|\([^()]*+\))*+\)")
_CODE = re.compile(r"(?<!`)(`{1,32}+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_EMPHASIS = re.compile(r"\*\*|__|~~|\*|(?<!\w)_|_(?!\w)")
_HTML = re.compile(r"<[^<>\n]++>")


def _plain_text(markdown: str) -> str:
    text = _LINK.sub(r"\1", markdown)
    text = _CODE.sub(lambda m: m.group(2).strip(), text)
    text = _HTML.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _CONTROL.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _shorten(text: str, limit: int = DRAFT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + "…"


def description_draft(body: str) -> str:
    """A description drawn from a skill's body: its first paragraph, else its first heading."""
    tokens = _MARKDOWN.parse(body)
    heading: str | None = None
    for index, token in enumerate(tokens[:-1]):
        inline = tokens[index + 1]
        if inline.type != "inline":
            continue
        if token.type == "paragraph_open":
            text = _plain_text(inline.content)
            if text:
                return _shorten(text)
        elif token.type == "heading_open" and heading is None:
            heading = _plain_text(inline.content) or None
    return _shorten(heading) if heading else PLACEHOLDER_DESCRIPTION


def _add_description(diagnostic: Diagnostic, context: FixContext) -> list[Fix]:
    path = diagnostic.finding.where.path
    text = context.text_of(path)
    if text is None:
        return []
    doc = _Text(path, text)
    frontmatter = _frontmatter(doc)
    if frontmatter is None:
        return []
    current = frontmatter.data.get("description")
    if isinstance(current, str) and current.strip():
        return []  # added since the diagnostic was made
    draft = description_draft(frontmatter.body)
    line = f"description: {json.dumps(draft, ensure_ascii=False)}"
    if "description" in frontmatter.fields:
        edit = _field_edit(doc, frontmatter, "description", line)
    elif frontmatter.has_frontmatter:
        after = frontmatter.fields.get("name")
        at = after.end_line + 1 if after is not None else frontmatter.start_line + 1
        edit = doc.insertion(at, 0, line + doc.eol)
    else:
        bom = 1 if text.startswith("\ufeff") else 0
        eol = doc.eol
        edit = doc.insertion(0, bom, f"---{eol}{line}{eol}---{eol}")
    if _parsed_value(doc, [edit], "description") != draft:
        return []
    preview = _shorten(draft, 40)
    return [Fix(f'Add a description: "{preview}"', edits=(edit,), preferred=True)]


# ---------------------------------------------------------------------------------------------
# duplicate-instruction, conflicting-instructions

# blanks taken whole (possessive): the two \s* around an empty loop would split a blank run
# in n² ways before failing on the character after it
_LINE_PREFIX = re.compile(r"\s*+(?:(?:[-*+]|\d{1,9}[.)])\s++|>\s?+)*+\s*+")


def _instructions(path: str, text: str, context: FixContext) -> tuple[Instruction, ...]:
    """The instructions the lint reads in ``text`` (none when they take too long to read)."""
    with using(context.vocabulary):
        return instructions_of(path, text, context.seconds) or ()


def _instruction_at(doc: _Text, where: SourceRange, context: FixContext) -> Instruction | None:
    """The instruction of the current text exactly at ``where`` (``None``: the text changed)."""
    for instruction in _instructions(doc.path, doc.text, context):
        w = instruction.where
        if (w.start_line, w.start_column, w.end_line, w.end_column) == (
            where.start_line,
            where.start_column,
            where.end_line,
            where.end_column,
        ):
            return instruction
    return None


def _deletion(doc: _Text, where: SourceRange) -> TextEdit:
    """Delete the sentence at ``where``: whole lines when it is all they hold, else the
    sentence and the space that separates it from its neighbour."""
    first, last = where.start_line, where.end_line
    before = doc.content(first)[: where.start_column]
    after = doc.content(last)[where.end_column :]
    if _LINE_PREFIX.fullmatch(before) and not after.strip():
        if last + 1 < len(doc.lines):
            start, end = doc.starts[first], doc.starts[last + 1]
        elif first > 0:  # the last line, without a newline: take the one before it instead
            start, end = doc.starts[first] - 1, len(doc.text)
            if doc.text[start - 1 : start] == "\r":
                start -= 1
        else:
            start, end = 0, len(doc.text)
        return TextEdit(doc.range(start, end), "")
    start = doc.offset(first, where.start_column)
    end = doc.offset(last, where.end_column)
    trailing = len(after) - len(after.lstrip(" \t"))
    if trailing and after.strip():
        end += trailing
    else:
        leading = len(before) - len(before.rstrip(" \t"))
        start -= leading
    return TextEdit(doc.range(start, end), "")


def _instructions_spanning(
    doc: _Text, where: SourceRange, context: FixContext
) -> list[Instruction]:
    """The consecutive instructions of the current text that start where ``where`` starts
    and end where it ends (empty: the text changed since the finding)."""
    found: list[Instruction] = []
    for instruction in _instructions(doc.path, doc.text, context):
        w = instruction.where
        if not found and (w.start_line, w.start_column) != (where.start_line, where.start_column):
            continue
        found.append(instruction)
        if (w.end_line, w.end_column) == (where.end_line, where.end_column):
            return found
    return []


def _only_markers_between(doc: _Text, a: SourceRange, b: SourceRange) -> bool:
    """Whether nothing but spacing and list or quote markers lies between ``a`` and ``b``."""
    gap = doc.text[doc.offset(a.end_line, a.end_column) : doc.offset(b.start_line, b.start_column)]
    lines = gap.split("\n")
    if len(lines) == 1:
        return not gap.strip()
    return not lines[0].strip() and all(_LINE_PREFIX.fullmatch(line) for line in lines[1:])


def _block_deletions(doc: _Text, block: Sequence[Instruction]) -> tuple[TextEdit, ...]:
    """Delete ``block``'s sentences, keeping whatever else lies between them (a heading, a
    code block): one deletion per stretch of sentences with only markers between them."""
    stretches: list[list[Instruction]] = [[block[0]]]
    for previous, current in pairwise(block):
        if _only_markers_between(doc, previous.where, current.where):
            stretches[-1].append(current)
        else:
            stretches.append([current])
    return tuple(
        _deletion(doc, stretch[0].where.through(stretch[-1].where)) for stretch in stretches
    )


def _remove_duplicate(diagnostic: Diagnostic, context: FixContext) -> list[Fix]:
    finding = diagnostic.finding
    text = context.text_of(finding.where.path)
    if text is None:
        return []
    doc = _Text(finding.where.path, text)
    block = _instructions_spanning(doc, finding.where, context)
    if not block:
        return []
    edits = _block_deletions(doc, block)
    try:
        apply_edits(text, edits)
    except ValueError:
        return []  # the stretches' deletions would overlap: offer nothing rather than a mess
    first_copy = finding.related[0].where.path if finding.related else None
    where = (
        f" (kept in {_reference(finding.where.path, first_copy, context)})" if first_copy else ""
    )
    what = "instruction" if len(block) == 1 else f"block of {len(block)} instructions"
    return [Fix(f"Remove this duplicate {what}{where}", edits=edits, preferred=True)]


def _reference(here: str, other: str, context: FixContext) -> str:
    """How the file ``here`` names ``other``, never by an absolute path of this machine."""
    return reference_from(here, other, context.home or "")


def _override_insertion(doc: _Text, instruction: Instruction, note: str) -> TextEdit:
    """Put `` (note)`` at the end of the sentence, before its closing punctuation."""
    where = instruction.where
    start = doc.offset(where.start_line, where.start_column)
    end = doc.offset(where.end_line, where.end_column)
    sentence = doc.text[start:end]
    cut = len(sentence.rstrip("*_~"))
    before_punctuation = len(sentence[:cut].rstrip(".!?;:"))
    at = start + (before_punctuation if before_punctuation < cut else len(sentence))
    line, column = doc.position(at)
    return doc.insertion(line, column, f" ({note})")


def _declares_override(doc: _Text, edit: TextEdit, where: SourceRange, context: FixContext) -> bool:
    """Whether, after ``edit``, the sentence that started at ``where`` says it overrides."""
    edited = apply_edits(doc.text, [edit])
    return any(
        i.override
        and (i.where.start_line, i.where.start_column) == (where.start_line, where.start_column)
        for i in _instructions(doc.path, edited, context)
    )


def _make_precedence_explicit(diagnostic: Diagnostic, context: FixContext) -> list[Fix]:
    finding = diagnostic.finding
    if finding.data.get("override") or not finding.related:
        return []
    text = context.text_of(finding.where.path)
    if text is None:
        return []
    doc = _Text(finding.where.path, text)
    instruction = _instruction_at(doc, finding.where, context)
    if instruction is None:
        return []
    earlier = finding.related[0].where
    fixes: list[Fix] = []
    if finding.rule == CONFLICT:
        reference = _reference(doc.path, earlier.path, context)
        note = f"this overrides `{reference}`"
        title = f"State that this instruction overrides {reference}"
    else:
        note = "this overrides the earlier instruction above"
        title = f"State that this instruction overrides line {earlier.start_line + 1}"
    edit = _override_insertion(doc, instruction, note)
    if _declares_override(doc, edit, finding.where, context):
        fixes.append(Fix(title, edits=(edit,)))
    if (
        finding.rule == CONFLICT_IN_FILE
        and earlier.path == doc.path
        and _instruction_at(doc, earlier, context) is not None
    ):
        line = earlier.start_line + 1
        fixes.append(
            Fix(f"Remove the earlier instruction on line {line}", edits=(_deletion(doc, earlier),))
        )
    return fixes


# ---------------------------------------------------------------------------------------------
# untrusted-project-resource


def _trust_project(diagnostic: Diagnostic, context: FixContext) -> list[Fix]:
    directory = diagnostic.finding.data.get("cwd")
    if not isinstance(directory, str) or not directory:
        return []
    # the folder trusted may be an ancestor of the workspace (any folder holding .agents/skills
    # is one), and trusting it covers everything below it: the title says which it is
    shown = shown_path(directory, "", context.home)
    return [Fix(f"Trust this project ({shown})", command=TrustProject(directory))]


# ---------------------------------------------------------------------------------------------

Fixer = Callable[[Diagnostic, FixContext], list[Fix]]

_FIXERS: dict[str, Fixer] = {
    "skill-name-collision": _rename_skill,
    "skill-description-required": _add_description,
    DUPLICATE: _remove_duplicate,
    CONFLICT: _make_precedence_explicit,
    CONFLICT_IN_FILE: _make_precedence_explicit,
    "untrusted-project-resource": _trust_project,
}

#: The rules :func:`fixes_for` can fix (by name).
FIXABLE_RULES = frozenset(_FIXERS)


def fixes_for(diagnostic: Diagnostic, context: FixContext) -> list[Fix]:
    """The fixes for ``diagnostic`` given the files as ``context`` reads them now."""
    fixer = _FIXERS.get(diagnostic.finding.rule)
    return [] if fixer is None else fixer(diagnostic, context)


def finding_fixes(finding: Finding, context: FixContext) -> list[Fix]:
    """:func:`fixes_for` for a bare finding, at the severity it was found with."""
    return fixes_for(Diagnostic(finding, rule_for(finding.rule), finding.severity), context)
