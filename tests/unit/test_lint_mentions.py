"""A tool named in a plain description of the project is a weak choice: it contradicts a
rule or a stated convention of another file, never another mere mention."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts


def weak(clause: str) -> set[str]:
    return {c.value for c in read_choices(clause) if c.weak and c.stance == "prefer"}


def rules(files: list[tuple[str, str]]) -> list[str]:
    return [f.rule for f in find_conflicts(files) if f.rule.startswith("conflicting")]


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("Host alerts are emails our workers hand to the SendGrid v3 API.", "SendGrid"),
        ("Each source is an Airflow DAG in `dags/<source>.py`.", "Airflow"),
        ("The whole tree is a CMake project (3.28+).", "CMake"),
        ("Background work is a Sidekiq job per event.", "Sidekiq"),
    ],
)
def test_a_description_that_names_a_tool_is_a_weak_choice(clause: str, value: str) -> None:
    assert value in weak(clause)


@pytest.mark.parametrize(
    "clause",
    [
        # a common word, a sentence-initial capital, a bare list, a link title
        "Parcel locker network: firmware gateway, operator dashboard, tracking page.",
        "React 18, Vite, TanStack Query, React Router 6",
        "React Native Bottom Tabs with Expo Router",
        # someone else's tool, a part of the project, a history, a comparison, a hedge
        "The bank's SDK serialises its own requests with Jackson internally.",
        "The vendored payments SDK uses Guzzle internally; leave it alone.",
        "Some jobs are processed by Sidekiq.",
        "Tests (in packages/api) use Jest.",
        "The dashboard was built with Webpack until last year.",
        "Mail goes through Postmark or SendGrid, whichever the tenant set up.",
        "In addition to GitHub Actions, the browser matrix is run on Buildkite.",
        "Testing with Jest is slow on CI.",
        "Nothing here is sent with Mailgun.",
        "Releases will be deployed with Argo CD later this year.",
        "They go back through Stripe from `Orders::Refund`.",
        "Locally, tests are run with Jest.",
    ],
)
def test_what_is_no_description_of_the_project_makes_no_weak_choice(clause: str) -> None:
    assert weak(clause) == set()


def test_a_mention_contradicts_a_rule_of_another_file() -> None:
    root = "# Repo\n\n- Transactional email is sent through Postmark.\n"
    nested = "# Listings\n\nHost alerts are emails our workers hand to the SendGrid API.\n"
    assert rules([("AGENTS.md", root), ("listings/AGENTS.md", nested)]) == [
        "conflicting-instructions"
    ]


def test_two_mentions_never_contradict_each_other() -> None:
    root = "# Repo\n\nDigests are emails our workers hand to the Mailgun API.\n"
    nested = "# Listings\n\nHost alerts are emails our workers hand to the SendGrid API.\n"
    # each side is read as a mention: the silence is the rule that two never meet
    assert weak(root.split("\n\n")[1]) == {"Mailgun"}
    assert weak(nested.split("\n\n")[1]) == {"SendGrid"}
    assert rules([("AGENTS.md", root), ("listings/AGENTS.md", nested)]) == []


def test_a_mention_beside_a_rule_of_the_same_tool_is_silent() -> None:
    root = "# Repo\n\n- Use Postmark for all email.\n"
    nested = "# Listings\n\nHost alerts are emails our workers hand to the Postmark API.\n"
    assert rules([("AGENTS.md", root), ("listings/AGENTS.md", nested)]) == []
