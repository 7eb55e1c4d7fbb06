"""The ls order: ``toLowerCase().localeCompare()`` under ICU root collation (spec §2.5).

Every expected order here was checked against ICU 78 through Node's ``localeCompare``.
"""

from __future__ import annotations

import random

import pytest

from pi_lsp.tools.collation import collation_key, locale_compare_key


def ls_sorted(names: list[str]) -> list[str]:
    shuffled = names[:]
    random.Random(7).shuffle(shuffled)
    return sorted(shuffled, key=locale_compare_key)


def test_golden_case_order() -> None:
    expected = [
        "_under",
        ".hidden",
        ".hidden-dir",
        "10.txt",
        "9.txt",
        "a.txt",
        "B.txt",
        "c-dir",
        "é-accent.txt",
        "link-to-dir",
        "Zeta",
    ]
    assert ls_sorted(expected) == expected


def test_ascii_punctuation_then_digits_then_letters() -> None:
    expected = list(" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcxyz")
    assert ls_sorted(expected) == expected


def test_realistic_names() -> None:
    expected = [
        " space",
        "_under",
        "-dash",
        ".dot",
        "(paren)",
        "[bracket]",
        "{brace}",
        "@at",
        "#hash",
        "+plus",
        "=equals",
        "~tilde",
        "🙂",
        "$dollar",
        "１",
        "1 a.txt",
        "1_a.txt",
        "1-a.txt",
        "1.txt",
        "10.txt",
        "1a.txt",
        "２",
        "9.txt",
        "A",
        "a",
        "á",
        "à",
        "â",
        "ä",
        "ae",
        "æ",
        "af",
        "b",
        "e",
        "é",
        "è",
        "ê",
        "ë",
        "é-accent.txt",
        "eacute",
        "f",
        "file",
        "ﬁle",
        "fjord",
        "l",
        "ł",
        "m",
        "n",
        "ñ",
        "Ñandú",
        "nz",
        "o",
        "ø",
        "p",
        "RESUME.pdf",
        "Resume.pdf",
        "resume.pdf",
        "résumé.pdf",
        "ss",
        "ß",
        "st",
        "Zeta",
        "zeta",
        "Ω",
        "ω",
        "я",
        "中",
    ]
    assert ls_sorted(expected) == expected


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("10.txt", "9.txt"),  # digits are compared one by one, not as numbers
        ("report-final.txt", "report.txt"),  # '-' sorts before '.'
        ("readme", "README.md"),  # a prefix first
        ("résumé", "resumes"),  # accents only break ties between equal letters
        ("cote", "côte"),
        ("coté", "côte"),  # the first accent difference decides
        ("Ärger", "Bär"),
        ("ae", "æ"),  # æ is "ae" with an accent-like difference
        ("æb", "af"),
        ("ss", "ß"),
        ("ib", "ıa"),  # dotless ı is a letter of its own, after i
        ("ł", "lb"),
        ("и", "й"),  # й is a letter of its own
        ("йа", "ка"),
        ("еж", "ёж"),  # ё is е with an accent
        ("ёж", "ел"),
        ("σ", "ς"),
        ("か", "カ"),  # hiragana before katakana of the same sound
        ("カ", "き"),
        ("a\u00a0b", "a c"),  # a no-break space weighs like a space
        ("a c", "a\u200bb"),  # a zero-width space weighs nothing
    ],
)
def test_pairs(first: str, second: str) -> None:
    assert locale_compare_key(first) < locale_compare_key(second)


def test_case_only_differences_keep_byte_order() -> None:
    # localeCompare finds them equal; the stable sort keeps readdir's byte order
    assert ls_sorted(["b", "B", "Readme", "README", "readme"]) == [
        "B",
        "b",
        "README",
        "Readme",
        "readme",
    ]


def test_ignorable_characters_tie() -> None:
    assert collation_key("ab") == collation_key("a\u00adb")  # soft hyphen
    assert collation_key("ab") == collation_key("a\x01b")  # control character


def test_composed_and_decomposed_accents_are_equal() -> None:
    assert collation_key("é") == collation_key("e\u0301")
    assert collation_key("й") == collation_key("и\u0306")
