"""Token counts by chunk equal the count of the whole text (``pi_lsp/prompt/tokens.py``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.prompt import tokens
from pi_lsp.prompt.tokens import CHUNK_CHARS, chunks, count_tokens
from tests.shared_data import CORPUS, REPO

#: The pre-tokenizer pattern the module's argument is about (cl100k_base)
CL100K_PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"
    r" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)


def _whole(text: str) -> int:
    encoding = tokens._get_encoding()
    return len(encoding.encode(text, disallowed_special=()))


def _agrees(text: str, mean: int) -> None:
    parts = chunks(text, mean)
    assert "".join(parts) == text
    assert sum(_whole(part) for part in parts) == _whole(text)


def test_the_encoding_splits_with_the_pattern_the_cuts_were_chosen_for() -> None:
    assert tokens._get_encoding()._pat_str == CL100K_PATTERN


FRAGMENTS = [
    "\n", "\n", "\n", "\r\n", "\r", " ", "  ", "\t", "\n\n", "\n ", " \n", "\n\t",
    "#", "## ", "- ", "* ", "1. ", "```", "`x`", "> ", "|", "---", "!", "...", "?!\n",
    "'s", "'LL", "'ve", "don't", "I'm", "word", "Words", "x", "Éte", "ünïcode", "中文字",
    "😀", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\u00a0", "\u3000", "\x1c",
    "7", "123456", "3.14", "(", ")", "[link](url)", "<!--", "-->", "<|endoftext|>", "_", "~",
    "\ud83d\ude00", "\ud800",
]  # fmt: skip

markdownish = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=120
).map("".join)


@settings(max_examples=400, deadline=None)
@given(markdownish, st.integers(min_value=1, max_value=64))
def test_counts_by_chunk_add_up_to_the_whole_count(text: str, mean: int) -> None:
    _agrees(text, mean)


@settings(max_examples=200, deadline=None)
@given(markdownish)
def test_every_possible_cut_adds_up(text: str) -> None:
    whole = _whole(text)
    for cut in (m.end() for m in tokens._CUT.finditer(text)):
        assert _whole(text[:cut]) + _whole(text[cut:]) == whole, repr((text[:cut], text[cut:]))


def _texts(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.md")):
        try:
            found.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def test_chunked_counts_equal_whole_counts_on_the_lint_cases_and_dev_set() -> None:
    texts = _texts(REPO / "tests" / "lint_cases") + _texts(REPO / "tests" / "lint_heldout" / "dev")
    assert len(texts) > 100
    for text in texts:
        _agrees(text, 16)
    big = "\n\n".join(texts)
    _agrees(big, CHUNK_CHARS)
    assert count_tokens(big) == _whole(big)


@pytest.mark.shared
def test_chunked_counts_equal_whole_counts_on_the_corpus() -> None:
    texts = _texts(CORPUS)
    assert len(texts) > 100
    for text in texts:
        _agrees(text, 64)
        assert count_tokens(text) == _whole(text)


def test_an_edit_changes_one_or_two_chunks() -> None:
    rng = random.Random(15)
    texts = _texts(REPO / "tests" / "lint_cases") + _texts(REPO / "tests" / "lint_heldout" / "dev")
    lines = "\n\n".join(texts).split("\n")
    changed = []
    for _ in range(100):
        before = chunks("\n".join(lines))
        at = rng.randrange(len(lines))
        if rng.random() < 0.5:
            lines.insert(at, "Use pnpm, never npm.")
        else:
            lines[at] += " and more words"
        after = chunks("\n".join(lines))
        changed.append(len(set(after) - set(before)))
    assert max(changed) <= 3
    assert sum(changed) / len(changed) <= 1.5
