"""Ordering names like JavaScript's ``localeCompare`` under ICU's root collation.

Pi's ``ls`` sorts with ``a.toLowerCase().localeCompare(b.toLowerCase())``. ICU compares in
three passes: first the base characters of both strings (whitespace, then punctuation, symbols,
currency, digits one character at a time, then letters), then their accents, then case, width
and other variants. Punctuation is not ignored. :func:`collation_key` builds a Python sort key
with the same three passes from the weights in :mod:`pi_lsp.tools.collation_data`; characters
outside those tables (other scripts, rare symbols) get a weight from their Unicode category that
keeps them in the right group, ordered by code point.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from functools import lru_cache

from pi_lsp.tools.collation_data import (
    CATALAN_DOT_POSITION,
    EXPANSIONS,
    MARK_ORDER,
    PRIMARY_ORDER,
    SECONDARY_VARIANTS,
    TERTIARY_VARIANTS,
)

#: A primary weight: the rank of a listed character (or of the anchor a fallback follows) and an
#: order among the fallbacks placed after that anchor (0 for the listed character itself).
Primary = tuple[int, int]
#: One collation element: primary weight (``None`` for accents), secondary and tertiary weight.
Element = tuple[Primary | None, int, int]
SortKey = tuple[tuple[Primary, ...], tuple[int, ...], tuple[int, ...]]

_PRIMARY_RANK = {char: rank for rank, char in enumerate("".join(PRIMARY_ORDER))}
_MARK_RANK = {chr(code): rank for rank, code in enumerate(MARK_ORDER)}

COMMON_SECONDARY = 0

# Tertiary weights, scaled like those of the Unicode collation algorithm: plain characters
# lowest, then digits of other scripts, width, compatibility, font, circled and case variants,
# kana kinds, super- and subscripts, positional, no-break and squared forms, fractions.
PLAIN_TERTIARY = 0x20000
UPPERCASE_TERTIARY = 0x80000
_TERTIARY_BY_TAG = {
    "<wide>": 0x30000,
    "<compat>": 0x40000,
    "<font>": 0x50000,
    "<circle>": 0x60000,
    "<small>": 0xD0000,
    "<narrow>": 0x120000,
    "<super>": 0x140000,
    "<sub>": 0x150000,
    "<vertical>": 0x160000,
    "<initial>": 0x170000,
    "<medial>": 0x180000,
    "<final>": 0x190000,
    "<isolated>": 0x1A0000,
    "<noBreak>": 0x1B0000,
    "<square>": 0x1C0000,
    "<fraction>": 0x1E0000,
}
_SMALL_HIRAGANA_TERTIARY = 0xD0000
_HIRAGANA_TERTIARY = 0xE0000
_SMALL_KATAKANA_TERTIARY = 0xF0000
_KATAKANA_TERTIARY = 0x110000

# Small kana sort with their full-size kana, which mostly is the next code point.
_SMALL_KANA_IRREGULAR = {"ゕ": "か", "ゖ": "け", "ヵ": "カ", "ヶ": "ケ"}
_SMALL_KANA = frozenset("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮ") | frozenset(
    _SMALL_KANA_IRREGULAR
)
_KATAKANA_OFFSET = 0x60

# Weightless characters outside the control and format categories.
_IGNORABLE = frozenset("\u034f") | frozenset(map(chr, range(0xFE00, 0xFE10)))

# Where a character missing from the tables goes: right after the last listed character of its
# group, in code point order among themselves.
_AFTER_WHITESPACE = _PRIMARY_RANK[" "]
_AFTER_PUNCTUATION = _PRIMARY_RANK["⁂"]
_AFTER_SYMBOLS = _PRIMARY_RANK["〿"]
_AFTER_CURRENCY = _PRIMARY_RANK["⃀"]
_AFTER_DIGITS = _PRIMARY_RANK["9"]
_AFTER_LATIN = max(
    rank for char, rank in _PRIMARY_RANK.items() if unicodedata.name(char, "").startswith("LATIN")
)
_AFTER_LETTERS = len(_PRIMARY_RANK) - 1
_UNASSIGNED_OFFSET = 0x110000
_CJK_EXTENSION_A = range(0x3400, 0x4DC0)


def locale_compare_key(name: str) -> tuple[SortKey, bytes]:
    """Sort key for Pi's ``ls`` order: ICU on the lowercased name, ties in byte order.

    ``localeCompare`` calls names equal when they differ only in ignorable characters; the
    sort is stable and Node lists a directory in byte order, so those keep byte order.
    """
    return collation_key(name.lower()), name.encode("utf-8", "surrogateescape")


def collation_key(text: str) -> SortKey:
    """A key under which Python orders strings as ICU root collation (tertiary strength) does."""
    primaries: list[Primary] = []
    secondaries: list[int] = []
    tertiaries: list[int] = []
    for primary, secondary, tertiary in _text_elements(unicodedata.normalize("NFC", text)):
        if primary is not None:
            primaries.append(primary)
        secondaries.append(secondary)
        tertiaries.append(tertiary)
    return tuple(primaries), tuple(secondaries), tuple(tertiaries)


def _text_elements(text: str) -> Iterator[Element]:
    previous = ""
    for char in text:
        if char == "·" and previous in ("l", "L"):
            # ICU reads "l·" as the Catalan letter ŀ: after an l the dot is only an accent.
            yield (None, _between_marks(CATALAN_DOT_POSITION), PLAIN_TERTIARY)
        else:
            yield from _elements(char)
        previous = char


@lru_cache(maxsize=8192)
def _elements(char: str) -> tuple[Element, ...]:
    """The collation elements of one character (a tuple, since some expand to several)."""
    listed = _listed_elements(char)
    if listed is not None:
        return listed
    category = unicodedata.category(char)
    if char in _IGNORABLE or category in ("Cc", "Cf"):
        return ()
    if category.startswith("M"):
        return ((None, _mark_secondary(char), PLAIN_TERTIARY),)
    lower = char.lower()
    if lower != char:
        return _as_variant(lower, UPPERCASE_TERTIARY)
    decomposed = unicodedata.normalize("NFKD", char)
    if decomposed != char and not _is_spacing_accent(decomposed):
        if decomposed == unicodedata.normalize("NFD", char):
            return tuple(_text_elements(decomposed))
        return _as_variant(decomposed, _compatibility_tertiary(char))
    digit = unicodedata.decimal(char, None)
    if digit is not None:
        return _as_variant(str(digit), PLAIN_TERTIARY + ord(char))
    if category == "Lo" and "\u3041" <= char <= "\u30fa":
        return _kana_elements(char)
    primary = (_fallback_anchor(char, category), _fallback_order(char))
    return ((primary, COMMON_SECONDARY, PLAIN_TERTIARY),)


def _listed_elements(char: str) -> tuple[Element, ...] | None:
    """Elements from the measured tables, or ``None`` for a character they do not list."""
    rank = _PRIMARY_RANK.get(char)
    if rank is not None:
        return (((rank, 0), COMMON_SECONDARY, PLAIN_TERTIARY),)
    if char in SECONDARY_VARIANTS:
        base, position = SECONDARY_VARIANTS[char]
        # Variants sharing a weight (curly quotes) are told apart in code point order.
        accent: Element = (None, _between_marks(position), PLAIN_TERTIARY + ord(char))
        return (*_text_elements(base), accent)
    if char in TERTIARY_VARIANTS:
        base, rank_among_variants = TERTIARY_VARIANTS[char]
        return _as_variant(base, PLAIN_TERTIARY + rank_among_variants)
    if char in EXPANSIONS:
        letters, position = EXPANSIONS[char]
        middle: Element = (None, _between_marks(position), PLAIN_TERTIARY)
        return (*_elements(letters[0]), middle, *_text_elements(letters[1:]))
    return None


def _as_variant(text: str, tertiary: int) -> tuple[Element, ...]:
    """Elements of ``text`` marked as a case or compatibility variant (tertiary difference)."""
    return tuple((p, s, max(t, tertiary)) for p, s, t in _text_elements(text))


def _is_spacing_accent(decomposed: str) -> bool:
    """Whether a character is a stand-alone accent (a space plus a mark): a symbol of its own."""
    return len(decomposed) > 1 and decomposed[0] == " " and unicodedata.combining(decomposed[1]) > 0


def _compatibility_tertiary(char: str) -> int:
    tag = unicodedata.decomposition(char).split(" ", 1)[0]
    return _TERTIARY_BY_TAG.get(tag, _TERTIARY_BY_TAG["<compat>"])


def _kana_elements(char: str) -> tuple[Element, ...]:
    """Hiragana and katakana share primaries; size and script differ at the tertiary level."""
    katakana = char >= "\u30a1"
    small = char in _SMALL_KANA
    full = _SMALL_KANA_IRREGULAR.get(char) or (chr(ord(char) + 1) if small else char)
    hiragana = chr(ord(full) - _KATAKANA_OFFSET) if katakana else full
    if katakana:
        tertiary = _SMALL_KATAKANA_TERTIARY if small else _KATAKANA_TERTIARY
    else:
        tertiary = _SMALL_HIRAGANA_TERTIARY if small else _HIRAGANA_TERTIARY
    return (((_AFTER_LETTERS, 1 + ord(hiragana)), COMMON_SECONDARY, tertiary),)


def _mark_secondary(mark: str) -> int:
    rank = _MARK_RANK.get(mark)
    if rank is None:
        return 2 * len(MARK_ORDER) + 2 + ord(mark)
    return 2 * rank + 2


def _between_marks(position: int) -> int:
    """Secondary weight just below the mark at ``position`` in MARK_ORDER (above the previous)."""
    return 2 * position + 1


def _fallback_anchor(char: str, category: str) -> int:
    if category.startswith("Z"):
        return _AFTER_WHITESPACE
    if category.startswith("P"):
        return _AFTER_PUNCTUATION
    if category == "Sc":
        return _AFTER_CURRENCY
    if category.startswith("S"):
        return _AFTER_SYMBOLS
    if category.startswith("N"):
        return _AFTER_DIGITS
    if category.startswith("L") and unicodedata.name(char, "").startswith("LATIN"):
        return _AFTER_LATIN
    return _AFTER_LETTERS


def _fallback_order(char: str) -> int:
    code = ord(char)
    if unicodedata.category(char) == "Cn":
        return _UNASSIGNED_OFFSET + code
    if code in _CJK_EXTENSION_A:
        return 0xA000 + code  # ICU puts the main ideograph block before extension A
    return 1 + code
