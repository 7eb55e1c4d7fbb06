"""The ``edit`` tool: exact text replacements in one file, all or nothing (spec §2.6).

Every edit is located in the original file. When some edit only matches after fuzzy
normalization (NFKC, trailing whitespace, typographic quotes, dashes and spaces), all edits are
located in the normalized text, and only the lines they touch are rewritten from it: every other
line keeps its original bytes. The file keeps its BOM and its line endings.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import json
import os
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_lsp.js.text import utf16_len
from pi_lsp.tools.base import ToolContext, ToolError, ToolResult
from pi_lsp.tools.file_mutation import file_mutation_lock, run_to_completion, write_text_file
from pi_lsp.tools.node_errors import node_error_code, read_regular_file
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.text_diff import diff_lines, format_display_diff, format_unified_patch

BOM = "\ufeff"

EMPTY_EDITS_MESSAGE = "Edit tool input is invalid. edits must contain at least one replacement."

# What JavaScript's trimEnd() removes; str.isspace() differs (U+001C–U+001F, U+0085, U+FEFF).
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_FUZZY_TABLE = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)


# --------------------------------------------------------------------------------------------
# Text helpers


def detect_line_ending(text: str) -> str:
    """``\\r\\n`` if the first line break is CRLF, else ``\\n``."""
    first_lf = text.find("\n")
    if first_lf == -1:
        return "\n"
    first_crlf = text.find("\r\n")
    return "\r\n" if first_crlf != -1 and first_crlf < first_lf else "\n"


def normalize_to_lf(text: str) -> str:
    """Every ``\\r\\n`` and lone ``\\r`` becomes ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def split_bom(text: str) -> tuple[str, str]:
    """``(bom, rest)``: the leading U+FEFF (or ``""``) and the text after it."""
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def normalize_for_fuzzy_match(text: str) -> str:
    """NFKC, no trailing whitespace on any line, ASCII quotes, dashes and spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip(_JS_WHITESPACE) for line in text.split("\n"))
    return text.translate(_FUZZY_TABLE)


def _count_normalized(haystack: str, needle: str) -> int:
    """Non-overlapping occurrences of fuzzy-normalized texts (JS ``split(x).length - 1``)."""
    if not needle:  # JS splits into UTF-16 units; an empty text splits into nothing
        return utf16_len(haystack) - 1
    return haystack.count(needle)


# --------------------------------------------------------------------------------------------
# Matching and applying


@dataclass(frozen=True, slots=True)
class Edit:
    old_text: str
    new_text: str


@dataclass(frozen=True, slots=True)
class TextMatch:
    """Where an old text was found, and whether only the fuzzy-normalized text matched."""

    index: int
    length: int
    fuzzy: bool


@dataclass(frozen=True, slots=True)
class Replacement:
    edit_index: int
    start: int
    length: int
    new_text: str

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(frozen=True, slots=True)
class AppliedEdits:
    """The LF text before and after the edits (what the diff compares)."""

    base_content: str
    new_content: str


def find_text(content: str, old_text: str, fuzzy_content: str | None = None) -> TextMatch | None:
    """Exact match first; otherwise a match between the fuzzy-normalized texts.

    ``fuzzy_content`` is ``normalize_for_fuzzy_match(content)`` when the caller has it already.
    """
    index = content.find(old_text)
    if index != -1:
        return TextMatch(index, len(old_text), fuzzy=False)
    if fuzzy_content is None:
        fuzzy_content = normalize_for_fuzzy_match(content)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    index = fuzzy_content.find(fuzzy_old)
    if index == -1:
        return None
    return TextMatch(index, len(fuzzy_old), fuzzy=True)


def _not_found(path: str, index: int, total: int) -> ToolError:
    if total == 1:
        return ToolError(
            f"Could not find the exact text in {path}. The old text must match exactly "
            "including all whitespace and newlines."
        )
    return ToolError(
        f"Could not find edits[{index}] in {path}. The oldText must match exactly "
        "including all whitespace and newlines."
    )


def _not_unique(path: str, index: int, total: int, occurrences: int) -> ToolError:
    if total == 1:
        return ToolError(
            f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
            "Please provide more context to make it unique."
        )
    return ToolError(
        f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be "
        "unique. Please provide more context to make it unique."
    )


def _empty_old_text(path: str, index: int, total: int) -> ToolError:
    if total == 1:
        return ToolError(f"oldText must not be empty in {path}.")
    return ToolError(f"edits[{index}].oldText must not be empty in {path}.")


def _no_change(path: str, total: int) -> ToolError:
    if total == 1:
        return ToolError(
            f"No changes made to {path}. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected."
        )
    return ToolError(f"No changes made to {path}. The replacements produced identical content.")


def _locate_edits(
    base: str, fuzzy_base: str, edits: Sequence[Edit], path: str
) -> list[Replacement]:
    """Find every edit once in ``base``; sorted by position, checked for uniqueness and overlap.

    ``fuzzy_base`` is the fuzzy normalization of ``base``, where occurrences are counted.
    """
    replacements: list[Replacement] = []
    for index, edit in enumerate(edits):
        match = find_text(base, edit.old_text, fuzzy_base)
        if match is None:
            raise _not_found(path, index, len(edits))
        occurrences = _count_normalized(fuzzy_base, normalize_for_fuzzy_match(edit.old_text))
        if occurrences > 1:
            raise _not_unique(path, index, len(edits), occurrences)
        replacements.append(Replacement(index, match.index, match.length, edit.new_text))
    replacements.sort(key=lambda r: r.start)
    for previous, current in itertools.pairwise(replacements):
        if previous.end > current.start:
            raise ToolError(
                f"edits[{previous.edit_index}] and edits[{current.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    return replacements


def apply_replacements(content: str, replacements: Sequence[Replacement], offset: int = 0) -> str:
    """Splice sorted, disjoint replacements into ``content`` (positions shifted by ``offset``)."""
    pieces: list[str] = []
    cursor = 0
    for replacement in replacements:
        start = replacement.start - offset
        pieces.extend((content[cursor:start], replacement.new_text))
        cursor = start + replacement.length
    pieces.append(content[cursor:])
    return "".join(pieces)


def _lines_with_breaks(text: str) -> list[str]:
    """Lines with their ``\\n``; a text ending in ``\\n`` has no empty last line."""
    lines = text.split("\n")
    with_breaks = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        with_breaks.append(lines[-1])
    return with_breaks


def _touched_lines(spans: Sequence[tuple[int, int]], replacement: Replacement) -> tuple[int, int]:
    """``[first, last + 1)`` of the lines a replacement starts in and reaches into."""
    first = next(
        (i for i, (start, end) in enumerate(spans) if start <= replacement.start < end), None
    )
    if first is None:
        raise ToolError("Replacement range is outside the base content.")
    last = first
    while last < len(spans) and spans[last][1] < replacement.end:
        last += 1
    if last >= len(spans):
        raise ToolError("Replacement range is outside the base content.")
    return first, last + 1


def apply_keeping_untouched_lines(
    original: str, fuzzy_base: str, replacements: Sequence[Replacement]
) -> str:
    """Apply replacements found in ``fuzzy_base`` to ``original``, line block by line block.

    The lines each replacement touches are rewritten from the normalized text; every other line
    is copied from ``original`` unchanged.
    """
    original_lines = _lines_with_breaks(original)
    base_lines = _lines_with_breaks(fuzzy_base)
    if len(original_lines) != len(base_lines):
        raise ToolError(
            "Cannot preserve unchanged lines because the base content has a different line count."
        )
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in base_lines:
        spans.append((offset, offset + len(line)))
        offset += len(line)

    groups: list[tuple[int, int, list[Replacement]]] = []
    for replacement in sorted(replacements, key=lambda r: r.start):
        first, stop = _touched_lines(spans, replacement)
        if groups and first < groups[-1][1]:
            start, previous_stop, members = groups[-1]
            groups[-1] = (start, max(previous_stop, stop), [*members, replacement])
        else:
            groups.append((first, stop, [replacement]))

    pieces: list[str] = []
    copied_up_to = 0
    for first, stop, members in groups:
        pieces.extend(original_lines[copied_up_to:first])
        block_start, block_end = spans[first][0], spans[stop - 1][1]
        pieces.append(apply_replacements(fuzzy_base[block_start:block_end], members, block_start))
        copied_up_to = stop
    pieces.extend(original_lines[copied_up_to:])
    return "".join(pieces)


def apply_edits_to_normalized_content(
    content: str, edits: Sequence[Edit], path: str
) -> AppliedEdits:
    """Apply all ``edits`` to LF ``content`` at once; raise :class:`ToolError` like Pi does."""
    edits = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    for index, edit in enumerate(edits):
        if not edit.old_text:
            raise _empty_old_text(path, index, len(edits))

    # The whole file is normalized once. Normalizing is idempotent, so this is also the
    # normalization of the fuzzy base, in which Pi matches and counts again.
    fuzzy_content = normalize_for_fuzzy_match(content)
    needs_fuzzy = any(
        (match := find_text(content, edit.old_text, fuzzy_content)) is not None and match.fuzzy
        for edit in edits
    )
    base = fuzzy_content if needs_fuzzy else content
    replacements = _locate_edits(base, fuzzy_content, edits, path)
    if needs_fuzzy:
        new_content = apply_keeping_untouched_lines(content, base, replacements)
    else:
        new_content = apply_replacements(base, replacements)
    if new_content == content:
        raise _no_change(path, len(edits))
    return AppliedEdits(content, new_content)


# --------------------------------------------------------------------------------------------
# File access


def _access_read_write(path: str) -> None:
    """Raise the OSError Node's ``access(path, R_OK | W_OK)`` would give."""
    os.stat(path)  # ENOENT, ENOTDIR, ELOOP, EACCES on a parent …
    if os.access(path, os.R_OK | os.W_OK):
        return
    if os.access(path, os.R_OK) and _on_read_only_file_system(path):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


