"""What a choice is for: two values of one role for two purposes are not a conflict."""

from __future__ import annotations

import pytest

from pi_lsp.lint.conflicts import CONFLICT, CONFLICT_IN_FILE, find_conflicts, scoped_pairs
from pi_lsp.lint.purposes import purpose_key, purpose_of, purposes_meet

ROOT = "/repo/AGENTS.md"
PKG = "/repo/pkg/AGENTS.md"


def _rules(chain: list[tuple[str, str]]) -> list[str]:
    return [f.rule for f in find_conflicts(chain)]


def _purpose(sentence: str, value: str, dimension: str, heading: tuple[str, ...] = ()) -> str:
    start = sentence.index(value)
    return purpose_of(sentence, start, start + len(value), heading, dimension)


# --- reading a purpose ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "value", "dimension", "purpose"),
    [
        # a phrase after the value
        (
            "Use SendGrid for transactional mail.",
            "SendGrid",
            "email-provider",
            "transactional mail",
        ),
        ("Use Postmark to send receipts.", "Postmark", "email-provider", "send receipts"),
        ("Dapper for the monthly report.", "Dapper", "orm-dotnet", "the monthly report"),
        # the subject the value is stated for
        (
            "Marketing newsletters are sent from Mailchimp campaigns.",
            "Mailchimp",
            "email-provider",
            "marketing newsletters",
        ),
        (
            "Organiser payouts are made with Wise transfers, not Stripe Connect.",
            "Stripe",
            "payment-provider",
            "organiser payouts",
        ),
        ("Metrics are Prometheus counters.", "Prometheus", "observability", "metrics"),
        # a label
        ("Newsletters: Mailchimp.", "Mailchimp", "email-provider", "newsletters"),
    ],
)
def test_a_purpose_is_read_from_the_sentence(
    sentence: str, value: str, dimension: str, purpose: str
) -> None:
    assert _purpose(sentence, value, dimension) == purpose


def test_a_heading_or_the_sentence_words_give_a_purpose_only_when_the_role_knows_it() -> None:
    assert _purpose("Use Mailchimp.", "Mailchimp", "email-provider", ("Newsletters",)) == (
        "newsletters"
    )
    assert _purpose("Use Mailchimp.", "Mailchimp", "email-provider", ("Architecture",)) == ""
    instrumented = "The service is instrumented with Datadog's `dd-trace-go`."
    assert purpose_key("observability", _purpose(instrumented, "Datadog", "observability")) == (
        "kind:tracing"
    )


@pytest.mark.parametrize(
    "sentence",
    [
        # a subject is as often a topic as a purpose: alone, it needs a purpose the role knows
        "Booking times are handled with Day.js.",
        "Caching uses Redis via `ioredis`.",
        # a rule for everything the role does
        "Send all email through Postmark.",
        # a reason, not a purpose
        "Use pnpm for speed.",
    ],
)
def test_hard_negatives_no_purpose(sentence: str) -> None:
    value = next(v for v in ("Day.js", "Redis", "Postmark", "pnpm") if v in sentence)
    dimension = {
        "Day.js": "date-library",
        "Redis": "cache-store",
        "Postmark": "email-provider",
        "pnpm": "package-manager",
    }[value]
    assert purpose_key(dimension, _purpose(sentence, value, dimension)) == ""


def test_purposes_are_compared_as_the_roles_known_purposes_or_as_words() -> None:
    transactional = purpose_key("email-provider", "transactional mail")
    assert transactional == purpose_key("email-provider", "receipts and dunning reminders")
    assert transactional != purpose_key("email-provider", "marketing newsletters")
    # the role's own name and "all …" are no limit
    assert purpose_key("email-provider", "all email") == ""
    assert purpose_key("orm-dotnet", "data access") == ""
    assert purpose_key("payment-provider", "every payment") == ""
    # words in common meet, others do not
    assert purposes_meet(
        purpose_key("cache-store", "session storage"), purpose_key("cache-store", "sessions")
    )
    assert not purposes_meet(
        purpose_key("cache-store", "session storage"), purpose_key("cache-store", "rate limits")
    )
    assert purposes_meet("", "kind:marketing")


# --- conflicts ------------------------------------------------------------------------------


