"""Reading the model's answer: a verdict stands only when it quotes both sentences."""

from __future__ import annotations

import json
from typing import Any

from pi_lsp.lint.conflicts import clipped, instructions_of
from pi_lsp.lint.judge import MAX_TEXT, Verdict, parse_verdicts, request_text
from pi_lsp.lint.judge_candidates import Candidate

FOUND = instructions_of(
    "/r/AGENTS.md", "- Always use **pnpm** to install dependencies.\n- Build docs with `npm`.\n"
)
assert FOUND is not None
EARLIER, LATER = FOUND
PAIR = [Candidate(EARLIER, LATER, "test")]


def answer(**item: Any) -> str:
    verdict = {"id": 1, "verdict": "conflict", "reason": "two package managers", **item}
    return json.dumps({"verdicts": [verdict]})


def test_quotes_match_whatever_the_markup_case_and_spacing() -> None:
    text = answer(earlier_quote="use pnpm  to install", later_quote="Build docs with npm")
    assert parse_verdicts(text, PAIR) == ({0: Verdict("conflict", "two package managers")}, 0)


def test_a_verdict_in_a_code_fence_with_words_around_it_is_read() -> None:
    text = "Here you go:\n```json\n" + answer(earlier_quote="use pnpm", later_quote="with npm")
    assert parse_verdicts(text + "\n```", PAIR)[0] == {
        0: Verdict("conflict", "two package managers")
    }


def test_a_made_up_quote_a_single_word_or_an_unknown_id_is_discarded() -> None:
    for bad in (
        answer(earlier_quote="use yarn", later_quote="with npm"),
        answer(earlier_quote="pnpm", later_quote="with npm"),
        answer(earlier_quote="use pnpm", later_quote="with npm", id=2),
        answer(earlier_quote="use pnpm", later_quote="with npm", verdict="maybe"),
    ):
        assert parse_verdicts(bad, PAIR) == ({}, 1), bad


def test_an_answer_that_is_not_json_judges_nothing() -> None:
    assert parse_verdicts("I think they conflict.", PAIR) == ({}, 0)
    assert parse_verdicts('{"verdicts": "all fine"}', PAIR) == ({}, 0)


def test_a_long_sentence_is_sent_on_one_line_clipped_as_messages_quote_it() -> None:
    long = "- Always   use pnpm\n  " + "and keep the lockfile current " * 30 + "please.\n"
    found = instructions_of("/r/AGENTS.md", long + "- Build docs with `npm`.\n")
    assert found is not None
    [pair] = json.loads(request_text([Candidate(found[0], found[1], "test")]).split("\n", 1)[1])[
        "pairs"
    ]
    text = pair["earlier"]["text"]
    assert len(text) <= MAX_TEXT and text.endswith("\u2026") and not text[:-1].endswith(" ")
    assert text.startswith("Always use pnpm and keep the lockfile") and "\n" not in text
    assert text == clipped(found[0].text, MAX_TEXT)  # the clipping tier-1 messages quote with