def _on_read_only_file_system(path: str) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class EditOperations:
    """How the tool reaches files; replace these to edit elsewhere (a remote machine, a test)."""

    read_file: Callable[[str], bytes] = read_regular_file
    write_file: Callable[[str, str], None] = write_text_file
    access: Callable[[str], None] = _access_read_write


def _access_error(path: str, exc: Exception) -> ToolError:
    code = node_error_code(exc)
    if code is not None:
        return ToolError(f"Could not edit file: {path}. Error code: {code}.")
    return ToolError(f"Could not edit file: {path}. Error: {exc}.")


# --------------------------------------------------------------------------------------------
# Arguments


def _is_single_edit(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("oldText"), str)
        and isinstance(value.get("newText"), str)
    )


def prepare_edit_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """Repair common model mistakes in Pi's order: edits as JSON text, a bare edit, legacy keys."""
    edits = args.get("edits")
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            args["edits"] = parsed
        elif _is_single_edit(parsed):
            args["edits"] = [parsed]
    elif _is_single_edit(edits):
        args["edits"] = [edits]

    old_text, new_text = args.get("oldText"), args.get("newText")
    if not isinstance(old_text, str) or not isinstance(new_text, str):
        return args
    current = args.get("edits")
    merged = [*current] if isinstance(current, list) else []
    merged.append({"oldText": old_text, "newText": new_text})
    repaired = {key: value for key, value in args.items() if key not in ("oldText", "newText")}
    repaired["edits"] = merged
    return repaired


