"""A context file cut into runs of top-level Markdown blocks, in one linear pass over its lines.

The instructions of a file are read block by block (:mod:`pi_lsp.lint.instructions`) so that
an edit reads again only the block it changed. A cut is made only where CommonMark starts a
new top-level block whatever came before: before a line that starts in column 0 after a blank
line, outside a fenced code block and outside an HTML block that a blank line does not end
(comments, ``<pre>``, ``<script>``, ``<style>``, ``<textarea>``, ``<?…?>``, ``<!…>``,
CDATA). Where a block could go on after a blank line, no cut is made: an indented line (list
item content, indented code), a list item after a chunk that holds a list (the same list goes
on), a line inside a fence. One more kind of cut: between two top-level items of a list
written without blank lines, while every line since the blank line is such an item or is
indented into the one above it (:class:`_TightList`). Merging blocks costs only speed; a wrong
cut would change what is read, so every doubt merges.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

#: terminators of the HTML blocks that a blank line does not end (CommonMark kinds 1 to 5)
_RAW_TAGS = ("script", "pre", "style", "textarea")


@dataclass(frozen=True, slots=True)
class Chunk:
    """``text`` holds the lines ``first_line`` .. ``first_line + line_count - 1`` of the file."""

    first_line: int
    line_count: int
    text: str


def _container_prefix(line: str) -> int:
    """The length of the leading whitespace, ``>`` marks and list markers of ``line``."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in " \t>":
            i += 1
            continue
        if c in "-+*" and i + 1 < n and line[i + 1] in " \t":
            i += 2
            continue
        if c.isdigit():
            j = i
            while j < n and j - i < 9 and line[j].isdigit():
                j += 1
            if j < n and line[j] in ".)" and (j + 1 == n or line[j + 1] in " \t"):
                i = j + 1
                continue
        break
    return i


def _is_list_item(line: str) -> bool:
    """Whether ``line`` (not indented) starts with a list marker or is a thematic break made
    of list-marker characters (either way it may belong to the list before it)."""
    c = line[0]
    if c in "-+*":
        return len(line) == 1 or line[1] in " \t\r" or line.strip(" \t\r" + c) == ""
    j = 0
    while j < len(line) and j < 9 and line[j].isdigit():
        j += 1
    return 0 < j < len(line) and line[j] in ".)"


def _fence(line: str, start: int) -> tuple[str, int] | None:
    """The fence character and length when ``line[start:]`` opens a fenced code block."""
    if start >= len(line) or line[start] not in "`~":
        return None
    c = line[start]
    end = start
    while end < len(line) and line[end] == c:
        end += 1
    if end - start < 3 or (c == "`" and "`" in line[end:]):
        return None
    return c, end - start


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _closes(line: str, start: int, fence: tuple[str, int]) -> bool:
    c, length = fence
    end = start
    while end < len(line) and line[end] == c:
        end += 1
    return end - start >= length and line[end:].strip() == ""


def _html_end(line: str, start: int) -> str | None:
    """The terminator of the HTML block that ``line[start:]`` opens, for the kinds that a
    blank line does not end; ``None`` for anything else."""
    rest = line[start : start + 12].lower()
    if not rest.startswith("<"):
        return None
    if rest.startswith("<!--"):
        return "-->"
    if rest.startswith("<?"):
        return "?>"
    if rest.startswith("<![cdata["):
        return "]]>"
    if rest.startswith("<!") and rest[2:3].isalpha():
        return ">"
    for tag in _RAW_TAGS:
        if rest.startswith("<" + tag) and rest[1 + len(tag) : 2 + len(tag)] in ("", " ", ">", "\t"):
            return f"</{tag}>"
    return None


# Every pattern starts at a line break (the text is scanned with one put in front) and
# stays within one line; each run is possessive, so a failed try never rescans.
#: a blank line, or a line that may open a fence or an HTML block (after quote marks, list
#: markers and indentation)
_EVENT = re.compile(
    r"\n(?:(?P<blank>[ \t\r]*+(?=\n|\Z))"
    r"|[ \t>]*+(?:(?:[-+*]|\d{1,9}+[.)])[ \t]++[ \t>]*+)*+(?:`{3}|~{3}|<[!?a-zA-Z]))"
)
#: a fence closer of a top-level fence, and of a fence inside a container
_TOP_CLOSER = re.compile(r"\n {0,3}+(`{3,}+|~{3,}+)[ \t\r]*+(?=\n|\Z)")
_ANY_CLOSER = re.compile(
    r"\n[ \t>]*+(?:(?:[-+*]|\d{1,9}+[.)])[ \t]++[ \t>]*+)*+(`{3,}+|~{3,}+)[ \t\r]*+(?=\n|\Z)"
)
#: a line in column 0 (that is not a quote line, for a fence inside a quote)
_COLUMN_0 = re.compile(r"\n[^ \t\r\n]")
_COLUMN_0_UNQUOTED = re.compile(r"\n[^ \t\r\n>]")
#: a list item (or what may be one)
_LIST_LINE = re.compile(r"(?m)^[ \t]*+(?:[-+*]|\d{1,9}+[.)])(?:[ \t\r]|$)")
#: a cut is made at about one in this many of the places where one could be, chosen by the
#: start of the line after it: chunks of a few blocks each (a chunk costs some bookkeeping
#: however short it is), cut at places that do not move when an edit elsewhere changes the
#: length of a chunk
_CUT_EVERY = 2
_LIST_START = frozenset("-+*0123456789")


