"""What a choice is for: the purpose that travels with it.

A project may use two values of one role on purpose, each for its own job: Mailchimp for
newsletters and Postmark for transactional mail, Stripe for card payments and Wise for
payouts, Dapper for one report beside EF Core. The purpose of a choice is read from the
sentence that makes it (:func:`purpose_of`):

* a phrase after the value: "use SendGrid *for transactional mail*", "Dapper *for the monthly
  report*", "use Postmark *to send receipts*";
* the subject the sentence states the value for: "*Marketing newsletters* are sent from
  Mailchimp", "*Organiser payouts* are made with Wise, not Stripe Connect", "*Data access*
  uses EF Core", "*Metrics* are Prometheus counters";
* a label: "*Newsletters*: Mailchimp";
* else the nearest heading, when it names one of the role's purposes ("## Newsletters").

Two purposes are compared as words (:func:`purpose_key`, :func:`purposes_meet`): a purpose
that names one of the role's known purposes (catalogue key ``purposes``: "receipts" and
"password resets" are transactional mail) is that purpose; any other is its content words,
less the words of the role's own name ("data access" for the .NET data access role, "email"
for the email provider: those name the whole role). A purpose that covers everything ("all
email", "every payment"), or one that only names the role, is no limit: it meets every
purpose, as does a choice with no purpose. Two known purposes meet when they are the same;
two sets of words when they share one ("password resets" / "password-reset mail"); a known
purpose and words that name none of its words do not meet. Tier 1 compares only choices
whose purposes meet; the others are left to the judge (:func:`pi_lsp.lint.scopes.declined_reason`
says ``"purposes"``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import islice

from pi_lsp.lint import vocabulary


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'\u2019]*+")
#: where a phrase after a value ends
_PHRASE_END = re.compile(r"[.;:,()!?\u2014\u2013`*\"]|\s-\s")
#: how far after a value its purpose phrase may begin (in words) and how long it may be
_PURPOSE_REACH = 4
_PURPOSE_WORDS = 6
#: how long a subject or a label may be (in words)
_SUBJECT_WORDS = 6
#: words of a sentence read for a purpose it names, and for a word that makes a rule cover
#: everything ("all email")
_SENTENCE_WORDS = 40
_UNIVERSAL_WORDS = 80
#: how far into a sentence a value may stand and still have a subject before its verb
_SUBJECT_REACH = 320
_LABEL = re.compile(r"^[^\w]*+([^:\n]{1,40}+):\s")

#: words that end a purpose phrase: a reason, a condition, a means
_PHRASE_STOP = _word_set(
    "because so since when whenever while where which that unless except if but via with "
    "through using by instead rather than not never"
)
#: what "for …" names when it is not a purpose ("for now", "for example", "for speed")
_NOT_A_PURPOSE = _word_set(
    "now example instance reference details more consistency speed performance simplicity "
    "safety reproducibility historical compatibility reasons reason convenience clarity "
    "readability this that it them you us local development dev production prod ci"
)
#: what "to" is followed by when it names a target, not a purpose ("to the collector")
_DETERMINERS = _word_set("the a an this that these those it its our your their them his her my")
#: subjects that name a place or a person, not a purpose ("This service is instrumented …")
_NOT_A_SUBJECT = _word_set(
    "we you i it they he she this that these those there here everything everyone nobody "
    "service services package packages app apps project projects repo repository module "
    "modules engine engines crate crates folder directory codebase team code"
)
#: words that open an imperative, not a subject ("Always use yarn", "Please use npm")
_LEADING_ADVERBS = _word_set(
    "always never only please just also then so and but must should you we instead strictly"
)
#: verbs that take the purpose as subject and the value after ("Data access uses EF Core",
#: "Transactional mail goes out through Postmark", "The report queries through Dapper")
_SUBJECT_VERBS = _word_set("go goes flow flows query queries use uses run runs happen happens")
#: copulas, before a participle ("are sent from Mailchimp") or the value ("are Prometheus
#: counters")
_COPULAS = _word_set("is are get gets")
_PARTICIPLES = _word_set("sent made done run built written kept held paid")
#: words between a copula and its participle ("are always sent", "goes out through")
_ADVERBS = _word_set("out all always only also usually then")
#: quantifiers that make a purpose cover everything ("all email", "every payment")
_UNIVERSAL = _word_set("all every any each everything")
#: words that carry no purpose
_FILLER = _word_set(
    "the a an of and or in on for to from our your its their all any every each new send "
    "sent sending deliver delivered process processed handle handled make made use used "
    "go goes out through via with by is are be"
)


def _words(text: str, limit: int | None = None) -> list[re.Match[str]]:
    """The words of ``text``; with ``limit``, only the first ``limit`` of them, read no
    further (every choice of a sentence asks, so a whole long sentence each time would be
    quadratic in it)."""
    return list(islice(_WORD.finditer(text), limit))


def _trailing(sentence: str, end: int) -> str:
    """The purpose phrase right after a value ("… SendGrid for transactional mail")."""
    tail = sentence[end : end + 160]
    stop = _PHRASE_END.search(tail)
    if stop is not None:
        tail = tail[: stop.start()]
    words = [m.group().lower() for m in _words(tail)]
    for at, word in enumerate(words[:_PURPOSE_REACH]):
        if word in _PHRASE_STOP:
            return ""
        if word not in ("for", "to") or at + 1 >= len(words):
            continue
        following = words[at + 1]
        if word == "for" and following in _NOT_A_PURPOSE:
            return ""
        if word == "to" and following in _DETERMINERS:
            return ""
        phrase: list[str] = []
        for other in words[at + 1 : at + 1 + _PURPOSE_WORDS]:
            if other in _PHRASE_STOP:
                break
            phrase.append(other)
        return " ".join(phrase)
    return ""


def _subject(sentence: str, start: int) -> str:
    """The subject a sentence states a value for: the words before its verb ("Marketing
    newsletters are sent from Mailchimp"), when the value comes after the verb in the same
    clause."""
    if start > _SUBJECT_REACH:
        return ""  # a subject of at most six words and a verb stand near the value
    words = _words(sentence[:start])
    for at, match in enumerate(words[: _SUBJECT_WORDS + 1]):
        word = match.group().lower()
        verb_end = 0
        if at and word in _SUBJECT_VERBS:
            verb_end = match.end()
        elif at and word in _COPULAS:
            rest = [m for m in words[at + 1 : at + 4] if m.group().lower() not in _ADVERBS]
            if rest and rest[0].group().lower() in _PARTICIPLES | _ed_word(rest[0].group()):
                verb_end = rest[0].end()
            elif not [m for m in words[at + 1 :] if m.group().lower() not in ("the", "a", "an")]:
                # the value itself follows the copula: "Metrics are Prometheus counters"
                verb_end = match.end()
        if not verb_end:
            continue
        between = sentence[verb_end:start]
        if any(mark in between for mark in ";\u2014\u2013") or len(between) > 60:
            return ""
        subject = [m.group().lower() for m in words[:at]]
        while subject and subject[0] in _LEADING_ADVERBS:
            subject = subject[1:]  # "Always use yarn": an imperative, no subject
        if not subject:
            return ""
        if subject[0] in _NOT_A_SUBJECT or any(w in _NOT_A_SUBJECT for w in subject[-1:]):
            return ""
        return " ".join(subject)
    return ""


def _ed_word(word: str) -> frozenset[str]:
    """``word`` as a participle when it looks like one ("delivered", "handled")."""
    lowered = word.lower()
    return frozenset({lowered}) if lowered.endswith("ed") and len(lowered) > 4 else frozenset()


def _label(sentence: str, start: int) -> str:
    """The label a value stands after ("Newsletters: Mailchimp")."""
    match = _LABEL.match(sentence)
    if match is None or match.end() > start:
        return ""
    words = [m.group().lower() for m in _words(match.group(1))]
    return " ".join(words) if 0 < len(words) <= 4 else ""


def purpose_of(
    sentence: str, start: int, end: int, heading: tuple[str, ...] = (), dimension: str = ""
) -> str:
    """The purpose of the value of ``dimension`` at ``start``–``end`` of ``sentence`` (see the
    module documentation), lowercased; "" for none."""
    label, trailing = _label(sentence, start), _trailing(sentence, end)
    subject = "" if label else _subject(sentence, start)
    if label or trailing:
        return " ".join(part for part in (label or subject, trailing) if part)
    words = [m.group().lower() for m in _words(sentence, _UNIVERSAL_WORDS)]
    if any(w in _UNIVERSAL for w in words):
        # "Send all email through Postmark": a rule for everything the role does
        return ""
    # a subject is as often the topic of a rule as its purpose ("Booking times are handled
    # with Day.js"), a heading as often a topic ("## Architecture"), and a sentence's words
    # are what it is about ("instrumented with `dd-trace-go`" is about tracing): each counts
    # only when it names a purpose the role knows
    title = [m.group().lower() for m in _words(heading[-1])] if heading else []
    for text in (subject, " ".join(title[:4]), " ".join(words[:_SENTENCE_WORDS])):
        if text and _kinds(dimension, text):
            return text
    return ""


def _kinds(dimension: str, text: str) -> list[str]:
    """The purposes of ``dimension``'s role that ``text`` names."""
    known = vocabulary.current().by_name.get(dimension)
    if known is None or not known.purposes:
        return []
    padded = " " + " ".join(m.group().lower() for m in _words(_plain_words(text)))
    return [kind for kind, names in known.purposes if any(f" {n}" in padded for n in names)]


def _plain_words(text: str) -> str:
    return text.replace("-", " ").replace("_", " ").replace("/", " ")


def _stem(word: str) -> str:
    word = word.replace("\u2019", "'").removesuffix("'s")
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=4096)
def purpose_key(dimension: str, purpose: str, catalogue: str = "") -> str:
    """What a purpose is compared as on ``dimension``: ``"kind:<name>"`` for a purpose the
    role knows, ``"words:<stems>"`` for other words, "" for no limit (no purpose, one that
    covers everything or only names the role). ``catalogue`` keys the cache."""
    del catalogue
    words = [m.group().lower() for m in _words(_plain_words(purpose))]
    if not words or words[0] in _UNIVERSAL or "everything" in words or "anything" in words:
        return ""
    kinds = _kinds(dimension, purpose)
    if len(kinds) == 1:
        return f"kind:{kinds[0]}"
    if kinds:
        # several purposes at once: no limit
        return ""
    known = vocabulary.current().by_name.get(dimension)
    role_words = {
        _stem(m.group().lower()) for m in _words(known.label if known is not None else dimension)
    }
    stems = sorted({_stem(w) for w in words if w not in _FILLER} - role_words)
    return "words:" + " ".join(stems) if stems else ""


def purposes_meet(a: str, b: str) -> bool:
    """Whether choices with purpose keys ``a`` and ``b`` (:func:`purpose_key`) are for the
    same thing: the same key, no limit on a side, or words in common."""
    if not a or not b or a == b:
        return True
    if a.startswith("words:") and b.startswith("words:"):
        return bool(set(a[6:].split()) & set(b[6:].split()))
    return False