def _validated_edits(args: dict[str, Any]) -> list[Edit]:
    edits = args.get("edits")
    if not isinstance(edits, list) or not edits:
        raise ToolError(EMPTY_EDITS_MESSAGE)
    return [Edit(str(e["oldText"]), str(e["newText"])) for e in edits]


# --------------------------------------------------------------------------------------------
# The tool

_REPLACEMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["oldText", "newText"],
    "properties": {
        "oldText": {
            "type": "string",
            "description": (
                "The text to replace, copied character for character from the file. It has to "
                "occur exactly once and must not share any part with another entry's oldText."
            ),
        },
        "newText": {
            "type": "string",
            "description": "What takes the place of oldText.",
        },
    },
}

EDIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["path", "edits"],
    "properties": {
        "path": {
            "type": "string",
            "description": "The file to change, absolute or relative to the working directory",
        },
        "edits": {
            "type": "array",
            "items": _REPLACEMENT_SCHEMA,
            "description": (
                "The replacements to make. Each oldText is looked up in the file as it was "
                "before this call, not after the entries before it. Entries must cover separate "
                "regions; changes to the same or neighbouring lines belong in a single entry."
            ),
        },
    },
}

EDIT_DESCRIPTION = (
    "Change one file by exact text replacement. Each entry of edits[] gives an oldText that "
    "occurs exactly once in the original file and the newText to put in its place; all entries "
    "are matched against the original, must not overlap, and are applied together or not at all. "
    "Fold changes that touch the same or adjacent lines into one entry, and keep each oldText "
    "short instead of bridging distant changes with unchanged text."
)