def _closer(pattern: re.Pattern[str], src: str, at: int, fence: tuple[str, int]) -> int:
    """Where the line after the closer of ``fence`` starts (its line break), or the end."""
    char, length = fence
    for match in pattern.finditer(src, at):
        run = match.group(1)
        if run[0] == char and len(run) >= length:
            return match.end()
    return len(src)


def _skip(src: str, start: int) -> int:
    """Past a fence or an HTML block (of a kind a blank line does not end) that opens on the
    line starting at ``start`` of ``src``: the index of the line break that ends it; ``start``
    when the line opens neither."""
    end = src.find("\n", start)
    end = len(src) if end < 0 else end
    line = src[start:end]
    prefix = _container_prefix(line)
    fence = _fence(line, prefix)
    if fence is not None:
        if prefix <= 3 and line[:prefix].strip(" ") == "":
            return _closer(_TOP_CLOSER, src, end, fence)
        column_0 = _COLUMN_0_UNQUOTED if ">" in line[:prefix] else _COLUMN_0
        first = column_0.search(src, end)
        stop = len(src) if first is None else first.start()
        return min(_closer(_ANY_CLOSER, src, end, fence), stop)
    terminator = _html_end(line, prefix)
    if terminator is None or terminator in line[prefix + 2 :]:
        return start
    found = src.find(terminator, end)
    if found < 0:
        return len(src)
    after = src.find("\n", found)
    return len(src) if after < 0 else after


#: a cut inside a list is made at about one in this many of the items where one could be
_LIST_CUT_EVERY = 4


def _item_start(line: str) -> tuple[str, int] | None:
    """The marker kind (the bullet character, or the delimiter of an ordered item) and the
    column where the content starts of the list item that starts ``line`` (in column 0), or
    ``None`` when ``line`` is not such an item (a thematic break, a bare marker, a tab after
    the marker: every doubt merges). Only the line's first 24 characters are read, so that
    what decides a cut lies within :data:`~pi_lsp.lint.instructions._DECIDED` of it."""
    line = line[:24]
    c = line[0]
    if c in "-+*":
        if line.rstrip(" \r").strip(c + " ") == "":
            return None  # a thematic break ("---", "* * *") or a bare marker
        kind, marker = c, 1
    else:
        marker = 0
        while marker < len(line) and marker < 9 and line[marker].isdigit():
            marker += 1
        if not 0 < marker < len(line) or line[marker] not in ".)":
            return None
        kind = line[marker]
        marker += 1
    spaces = len(line) - marker - len(line[marker:].lstrip(" "))
    if marker + spaces < len(line) and line[marker + spaces] == "\t":
        return None
    if spaces == 0 and marker < len(line.rstrip("\r")):
        return None
    return kind, marker + (spaces if 1 <= spaces <= 4 else 1)


def _chosen(head: str) -> bool:
    """Whether a place where a cut could be made before the line ``head`` starts is taken:
    by a checksum of its start, so the places taken do not move when an edit elsewhere
    changes a chunk's length."""
    return zlib.crc32(head[:24].encode("utf-8", "surrogatepass")) % _LIST_CUT_EVERY == 0


def _columns(line: str) -> int:
    """The column of the first character of ``line`` that is not a space or tab."""
    column = 0
    for c in line:
        if c == " ":
            column += 1
        elif c == "\t":
            column += 4 - column % 4
        else:
            break
    return column