def test_two_providers_for_two_purposes_do_not_conflict() -> None:
    text = (
        "- Transactional mail goes out through Postmark via `postmark-rails`.\n"
        "- Marketing newsletters are sent from Mailchimp campaigns, never from the app.\n"
    )
    assert find_conflicts([(ROOT, text)]) == []
    [pair] = scoped_pairs([(ROOT, text)])
    assert (pair.dimension, pair.reason) == ("email-provider", "purposes")


def test_money_in_and_money_out_do_not_conflict() -> None:
    text = (
        "- Card payments for ticket orders go through Stripe (Payment Intents).\n"
        "- Organiser payouts are made with Wise Business transfers, not Stripe Connect.\n"
    )
    assert find_conflicts([(ROOT, text)]) == []


def test_metrics_and_tracing_vendors_do_not_conflict() -> None:
    chain = [
        (ROOT, "- Metrics are Prometheus counters exposed on `:9090/metrics`.\n"),
        (PKG, "- This service is instrumented with Datadog's `dd-trace-go` for APM.\n"),
    ]
    assert find_conflicts(chain) == []


@pytest.mark.parametrize(
    "chain",
    [
        # a rule for all email covers the transactional mail
        [
            (ROOT, "- Send all email through Postmark.\n"),
            (PKG, "- Use SendGrid for transactional mail.\n"),
        ],
        # the same purpose in other words
        [
            (ROOT, "- Use Mailgun for password resets.\n"),
            (PKG, "- Password-reset mail goes through Postmark.\n"),
        ],
        # receipts are transactional mail
        [
            (ROOT, "- Transactional mail goes out through Postmark.\n"),
            (PKG, "- Receipts and dunning reminders are delivered with SendGrid.\n"),
        ],
        # no purpose on one side: the rule holds for every purpose
        [(ROOT, "- Use Postmark.\n"), (PKG, "- Use SendGrid for transactional mail.\n")],
        # every payment
        [(ROOT, "- Every payment goes through Stripe.\n"), (PKG, "- Payouts go through Adyen.\n")],
        # metrics against metrics
        [
            (ROOT, "- Metrics go to Datadog through the DogStatsD agent.\n"),
            (PKG, "- Expose metrics on `/metrics` in Prometheus format.\n"),
        ],
    ],
)
def test_hard_negatives_real_conflicts_stay_reported(chain: list[tuple[str, str]]) -> None:
    assert _rules(chain) == [CONFLICT]


def test_the_same_purpose_in_one_file_still_conflicts() -> None:
    text = "- Use Mailgun for password resets.\n- Password-reset mail goes through Postmark.\n"
    assert _rules([(ROOT, text)]) == [CONFLICT_IN_FILE]


# --- a value the earlier file allows for a purpose --------------------------------------------

_EF_CORE = (
    "- Data access uses Entity Framework Core 8.\n"
    "- Dapper may be used for read-only reporting queries where EF's SQL is too slow.\n"
)


def test_a_value_the_earlier_file_allows_for_the_same_purpose_is_no_conflict() -> None:
    chain = [
        (ROOT, _EF_CORE),
        (PKG, "- The monthly statement report queries through Dapper.\n"),
    ]
    assert find_conflicts(chain) == []


@pytest.mark.parametrize(
    "later",
    [
        # the allowance is for reports, not for every use
        "- Use Dapper for the write path.\n",
        # no purpose: Dapper for everything
        "- Use Dapper for all data access.\n",
        "- Query the database through Dapper.\n",
    ],
)
def test_hard_negatives_an_allowance_holds_only_for_its_purpose(later: str) -> None:
    assert _rules([(ROOT, _EF_CORE), (PKG, later)]) == [CONFLICT]


def test_hard_negative_without_the_allowance_the_report_still_conflicts() -> None:
    chain = [
        (ROOT, "- Data access uses Entity Framework Core 8.\n"),
        (PKG, "- The monthly statement report queries through Dapper.\n"),
    ]
    assert _rules(chain) == [CONFLICT]


def test_an_imperative_adverb_is_no_subject_that_names_a_purpose() -> None:
    """'Always use yarn for packages' is an imperative: 'Always' is not what yarn is for, so
    the rule still meets 'Use npm to install packages'."""
    assert _purpose("Always use yarn for packages.", "yarn", "package-manager") == "packages"
    assert _rules(
        [
            ("/h/agent/AGENTS.md", "# Global\n\n- Always use yarn for packages.\n"),
            ("/w/ws/AGENTS.md", "# Tools\n\n- Use npm to install packages.\n"),
        ]
    ) == [CONFLICT]