class EditTool:
    """Pi's ``edit`` built-in."""

    name = "edit"
    label = "edit"
    description = EDIT_DESCRIPTION
    parameters = EDIT_PARAMETERS

    def __init__(self, operations: EditOperations | None = None) -> None:
        self.operations = operations or EditOperations()

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return prepare_edit_arguments(args)

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        edits = _validated_edits(args)
        path = str(args["path"])
        absolute = resolve_to_cwd(path, ctx.cwd)
        async with file_mutation_lock(absolute):
            applied = await run_to_completion(self._edit_file, path, absolute, edits, ctx)
        # The diff only describes the change: other mutations of the file need not wait for it.
        return await asyncio.to_thread(edit_success, path, len(edits), applied)

    def _edit_file(
        self, path: str, absolute: str, edits: list[Edit], ctx: ToolContext
    ) -> AppliedEdits:
        """Check, read, apply and write; the abort signal is looked at between steps."""
        ops = self.operations
        ctx.check_aborted()
        try:
            ops.access(absolute)
        except Exception as exc:
            ctx.check_aborted()
            raise _access_error(path, exc) from exc
        ctx.check_aborted()
        raw = ops.read_file(absolute).decode("utf-8", "replace")
        ctx.check_aborted()
        bom, text = split_bom(raw)
        ending = detect_line_ending(text)
        applied = apply_edits_to_normalized_content(normalize_to_lf(text), edits, path)
        ctx.check_aborted()
        ops.write_file(absolute, bom + restore_line_endings(applied.new_content, ending))
        ctx.check_aborted()
        return applied


def proposed_edit(args: dict[str, Any], cwd: str | os.PathLike[str]) -> AppliedEdits:
    """The text (LF line breaks) an ``edit`` call with prepared ``args`` would replace and
    write, computed without writing; raises :class:`ToolError` where the call would fail."""
    return proposed_edit_file(args, cwd)[0]


def proposed_edit_file(
    args: dict[str, Any], cwd: str | os.PathLike[str]
) -> tuple[AppliedEdits, str]:
    """:func:`proposed_edit` and the whole text the file would then hold, line breaks as the
    file has them (its BOM left out)."""
    edits = _validated_edits(args)
    path = str(args["path"])
    absolute = resolve_to_cwd(path, cwd)
    try:
        _access_read_write(absolute)
        raw = read_regular_file(absolute).decode("utf-8", "replace")
    except OSError as exc:
        raise _access_error(path, exc) from exc
    _, text = split_bom(raw)
    applied = apply_edits_to_normalized_content(normalize_to_lf(text), edits, path)
    return applied, restore_line_endings(applied.new_content, detect_line_ending(text))


def edit_success(path: str, count: int, applied: AppliedEdits) -> ToolResult:
    """The result of an edit of ``count`` blocks that was written (by the tool or the editor)."""
    old, new = applied.base_content, applied.new_content
    changes = diff_lines(old, new)
    shown = format_display_diff(changes, old, new)
    details: dict[str, Any] = {"diff": shown.diff, "patch": format_unified_patch(path, changes)}
    if shown.first_changed_line is not None:
        details["firstChangedLine"] = shown.first_changed_line
    return ToolResult.text(f"Successfully replaced {count} block(s) in {path}.", details)


TOOL = EditTool()
