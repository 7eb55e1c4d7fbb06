"""Word stems: the lemmatiser that the readings of instructions share (action frames in
:mod:`.frames`, the subjects of numbers in :mod:`.open_numbers`, the content words of judge
candidates). PyStemmer's English (Porter 2) stemmer, with the irregular verb forms first
mapped to their base, so "wrote" and "writes" meet "write"."""

from __future__ import annotations

from functools import lru_cache

#: irregular verb forms (and a few nouns) and their base
IRREGULAR = {
    "wrote": "write",
    "written": "write",
    "ran": "run",
    "kept": "keep",
    "made": "make",
    "did": "do",
    "done": "do",
    "does": "do",
    "went": "go",
    "gone": "go",
    "goes": "go",
    "had": "have",
    "has": "have",
    "left": "leave",
    "got": "get",
    "gotten": "get",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "built": "build",
    "brought": "bring",
    "sent": "send",
    "found": "find",
    "chose": "choose",
    "chosen": "choose",
    "broke": "break",
    "broken": "break",
    "began": "begin",
    "begun": "begin",
    "threw": "throw",
    "thrown": "throw",
    "hid": "hide",
    "hidden": "hide",
    "overrode": "override",
    "overridden": "override",
    "rewrote": "rewrite",
    "rewritten": "rewrite",
    "undid": "undo",
    "undone": "undo",
    "came": "come",
    "was": "be",
    "were": "be",
    "been": "be",
    "is": "be",
    "are": "be",
    "am": "be",
    "data": "datum",
}


@lru_cache(maxsize=1)
def _stemmer() -> object:
    import Stemmer  # type: ignore[import-not-found,unused-ignore]

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=8192)
def lemma(word: str) -> str:
    """The stem of a lowercase ``word`` (irregular verb forms first mapped to their base)."""
    base = IRREGULAR.get(word, word)
    if "-" in base:
        return "-".join(lemma(part) for part in base.split("-"))
    stem: str = _stemmer().stemWord(base)  # type: ignore[attr-defined]
    return stem
