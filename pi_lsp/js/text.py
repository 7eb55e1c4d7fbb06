"""String operations as JavaScript performs them, where Python's built-ins disagree.

Pi measures, sorts and trims text with JavaScript semantics: ``.length`` counts UTF-16 code
units, ``Array.prototype.sort()`` compares them, ``.trim()`` and the regex class ``\\s`` know a
fixed whitespace set that differs from ``str.isspace`` (JavaScript has U+FEFF, Python has
U+001C..U+001F and U+0085).
"""

from __future__ import annotations

__all__ = [
    "JS_WHITESPACE",
    "is_js_space",
    "js_slice",
    "js_trim",
    "utf16_len",
    "utf16_prefix",
    "utf16_sort_key",
]

#: ECMAScript WhiteSpace plus LineTerminator: what ``String.prototype.trim`` and ``\s`` match.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)


def utf16_len(text: str) -> int:
    """Length of ``text`` as JavaScript counts it (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_sort_key(text: str) -> bytes:
    """A sort key that orders strings as JavaScript's ``Array.prototype.sort()`` does: by UTF-16
    code units (so U+FF41 sorts after an astral character such as U+1F600, unlike ``sorted``)."""
    return text.encode("utf-16-be", "surrogatepass")


def is_js_space(char: str) -> bool:
    """Whether JavaScript's ``/\\s/`` matches the one character ``char``."""
    return char in _JS_WHITESPACE_SET


def js_trim(text: str) -> str:
    """``text.trim()`` in JavaScript."""
    return text.strip(JS_WHITESPACE)


def _utf16_cut(text: str, units: int) -> tuple[str, str | None]:
    """The code points wholly inside the first ``units`` UTF-16 units of ``text``, and the
    character whose surrogate pair the cut splits (``None`` when it splits none)."""
    if units <= 0:
        return "", None
    if text.isascii() or len(text) <= units // 2:
        return text[:units], None
    taken = 0
    for index, char in enumerate(text):
        width = 2 if ord(char) > 0xFFFF else 1
        if taken + width > units:
            return text[:index], char if taken + 1 == units else None
        taken += width
    return text, None


def js_slice(text: str, units: int) -> str:
    """``text.slice(0, units)`` in JavaScript, UTF-16 units, exactly.

    A cut inside a surrogate pair keeps the high half as a lone surrogate, as JavaScript does;
    a request body then carries it as the escape ``\\udxxx`` (JSON encoders escape it).
    """
    prefix, split = _utf16_cut(text, units)
    if split is None:
        return prefix
    return prefix + chr(0xD800 + ((ord(split) - 0x10000) >> 10))


def utf16_prefix(text: str, units: int) -> str:
    """``text.slice(0, units)`` in JavaScript, without leaving half of a surrogate pair.

    JavaScript would keep a lone high surrogate when the cut falls inside a pair; such a string
    cannot be encoded as UTF-8, so the dangling half is dropped here (one unit shorter).
    """
    return _utf16_cut(text, units)[0]