class _TightList:
    """The lines since the last blank line, read for the places where a list without blank
    lines can be cut between two of its top-level items.

    Such a cut is made before a list item in column 0 when every line since the blank line
    (or the chunk's start) is one: the first line starts an item in column 0, and each later
    one starts another or is indented at least as far as the content of the item above it
    (it belongs to that item). Read alone, each part is the same list items as in the whole
    text. Any other line (a lazy continuation, a heading, an HTML block, a line indented too
    little) leaves the rest of the stretch uncut."""

    def __init__(self) -> None:
        self.seen = False  # a line of this stretch was read
        self.tight = False  # every line so far is an item or inside one
        self.kind = ""  # the marker kind of the last top-level item
        self.indent = 0  # the content column of the last top-level item

    def blank(self) -> None:
        self.seen = self.tight = False

    def passed_block(self) -> None:
        """The lines of a fence or an HTML block were passed over: where it ends was judged
        as if it stood at the top level, so what follows it in a list is a doubt."""
        self.tight = False

    def cuts(self, text: str, lo: int, hi: int) -> Iterator[int]:
        """Read the lines of ``text[lo:hi]`` (``lo`` at a line start); yield the cuts."""
        pos = lo
        while pos < hi:
            end = text.find("\n", pos, hi)
            line = text[pos : hi if end < 0 else end]
            if line.strip(" \t\r") and self._item_boundary(line) and _chosen(line):
                yield pos
            if end < 0:
                break
            pos = end + 1

    def _item_boundary(self, line: str) -> bool:
        """Read ``line``; whether a cut before it keeps both parts the same items. Only an
        item of the same kind as the one above is surely its sibling: another kind starts a
        new list, which may not interrupt a paragraph (an ordered item not numbered 1)."""
        first = not self.seen
        self.seen = True
        if line[0] not in " \t":
            item = _item_start(line)
            if item is None or not (first or item[0] == self.kind):
                self.tight = False
                return False
            was_tight, self.tight = self.tight, first or self.tight
            self.kind, self.indent = item
            return was_tight and not first
        if self.tight and _columns(line) < self.indent:
            self.tight = False
        return False


def chunk_starts(text: str, start: int = 0) -> Iterator[int]:
    """Where the chunks after the one starting at ``start`` start (indexes of ``text``, each
    at the start of a line; ``start`` must be the start of a chunk). The cuts depend only on
    the text from ``start`` on: scanning from any chunk start finds the same later ones."""
    src = "\n" + text  # index i of src is index i - 1 of text
    region = start  # text index of the last place where a cut could have been made
    resume = 0  # src index: lines before it lie in a fence or an HTML block
    lists = _TightList()  # the lines since the last blank one, for cuts inside a list
    fed = start  # text index: the lines before it were given to ``lists``
    for match in _EVENT.finditer(src, start):
        at = match.start()  # the text index of the line the event is on
        if at < resume:
            continue
        yield from lists.cuts(text, fed, at)
        if match.group("blank") is None:
            resume = _skip(src, at + 1)
            fed = at
            if resume > at + 1:  # a fence or an HTML block opens on the line
                end = text.find("\n", at)
                line_end = len(text) if end < 0 else end + 1
                yield from lists.cuts(text, at, line_end)
                lists.passed_block()
                fed = resume
            continue
        # the line after the blank one starts at text index ``here``
        here = match.end()
        lists.blank()
        fed = here
        if here >= len(text) or text[here] in " \t\r\n":
            continue
        head = text[here : here + 24].partition("\n")[0]
        if (
            head[0] in _LIST_START
            and _is_list_item(head)
            and _LIST_LINE.search(text, region, here) is not None
        ):
            continue  # a list item after a list: the same list may go on
        region = here
        if here > start and zlib.crc32(head.encode("utf-8", "surrogatepass")) % _CUT_EVERY == 0:
            yield here
    yield from lists.cuts(text, fed, len(text))


def split_blocks(text: str) -> list[Chunk]:
    """``text`` cut into chunks of whole top-level blocks (every line in exactly one chunk,
    in order; the chunks joined with line breaks give ``text`` back)."""
    chunks: list[Chunk] = []
    start = first_line = 0
    for here in chunk_starts(text):
        piece = text[start : here - 1]
        count = piece.count("\n") + 1
        chunks.append(Chunk(first_line, count, piece))
        first_line += count
        start = here
    piece = text[start:]
    chunks.append(Chunk(first_line, piece.count("\n") + 1, piece))
    return chunks


def closes_fence(line: str, char: str, length: int) -> bool:
    """Whether ``line`` closes a top-level fence opened with ``length`` times ``char``."""
    at = _indent(line)
    return at <= 3 and _closes(line, at, (char, length))


def html_terminator(line: str) -> str | None:
    """What ends the HTML block that ``line`` opens, when a blank line does not end it."""
    return _html_end(line, _indent(line))
