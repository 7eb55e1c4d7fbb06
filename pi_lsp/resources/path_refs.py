"""Paths a Markdown context file mentions that exist on disk, with where they are written.

Context files, skills and prompt templates point at the project all the time: Markdown links
(``[guide](docs/guide.md)``), inline code (`` `src/app.py` ``), bare words (``see
scripts/check.sh``) and Claude-style ``@docs/notes.md`` imports. :func:`find_path_refs`
finds them and keeps the ones whose target exists (file or folder), so an editor can turn
them into links.

What counts, and where:

* **Markdown links and images** (inline ``[t](dest)`` / ``![a](src)`` and reference
  definitions ``[r]: dest``), as markdown-it parses them (CommonMark plus tables): the target
  may be any local path, percent-encoded or in ``<…>``; a ``#fragment`` or ``?query`` is
  dropped. URLs (any ``scheme:``, ``//host``) and bare ``#anchors`` are skipped. A target
  starting with ``/`` is a file-system path when it exists, else it is taken relative to
  ``root`` (the workspace, as GitHub reads repository-absolute links).
* **Inline code**: a span holding one token links when the token has a ``/`` or a ``.``
  (``package.json``, ``src/``); in a span of several words only clear paths link (below).
* **Prose**: a word links when it starts with ``./``, ``../`` or ``~/``, contains a ``/``
  (``src/foo.py``, ``docs/``), or is an absolute path of two or more segments. Emphasis
  markers and trailing punctuation around the word are not part of it; ``@word`` links
  ``word`` whatever its shape (an import).
* **Fenced and indented code blocks**: only clear paths — ``./x``, ``../x``, ``~/x`` or a
  relative path with a ``/`` in it (``python scripts/check.py``) — because code is full of
  words with dots (``os.path``) and absolute paths of tools (``/usr/bin/env``) that are not
  references to the project. Info strings and raw HTML blocks are not searched.

Everywhere, words that end in an ellipsis (``src/...``) or hold only dots and slashes (``./``)
are not paths; a ``:42`` or ``:42:7`` suffix (or a ``#L42`` fragment) names a line, kept in
:attr:`PathRef.line`; words with glob or template characters (``*``, ``$``, ``{``, ``<``) and
Windows paths are skipped. Relative paths are resolved against the file's folder, ``~``
against ``home``. Positions are 0-based lines and code-point columns, each reference on one
line. Only ``os.stat`` touches the disk, once per distinct candidate.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkDestination

from pi_lsp.resources.model import SourceRange

__all__ = ["PathRef", "RefKind", "find_path_refs"]

RefKind = Literal["link", "image", "definition", "code", "text", "import"]
Context = Literal["text", "code-word", "code"]


@dataclass(frozen=True, slots=True)
class PathRef:
    """One mention of an existing path.

    ``where`` covers the path as written (a link's destination without ``<>``, a word without
    the emphasis, punctuation or ``@`` around it, with its ``:line`` suffix); ``target`` is the
    absolute, normalized path; ``line`` the 1-based line a ``:42``/``#L42`` suffix names.
    """

    where: SourceRange
    written: str
    target: str
    kind: RefKind
    is_dir: bool
    line: int | None = None


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_LINE_SUFFIX = re.compile(r"^(.+?):(\d+)(?::\d+)?$")
_LINE_FRAGMENT = re.compile(r"^L(\d+)(?:[-,:].*)?$")
_WORD = re.compile(r"[^\s`\"'()<>\[\]{}|,;=\ufeff]+")
# at most 32 backticks open a span: a run length without a closing run scans to the end once,
# and only 32 lengths can do so, which keeps the scan linear
_CODE_SPAN = re.compile(r"(?<![`\\])(`{1,32}+)(?!`)(.*?[^`])\1(?!`)", re.DOTALL)
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})\s*$")
_UNSAFE = re.compile(r"[*$<>{}\\%?!]")
_TRAILING = ".,:;!?"


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def find_path_refs(
    text: str, path: str, *, home: str | None = None, root: str | None = None
) -> list[PathRef]:
    """The existing paths that ``text`` (the content of the file ``path``) mentions."""
    return _Finder(text, path, home, root).run()


class _Finder:
    def __init__(self, text: str, path: str, home: str | None, root: str | None) -> None:
        self.path = path
        self.folder = os.path.dirname(os.path.abspath(path))
        self.home = home if home is not None else os.path.expanduser("~")
        self.root = root
        # one line per "\n", as the server counts them; a CR inside a line becomes a space so
        # that markdown-it sees the same lines (and every column stays where it was)
        lines = [line.removesuffix("\r").replace("\r", " ") for line in text.split("\n")]
        self.doc = "\n".join(lines)
        self.line_starts = [0]
        for line in lines[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self.found: dict[tuple[int, int], PathRef] = {}
        self.stats: dict[str, bool | None] = {}

    # --- structure ----------------------------------------------------------------------

    def run(self) -> list[PathRef]:
        md = _markdown()
        env: dict[str, object] = {}
        tokens = md.parse(self.doc, env)
        inline: dict[tuple[int, int], Counter[str]] = {}
        for token in tokens:
            if token.map is None:
                continue
            start, end = token.map
            if token.type == "inline":
                hrefs = inline.setdefault((start, end), Counter())
                for child in token.children or ():
                    href = child.attrs.get("href" if child.type == "link_open" else "src")
                    if child.type in ("link_open", "image") and isinstance(href, str):
                        hrefs[href] += 1
            elif token.type == "fence":
                self._code_lines(start + 1, end, skip_fence_line=True)
            elif token.type == "code_block":
                self._code_lines(start, end, skip_fence_line=False)
        for (start, end), hrefs in inline.items():
            self._inline_region(start, end, hrefs, md)
        references = env.get("references")
        if isinstance(references, dict):
            for entry in references.values():
                self._definition(entry, md)
        return [self.found[key] for key in sorted(self.found)]

    def _offset(self, line: int) -> int:
        return self.line_starts[line] if line < len(self.line_starts) else len(self.doc)

    def _position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line, offset - self.line_starts[line]

    def _code_lines(self, start: int, end: int, *, skip_fence_line: bool) -> None:
        for line in range(start, min(end, len(self.line_starts))):
            begin = self.line_starts[line]
            line_text = self.doc[begin : self._offset(line + 1)].removesuffix("\n")
            if skip_fence_line and _FENCE_LINE.match(line_text):
                continue
            self._words(line_text, begin, "code")

    def _inline_region(self, start: int, end: int, hrefs: Counter[str], md: MarkdownIt) -> None:
        base = self._offset(start)
        region = self.doc[base : self._offset(end)]
        masked = list(region)

        def mask(begin: int, stop: int) -> None:
            masked[begin:stop] = " " * (stop - begin)

        for span in _CODE_SPAN.finditer(region):
            content = span.group(2)
            begin = span.start(2)
            words = content.split()
            if len(words) == 1:
                word_start = begin + content.index(words[0])
                self._word(words[0], base + word_start, "code-word")
            else:
                self._words(content, base + begin, "code")
            mask(span.start(), span.end())

        masked_text = "".join(masked)
        for opener in re.finditer(r"\]\(", masked_text):
            at = opener.end()
            while at < len(region) and region[at] in " \t":
                at += 1
            if at < len(region) and region[at] == "\n":
                at += 1
                while at < len(region) and region[at] in " \t":
                    at += 1
            result = parseLinkDestination(region, at, len(region))
            if not result.ok or not result.str:
                continue
            normalized = md.normalizeLink(result.str)
            if hrefs[normalized] <= 0:
                continue  # markdown-it does not read a link here (code, escaped, …)
            hrefs[normalized] -= 1
            begin, stop = at, result.pos
            if region[begin] == "<":
                begin, stop = begin + 1, stop - 1
            image = opener.start() > 0 and _is_image(masked_text, opener.start())
            self._destination(result.str, base + begin, base + stop, "image" if image else "link")
            mask(opener.start(), result.pos)
        self._words("".join(masked), base, "text")

    def _definition(self, entry: object, md: MarkdownIt) -> None:
        if not isinstance(entry, dict):
            return
        where, href = entry.get("map"), entry.get("href")
        if not isinstance(where, list | tuple) or not isinstance(href, str) or len(where) != 2:
            return
        base = self._offset(where[0])
        region = self.doc[base : self._offset(where[1])]
        colon = region.find("]:")
        if colon == -1:
            return
        at = colon + 2
        while at < len(region) and region[at] in " \t\n":
            at += 1
        result = parseLinkDestination(region, at, len(region))
        if not result.ok or not result.str or md.normalizeLink(result.str) != href:
            return
        begin, stop = at, result.pos
        if region[begin] == "<":
            begin, stop = begin + 1, stop - 1
        self._destination(result.str, base + begin, base + stop, "definition")

    # --- link destinations --------------------------------------------------------------

    def _destination(self, value: str, begin: int, stop: int, kind: RefKind) -> None:
        if not value or value.startswith(("#", "//")) or _SCHEME.match(value):
            return
        target, _, fragment = value.partition("#")
        target = target.partition("?")[0]
        if not target:
            return
        line = _line_of_fragment(fragment)
        for candidate in dict.fromkeys((unquote(target), target)):
            for resolved in self._link_targets(candidate):
                if self._add(begin, stop, resolved, kind, line):
                    return

    def _link_targets(self, target: str) -> Iterator[str]:
        if target.startswith("/"):
            yield os.path.normpath(target)
            if self.root is not None:
                yield os.path.normpath(os.path.join(self.root, target.lstrip("/")))
        else:
            yield self._resolve(target)

    # --- words --------------------------------------------------------------------------

    def _words(self, text: str, base: int, context: Context) -> None:
        for match in _WORD.finditer(text):
            word = match.group()
            # every path these contexts accept has a "/" (an import has its "@")
            if "/" in word or (context == "text" and "@" in word):
                self._word(word, base + match.start(), context)

    def _word(self, word: str, offset: int, context: Context) -> None:
        if word.rstrip("*~,:;!?").endswith(("...", "…")):
            return  # an elision: "src/..."
        begin, stop = _trim(word)
        if begin >= stop:
            return
        word = word[begin:stop]
        if not word.strip("./~@"):
            return  # only dots and slashes: "./", "@/"
        kind: RefKind = "code" if context != "text" else "text"
        if word.startswith("@") and context != "code":
            word, begin, kind = word[1:], begin + 1, "import"
        written = word
        line: int | None = None
        suffix = _LINE_SUFFIX.match(word)
        if suffix:
            word, line = suffix.group(1), int(suffix.group(2))
        if "#" in word:
            word, _, fragment = word.partition("#")
            line = _line_of_fragment(fragment)
        if not word or _SCHEME.match(word) or word.startswith("//") or _UNSAFE.search(word):
            return
        if not (kind == "import" or _looks_like_path(word, context)):
            return
        self._add(offset + begin, offset + begin + len(written), self._resolve(word), kind, line)

    # --- resolution ---------------------------------------------------------------------

    def _resolve(self, target: str) -> str:
        if target == "~" or target.startswith("~/"):
            return os.path.normpath(self.home + target[1:])
        return os.path.normpath(os.path.join(self.folder, target))

    def _is_dir(self, path: str) -> bool | None:
        """``True`` for a folder, ``False`` for another existing thing, ``None`` if missing."""
        if path not in self.stats:
            try:
                self.stats[path] = stat.S_ISDIR(os.stat(path).st_mode)
            except (OSError, ValueError):
                self.stats[path] = None
        return self.stats[path]

    def _add(self, begin: int, stop: int, target: str, kind: RefKind, line: int | None) -> bool:
        is_dir = self._is_dir(target)
        if is_dir is None:
            return False
        start_line, start_column = self._position(begin)
        end_line, end_column = self._position(stop)
        if start_line != end_line or (start_line, start_column) in self.found:
            return True
        self.found[(start_line, start_column)] = PathRef(
            SourceRange(self.path, start_line, start_column, end_line, end_column),
            self.doc[begin:stop],
            target,
            kind,
            is_dir,
            None if is_dir else line,
        )
        return True


def _is_image(text: str, bracket: int) -> bool:
    """Whether the ``]`` at ``bracket`` closes the alt text of an image (``![…](…)``)."""
    depth = 0
    for index in range(bracket, -1, -1):
        char = text[index]
        if char == "]":
            depth += 1
        elif char == "[":
            depth -= 1
            if depth == 0:
                return index > 0 and text[index - 1] == "!"
    return False


def _trim(word: str) -> tuple[int, int]:
    """The part of ``word`` that can be a path: emphasis and closing punctuation cut off."""
    begin, stop = 0, len(word)
    while begin < stop and word[begin] == "*":
        begin += 1
    if word.startswith("~~", begin):
        while begin < stop and word[begin] == "~":
            begin += 1
    while True:
        before = stop
        while stop > begin and word[stop - 1] in "*~":
            stop -= 1
        while stop > begin and word[stop - 1] in _TRAILING:
            if word[stop - 1] == "." and (
                word[begin:stop] in (".", "..") or word[begin:stop].endswith(("/.", "/.."))
            ):
                break
            stop -= 1
        if stop == before:
            break
    if stop - begin >= 2 and word[begin] == "_" and word[stop - 1] == "_":
        while begin < stop and word[begin] == "_" and word[stop - 1] == "_":
            begin, stop = begin + 1, stop - 1
    return begin, stop


def _looks_like_path(word: str, context: Context) -> bool:
    if word in (".", "..") or word.startswith("-"):
        return False
    if word.startswith(("./", "../", "~/")):
        return True
    if word.startswith("/"):
        return context != "code" and sum(1 for part in word.split("/") if part) >= 2
    if context == "code-word":
        return "/" in word or "." in word.strip(".")
    return "/" in word


def _line_of_fragment(fragment: str) -> int | None:
    match = _LINE_FRAGMENT.match(fragment)
    return int(match.group(1)) if match else None
