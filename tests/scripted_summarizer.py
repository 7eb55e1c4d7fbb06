"""A ``Summarizer`` that answers from a script and records what it was asked (for tests)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pi_lsp.session.summarizer import SummaryRequest, SummaryResponse
from tests.agent.scripted_provider import oracle_usage

__all__ = ["ScriptedSummarizer"]


class ScriptedSummarizer:
    """Answers requests in order from ``answers`` (a text or a full ``SummaryResponse``).

    Every request is kept in ``requests``. When the script runs out the answer is ``ok`` with
    the default usage (100 in, 10 out), as the conformance oracle's fake model does.
    """

    def __init__(self, answers: Iterable[str | SummaryResponse] = ()) -> None:
        self._answers = list(answers)
        self.requests: list[SummaryRequest] = []

    @classmethod
    def from_oracle_script(cls, items: Iterable[Mapping[str, Any]]) -> ScriptedSummarizer:
        """Text answers of a conformance ``script.json`` (items with ``text`` and ``usage``)."""
        answers: list[str | SummaryResponse] = []
        for item in items:
            usage = item.get("usage") or {}
            answers.append(
                SummaryResponse.of_text(
                    str(item.get("text", "")),
                    oracle_usage(
                        usage.get("prompt_tokens", 100), usage.get("completion_tokens", 10)
                    ),
                )
            )
        return cls(answers)

    async def complete(self, request: SummaryRequest) -> SummaryResponse:
        self.requests.append(request)
        if not self._answers:
            return SummaryResponse.of_text("ok", oracle_usage(100, 10))
        answer = self._answers.pop(0)
        if isinstance(answer, SummaryResponse):
            return answer
        return SummaryResponse.of_text(answer, oracle_usage(100, 10))
