"""Which pairs of instructions the model judge is asked about, and the ones it never is."""

from __future__ import annotations

import pytest

from pi_lsp.lint.judge import chain_candidates


def pairs(*files: tuple[str, str]) -> set[tuple[str, str, str]]:
    return {(c.reason.split(":")[0], c.earlier.text, c.later.text) for c in chain_candidates(files)}


def test_a_described_choice_against_a_rule_is_a_candidate() -> None:
    found = pairs(
        ("/r/AGENTS.md", "- Always use pnpm to install dependencies.\n"),
        # another part of the repo than the file's own folder: a description, not a rule
        ("/r/web/AGENTS.md", "The docs site is built with npm.\n"),
    )
    assert found == {
        (
            "dimension",
            "Always use pnpm to install dependencies.",
            "The docs site is built with npm.",
        )
    }


def test_a_pair_tier_1_reports_is_not_asked_about_again() -> None:
    found = pairs(
        ("/r/AGENTS.md", "- Use npm to install packages.\n"),
        ("/r/pkg/AGENTS.md", "- Always use pnpm to install packages.\n"),
    )
    assert found == set()


def test_never_against_a_paraphrased_imperative_is_a_candidate() -> None:
    found = pairs(
        ("/r/AGENTS.md", "- Never commit generated files to the repository.\n"),
        ("/r/web/AGENTS.md", "- Commit the generated files in dist so the site deploys.\n"),
    )
    assert (
        "polarity",
        "Never commit generated files to the repository.",
        "Commit the generated files in dist so the site deploys.",
    ) in found


@pytest.mark.parametrize(
    ("root", "later", "earlier_text", "later_text"),
    [
        (  # a shared heading word and "validate" / "validation"
            "# Acme\n\n## Validation\n\n- Validate all external input with schemagate.\n"
            "- Keep commits small.\n",
            "# Forms\n\n## Validation\n\n- Use formcheck schemas for form validation.\n",
            "Validate all external input with schemagate.",
            "Use formcheck schemas for form validation.",
        ),
        (  # "mocking" / "mocks" are one stem (PyStemmer, as for the frames), "ledger" the other
            "# Acme\n\n## Services\n\n- Keep mocking the ledger service to a minimum.\n",
            "# Payments\n\n## Testing\n\n- Write real mocks for each ledger call.\n",
            "Keep mocking the ledger service to a minimum.",
            "Write real mocks for each ledger call.",
        ),
    ],
)
def test_a_rule_outside_the_vocabulary_meets_its_topic_in_an_earlier_file(
    root: str, later: str, earlier_text: str, later_text: str
) -> None:
    found = pairs(("/r/AGENTS.md", root), ("/r/sub/AGENTS.md", later))
    assert found == {("topic", earlier_text, later_text)}


def test_unrelated_sentences_and_two_descriptions_are_not_candidates() -> None:
    found = pairs(
        (
            "/r/AGENTS.md",
            "- Keep pull requests small.\n- Some services were built with npm scripts.\n",
        ),
        ("/r/lib/AGENTS.md", "Some older packages used yarn.\n- Write docstrings in English.\n"),
    )
    assert found == set()


def test_a_chain_that_repeats_one_rule_gives_pairs_linear_in_its_sentences() -> None:
    # 400 bullets that all speak of the same thing: each later one may pair with every earlier
    # one, but brings at most a few candidates, so the count grows with the sentences
    text = "".join(
        f"- {'Never' if i % 2 else 'Always'} edit generated file{i} by hand.\n"
        f"- For package{i}, use {'npm' if i % 2 else 'yarn'}.\n"
        for i in range(400)
    )
    found = chain_candidates([("/r/AGENTS.md", text), ("/r/pkg/AGENTS.md", text)])
    assert 0 < len(found) <= 3 * 4 * 1600
    per_later: dict[tuple[object, str], int] = {}
    for candidate in found:
        key = (candidate.later.where, candidate.reason.partition(":")[0])
        per_later[key] = per_later.get(key, 0) + 1
    assert max(per_later.values()) <= 3
