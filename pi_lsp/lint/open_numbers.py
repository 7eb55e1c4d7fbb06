"""Numbers whose subject no catalogue role names: an *open setting* is a number with its unit
(a duration, a size, a percentage, a rate, or a count of a counted noun: "3 retries", "24
results per page") stated in a rule, read together with

- its *subject*: the head noun of the setting and the words that qualify it before the head
  ("peak GPU **memory**", "the **heap** budget", "`limit`", a key in code: `maxColumn = 120`),
  lemmatised (:mod:`.stems`); a verb that names the setting gives its head too ("requests
  **time out** after 10 s", "a failed record is **retried** 3 times");
- for a count, its *owner*: the thing whose count it is ("**PRs** under 400 lines");
- its *qualifiers*: the "per …" and "for …" phrases after it ("per process", "for tiles");
- its *kind*: a maximum ("up to", "under", "at most", a limit, budget, cap or timeout), a
  minimum ("at least") or a value (an exact number or a default).

Two open settings contradict (:func:`settings_conflict`) only when they are confidently of one
subject: the same unit dimension and head, the same qualifying words (neutral ones like
"peak" or "total" aside: "connect timeout" and "read timeout" are two settings), owners that
agree when both name one, no "per" or "for" phrase that names something else on each side
("per partner" / "per process"), and values that exclude each other: two different values
of one kind, a value above a maximum or below a minimum, a maximum below a minimum. A number
that is one end of a range with a unit ("4–5 seconds"; plain ranges are read below), a
reference ("step 4", "port 8080"), a description ("usually
takes about 8 s"), part of an example or of a story ("we once raised it to 5"), or inside a
condition ("if a job takes 10 minutes") sets nothing. A bare number without a unit or a
counted noun is read only as the value of a setting written as code (`limit` up to 100,
`maxColumn = 100`, `timeout-minutes`, 30 at most: the key's last word is its unit) or of a
setting whose value is a bare number by itself ("Seed: 1234").

A range of two plain numbers ("300–500 words", "2-4 hours") sets a minimum and a maximum
that meet only the other side's opposite bound: 300–500 words contradicts "under 150
words", not "under 400 words" nor "400 words". A setting stated under a condition narrower
than its subject ("for anything touching the ingestion path", "in the nightly pipeline",
"for docs-only PRs", "when …") meets a setting without one only when that one speaks of
every one of its subject ("every reply", "no task", "all jobs"); such a side also covers a
narrower owner of the same head ("every reply" covers "a detailed answer").
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache

from pi_lsp.lint.catalogue import UNITS
from pi_lsp.lint.numbers import (
    WORD_NUMBERS,
    amount,
    described,
    in_range,
    key_words,
    names_a_thing,
    show,
    stated_kind,
)
from pi_lsp.lint.stems import lemma

MAXIMUM, MINIMUM, VALUE = "maximum", "minimum", "value"


@dataclass(frozen=True, slots=True)
class OpenSetting:
    """One number of a rule with its subject (see the module's docstring)."""

    #: "duration", "size", "percent", "rate" (per second) or "count"; a count per a unit
    #: noun reads "count per page"
    dimension: str
    #: the number in its dimension's base unit
    amount: float
    kind: str
    #: the head noun's stem ("memori", "timeout", "attempt", "column")
    head: str
    #: the stems of the words that qualify the head, neutral ones left out
    modifiers: frozenset[str]
    #: the owner's head and modifiers, for a count ("pr", "function"), "" when none is named
    owner: str
    #: preposition ("per", "for") -> the stems of the phrase it opens
    qualifiers: tuple[tuple[str, frozenset[str]], ...]
    #: offsets of the number in the instruction's text
    start: int
    end: int
    #: the words the setting is stated in: its clause up to the first "and" or comma after
    #: it (where a layer or an environment it is for is named: "locally", "at the CDN")
    context: str = ""
    #: the owner's head noun alone, by its canonical name ("reply" for "a detailed answer")
    owner_head: str = ""
    #: the setting is stated of every one of its subject ("every reply", "no task", "all
    #: jobs"), so it holds under any narrower condition too
    universal: bool = False
    #: the setting holds under a condition narrower than its subject ("for anything touching
    #: the ingestion path", "in the nightly pipeline", "on release branches")
    narrowed: bool = False
    #: one end of a range ("300–500 words"): a minimum or a maximum that another bound of
    #: the same kind does not contradict
    ranged: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.dimension, self.head)

    def shown(self) -> str:
        """The value as a reader sees it, with its kind ("at most 48 KB", "24")."""
        dimension = "count" if self.dimension.startswith("count") else self.dimension
        rate = dimension == "rate"
        value = f"{_plain(self.amount)}/s" if rate else show(self.amount, dimension)
        if self.dimension.startswith("count per "):
            value += f" {self.dimension[len('count ') :]}"
        prefix = {MAXIMUM: "at most ", MINIMUM: "at least "}.get(self.kind, "")
        return prefix + value


def _plain(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- what is read -----------------------------------------------------------------------

_WORD_NUMBER = "|".join(sorted(WORD_NUMBERS, key=len, reverse=True))
#: a number that stands alone: not part of a version, a date, a path, a port, a name
_NUMBER = re.compile(
    r"(?<![\w.,:/#@$\\-])(?:\d{1,3}+(?:[_,]\d{3})++|\d{1,9}+(?:\.\d{1,3}+)?+)"
    r"(?![\d_]|,\d|[.:/-]\d|\.[a-z])"
    rf"|\b(?:{_WORD_NUMBER})\b"
)


def _unit_words() -> dict[str, tuple[str, str]]:
    """unit word -> (dimension, unit word as :func:`amount` takes it)"""
    out: dict[str, tuple[str, str]] = {}
    for _, (dimension, _, words) in UNITS.items():
        for word in words:
            if word != "k":  # "10k requests" is a count, not 10 KB
                out[word] = (dimension, word)
    return out


_UNITS = _unit_words()
_UNIT_AFTER = re.compile(
    r"\s{0,2}+(?P<unit>"
    + "|".join(re.escape(w) for w in sorted(_UNITS, key=len, reverse=True))
    + r")(?![\w%/])"
)
#: a rate: requests (calls, messages, events) per second or minute
_RATE_AFTER = re.compile(
    r"\s?+(?:(?:req|reqs|requests?+|calls?+|messages?+|events?+|queries|jobs?+)"
    r"(?:\s*+/\s*+|\s++per\s++|\s++an?\s++)(?P<per>s|sec|second|m|min|minute|h|hour)\b"
    r"|(?P<rps>rps|qps)\b)"
)
_RATE_SECONDS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0}
_RATE_SECONDS |= {"h": 3600.0, "hour": 3600.0}
#: the word after a number, maybe after an adjective ("two approving reviews")
_WORD_AFTER = re.compile(r"\s++(?:(?P<adjective>[a-z]{2,20}(?:ing|ed))\s++)?+(?P<noun>[a-z]++)\b")
#: "per page", "to a page", "a page": what a count is counted per
_PER_AFTER = re.compile(r"\s++(?:per|to\s++an?+|an?+)\s++(?P<per>[a-z]++)\b")
#: the nouns a count counts, by their stems' canonical name
_COUNTED = {
    "attempt": "attempt",
    "retri": "attempt",
    "tri": "attempt",
    "request": "request",
    "result": "result",
    "item": "item",
    "record": "record",
    "row": "row",
    "entri": "entry",
    "approv": "approval",
    "review": "approval",
    "reviewer": "reviewer",
    "column": "column",
    "charact": "character",
    "char": "character",
    "word": "word",
    "line": "line",
    "worker": "worker",
    "thread": "thread",
    "replica": "replica",
    "connect": "connection",
}
#: owners that are one thing by other names: a reply to the user is an answer or a response
_OWNER_NAMES = {"answer": "repli", "respons": "repli", "repli": "repli"}
#: what a count per a noun may be counted per
_PER_NOUNS = frozenset({"page", "batch", "request", "call", "run", "pr", "commit", "file"})
#: verbs whose number is the setting they name ("is retried 3 times", "time out after 10 s")
_VERB_HEADS = {"retri": "attempt", "expir": "expiry"}
_TIME_OUT = re.compile(r"\b(?:time[sd]?+|timing)\s++out\b")
#: nouns that say a setting is a bound rather than what it is about ("heap budget", "memory
#: limit"); a head that is one of them, or one of the heads after, is a maximum
_BOUND_NOUNS = frozenset(
    lemma(w) for w in ("limit", "budget", "cap", "ceiling", "quota", "maximum", "max")
)
_MAXIMUM_HEADS = frozenset({"timeout", "attempt", "expiry"}) | _BOUND_NOUNS
_KIND_NOUNS = _BOUND_NOUNS | frozenset(lemma(w) for w in ("minimum", "min", "default"))
#: qualifying words that name no other thing
_NEUTRAL = frozenset(
    lemma(w)
    for w in (
        "peak",
        "total",
        "overall",
        "whole",
        "entire",
        "own",
        "same",
        "current",
        "combined",
        "configured",
        "allowed",
        "usage",
        "use",
        "size",
    )
)
#: words that end a noun phrase read backwards or forwards from a number
_FUNCTION = _word_set(
    """a an the its their our your my his her this that these those each every all any some no
    and or but nor so because since which who whom whose if when whenever unless while then
    than it they we you i he she them us me is are was were be been being am has have had do
    does did must should may might can could will would shall not never always only also just
    up to at in on by with from into onto as about after before under below over above within
    between per for of like via through without across around more less most least fewer
    keep keeps kept use uses using set sets allow allows accept accepts get gets give gives
    take takes run runs make makes need needs stay stays hold holds go goes return returns
    send sends reach reaches let lets ensure limit limits cap caps poll polls call calls
    expect expects require requires support supports fit fits here there now today
    default defaults maximum minimum max min"""
)
#: between a setting's name and its number: a copula, a preposition, a kind word, a dash
_CONNECTORS = _word_set(
    """is are be stays remains equals of at to after in within under below than less fewer
    no not more most up least limited capped set gets default defaults maximum max minimum
    min default: = : - \u2014 \u2013 ( of exactly precisely"""
)
#: a sentence that tells an example or a story, or asks something, sets nothing
_NARRATIVE = re.compile(
    r"\b(?:e\.g\.|e\.g\b|i\.e\.|for\s++example|for\s++instance|such\s++as|once|ago|"
    r"last\s++(?:year|month|week|quarter|time)|yesterday|in\s++the\s++past)|\?\s*+$",
    re.IGNORECASE,
)
#: a clause opened by these words is a condition: its numbers set nothing
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|until|while)\b")
#: words that state a setting of every one of its subject ("every job", "no task may")
_UNIVERSAL = re.compile(
    r"\b(?:every|all|each|always|never)\b|"
    r"\bno\s++(?!(?:more|less|fewer|longer|shorter|later|larger|bigger|higher|greater|"
    r"than|one)\b)[a-z]"
)
#: a condition narrower than the subject, anywhere in the sentence: "for anything touching
#: the ingestion path", "for docs-only PRs", "in the nightly pipeline", "on release
#: branches", "when running locally"
_NARROWING = re.compile(
    r"\bfor\s++(?:anything|everything|any\s++[a-z-]++|changes?+|code|work|files?+)\s++"
    r"(?:that\s++)?+(?:touch|chang|modif|affect)"
    r"|\b(?:for|in|on)\s++(?:the\s++)?+(?!(?:every|all|each|any|no|this|our|your|a|an|one|single|its|their)\b)"
    r"[a-z][\w-]{1,30}+\s++(?:prs?+|pull\s++requests?+|pipelines?+|branch(?:es)?+|builds?+|"
    r"jobs?+|releases?+|commits?+)\b"
    r"|\bfor\s++(?:the\s++)?+(?!(?:every|all|each|any|no|this|our|your|a|an|one|single|its|their)\b)"
    r"[a-z][\w-]{1,30}+\s++runs?+\b"
    r"|\b(?:if|when|whenever|unless|while)\b"
)
#: "under 64 KB", "less than 10 s": a maximum; "more than", "over": too loose to read
_UNDER_BEFORE = re.compile(
    r"\b(?:under|below|less\s++than|fewer\s++than|lower\s++than|shorter\s++than|"
    r"smaller\s++than|not\s++(?:exceed|go\s++over|go\s++above)|never\s++exceed)\s*+$"
)
_OVER_BEFORE = re.compile(
    r"\b(?:over|above|more\s++than|greater\s++than|longer\s++than|larger\s++than|"
    r"exceeds?+|exceeding)\s*+$"
)
_CODE = re.compile(r"`[^`\n]{1,160}+`")
_NUMBER_CODE = re.compile(r"`(\d[\d_,.]{0,15}+)`")
_TOKEN = re.compile(r"`[^`\n]{1,160}+`|[a-z][a-z0-9]*+(?:['-][a-z0-9]++)*+|\d[\w.,]*+|[^\s\w`]")
#: a clause ends at these marks (a sentence end, a semicolon, a line or table cell)
_CLAUSE_END = re.compile(r"[;|\n]|\.(?:\s|$)|,\s++(?:because|so|which|since|but|and\s++then)\b")
_CONTEXT_END = re.compile(r",|\band\b|\bbut\b")
#: a setting in code: a key, "=" or ":", a number with an optional unit
_KEYED = re.compile(
    r"(?<![\w.-])(?P<key>[A-Za-z][\w.-]{0,48}+)[\"']?+\s*+[:=]\s*+[\"']?+"
    r"(?P<number>\d{1,3}+(?:[_,]\d{3})++|\d{1,9}+(?:\.\d++)?+)"
    r"(?P<unit>ms|kib|mib|gib|kb|mb|gb|s|m|h|%)?+(?![\w.])",
)
#: words of a key that name a thing, not a setting's size (`port = 8080`, `version: 3`)
_NAMING_KEYS = _word_set(
    """port ports version versions id ids seed year month day date pid uid gid code status
    index exit level sdk api target release tag build revision rev major minor patch"""
)
_KEY_UNITS = {
    "ms": "ms",
    "millis": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "mins": "min",
    "minutes": "min",
    "hours": "h",
    "days": "d",
    "bytes": "b",
    "kb": "kb",
    "mb": "mb",
    "gb": "gb",
    "pct": "%",
    "percent": "%",
}
_KEY_KINDS = {"max": MAXIMUM, "maximum": MAXIMUM, "min": MINIMUM, "minimum": MINIMUM}
_KEY_KINDS |= {"default": VALUE}


def _lower(text: str) -> str:
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


#: how far from a number its clause is read, each way: a long clause without a break costs
#: no more per number than a short one
_REACH = 160


def _clause_bounds(
    ends: list[tuple[int, int]], starts: list[int], size: int, start: int, end: int
) -> tuple[int, int]:
    """Where the clause around ``start:end`` begins and ends (``ends``: the clause ends of
    the text in order, ``starts`` their starts), within :data:`_REACH` of the number."""
    k = bisect_left(starts, start)
    begin = ends[k - 1][1] if k > 0 and ends[k - 1][1] <= start else 0
    while k < len(ends) and ends[k][0] < end:
        k += 1
    stop = ends[k][0] if k < len(ends) else size
    return max(begin, start - _REACH), min(stop, end + _REACH)


def _words(code_or_word: str) -> list[str]:
    """A token's words: a code span's key words (`maxColumn` reads "max", "column")."""
    if code_or_word.startswith("`"):
        return key_words(code_or_word.strip("`").rsplit(".", 1)[-1])
    return [code_or_word]


@dataclass(slots=True)
class _Phrase:
    words: list[str]
    code: bool = False
    verb_head: str = ""
    qualifiers: dict[str, frozenset[str]] | None = None
    #: the phrase is opened by "every", "all", "each", "any" or "no"
    quantified: bool = False


#: the words that open a phrase naming every one of its kind
_QUANTIFIERS = frozenset({"every", "all", "each", "any", "no"})
_LABEL_MARKS = frozenset({":", "\u2014", "\u2013", "-", "="})
#: words after a clause's first word that make it a subject, not an imperative's verb
_SUBJECT_AFTER = _word_set("is are stays stay remains remain must should may can will")


def _participle(token: str) -> bool:
    """ "retried", "paginated", "capped": a verb's participle between a name and a number."""
    return len(token) > 4 and token.endswith("ed") and token not in _FUNCTION


def _phrase_before(tokens: list[str], first_is_verb: bool) -> tuple[_Phrase, list[str]]:
    """The noun phrase that ends right before a number (``tokens`` are the clause's tokens
    before it), skipping the connectors between them; the participles skipped ("retried",
    "paginated") come back as the second item."""
    k = len(tokens) - 1
    skipped: list[str] = []
    while k >= 0 and (tokens[k] in _CONNECTORS or _participle(tokens[k])):
        if _participle(tokens[k]):
            skipped.append(tokens[k])
        k -= 1
    phrase = _Phrase([])
    qualifiers: dict[str, frozenset[str]] = {}
    collected: list[str] = []
    while k >= 0:
        token = tokens[k]
        if token in ("for", "per") and collected and not qualifiers:
            qualifiers[token] = frozenset(lemma(w) for w in collected)
            collected = []
            k -= 1
            continue
        if token in _FUNCTION or not (token[0].isalpha() or token.startswith("`")):
            phrase.quantified = token in _QUANTIFIERS
            break
        named = len(tokens) > 1 and (tokens[1] in _LABEL_MARKS or tokens[1] in _SUBJECT_AFTER)
        if k == 0 and first_is_verb and not named and not token.startswith("`"):
            # "Keep peak GPU memory under 20 GB", "Wait 5 s": an imperative's verb; a label
            # ("Timeout — 30 s") or a subject ("Orders are listed 25 to a page") names it
            break
        collected.append(token)
        phrase.code = phrase.code or token.startswith("`")
        k -= 1
        if len(collected) >= 5:
            break
    collected.reverse()
    text = " ".join(collected)
    if _TIME_OUT.search(text) or (collected and lemma(collected[-1]) in _VERB_HEADS):
        # "requests time out after 10 s": the verb names the setting, what comes before it
        # is its subject's owner
        last = lemma(collected[-1]) if collected else ""
        timing_out = _TIME_OUT.search(text) is not None
        phrase.verb_head = "timeout" if timing_out else _VERB_HEADS[last]
        collected = collected[: -2 if timing_out else -1]
    phrase.words = [w for token in collected for w in _words(token)]
    phrase.qualifiers = qualifiers
    return phrase, skipped


def _phrase_after(tokens: list[str]) -> tuple[list[str], dict[str, frozenset[str]]]:
    """The words of the noun phrase right after a number's unit ("512 MiB **memory limit**",
    "36 GB of **GPU memory**") and the "per" / "for" phrases after it in its clause."""
    k = 0
    if tokens[:1] == ["of"]:
        k = 1
    words: list[str] = []
    while k < len(tokens) and len(words) < 3:
        token = tokens[k]
        bound = lemma(token) in _BOUND_NOUNS  # "a 512 MiB memory limit"
        if not bound and (token in _FUNCTION or not (token[0].isalpha() or token[0] == "`")):
            break
        words.extend(_words(token))
        k += 1
    qualifiers: dict[str, set[str]] = {}
    while k < len(tokens):
        token = tokens[k]
        k += 1
        if token not in ("per", "for"):
            continue
        phrase: set[str] = set()
        while k < len(tokens) and len(phrase) < 3:
            word = tokens[k]
            if word in ("a", "an", "the", "each", "every", "this", "that", "its"):
                k += 1
                continue
            if word in _FUNCTION or not word[0].isalpha():
                break
            phrase.add(lemma(word))
            k += 1
        if phrase:
            qualifiers.setdefault(token, set()).update(phrase)
    return words, {p: frozenset(ws) for p, ws in qualifiers.items()}


def _subject(words: list[str], code: bool = False) -> tuple[str, frozenset[str], bool]:
    """A phrase's head stem, its qualifying stems and whether it names a bound. A name in
    code is the setting's own name, kind words included (`limit`)."""
    stems = [lemma(w) for w in words]
    bound = any(s in _BOUND_NOUNS for s in stems)
    content = [s for s in stems if s not in _KIND_NOUNS and s not in _NEUTRAL]
    if not content and code and stems:
        return stems[-1], frozenset(stems[:-1]), bound
    if not content:
        return "", frozenset(), bound
    return content[-1], frozenset(content[:-1]), bound


def _kind(low: str, start: int, end: int, head: str, bound: bool) -> str | None:
    """The kind stated around a number; ``None`` when it is too loose to read ("more than")."""
    stated = stated_kind(low, start, end)
    window = low[max(0, start - 24) : start]
    if stated is None and _UNDER_BEFORE.search(window):
        stated = MAXIMUM
    elif stated is None and _OVER_BEFORE.search(window):
        return None
    if stated in (MAXIMUM, MINIMUM):
        return stated
    if bound or head in _MAXIMUM_HEADS:
        return MAXIMUM
    return VALUE


def _prose_settings(low: str, directive: bool) -> list[OpenSetting]:
    code_spans = [m.span() for m in _CODE.finditer(low)]
    code_starts = [s for s, _ in code_spans]
    ends = [m.span() for m in _CLAUSE_END.finditer(low)]
    starts = [s for s, _ in ends]
    out: list[OpenSetting] = []
    for match in _NUMBER.finditer(low):
        start, end = match.span()
        k = bisect_right(code_starts, start)
        if k and code_spans[k - 1][0] <= start < code_spans[k - 1][1]:
            continue
        first = start
        ranged = in_range(low, start, end)
        if ranged:
            lower = _RANGE_LOW.search(low, max(0, start - 24), start)
            if lower is None:
                continue  # a range's lower end, or a range in another form
            first = lower.start()
        if names_a_thing(low, first) or described(low, first, end):
            continue
        begin, stop = _clause_bounds(ends, starts, len(low), first, end)
        if _CONDITION.search(low, begin, first):
            continue
        number = match.group()
        setting = _read_number(low, number, first, end, begin, stop, directive)
        if setting is None:
            continue
        if not ranged:
            out.append(setting)
            continue
        # "300–500 words": a minimum at the lower end and a maximum at the upper one
        high = amount(number, "", "count")
        lowest = (lower.group("low") or lower.group("between")) if lower is not None else None
        least = amount(lowest, "", "count") if lowest else None
        if not high or least is None or least >= high:
            continue
        minimum = replace(setting, amount=setting.amount * least / high, kind=MINIMUM)
        out.append(replace(minimum, ranged=True))
        out.append(replace(setting, kind=MAXIMUM, ranged=True))
    return out


#: the lower end of a range right before its upper one, in digits without a unit ("300–"
#: of "300–500 words", "10 to" of "10 to 20 retries", "between 300 and" of "between 300 and
#: 500 words")
_RANGE_LOW = re.compile(
    r"(?<![\w.,:/#@$\\-])(?P<low>\d{1,9}+)\s{0,2}+(?:\u2013|\u2014|to\b)\s{0,2}+\Z"
    r"|\bbetween\s{1,3}+(?P<between>\d{1,9}+)\s{1,3}+and\s{1,3}+\Z"
)


def _read_number(
    low: str, number: str, start: int, end: int, begin: int, stop: int, directive: bool
) -> OpenSetting | None:
    dimension, value, quantity_end = "", None, end
    counted = ""
    unit = _UNIT_AFTER.match(low, end, stop)
    rate = _RATE_AFTER.match(low, end, stop)
    if rate is not None:
        per = rate.group("per")
        seconds = _RATE_SECONDS[per] if per else 1.0
        base = amount(number, "", "count")
        dimension, quantity_end = "rate", rate.end()
        value = None if base is None else base / seconds
    elif unit is not None and not (unit.group("unit") in ("m", "k", "b") and number.isalpha()):
        dimension, unit_word = _UNITS[unit.group("unit")]
        value = amount(number, unit_word, dimension)
        quantity_end = unit.end()
    else:
        after = _WORD_AFTER.match(low, end, stop)
        if after is not None and _noun_follows(low, after.end(), stop):
            after = None  # "100 line items": the counted noun is the last of a compound
        if after is not None:
            noun = lemma(after.group("noun"))
            per = _PER_AFTER.match(low, after.end(), stop)
            if noun in _COUNTED or noun == "time":
                counted = _COUNTED.get(noun, "time")
                dimension, quantity_end = "count", after.end()
            elif (
                per is not None
                and lemma(per.group("per")) in _PER_NOUNS
                and after.group("noun") not in _FUNCTION
            ):
                # "30 orders per page": whatever is counted per page is counted
                counted, dimension, quantity_end = noun, "count", after.end()
        if not dimension:
            per = _PER_AFTER.match(low, end, stop)
            if per is not None and lemma(per.group("per")) in _PER_NOUNS:
                dimension = "count"
        if not dimension:
            timed = _unit_key_before(low, begin, start, end, stop)
            if timed is not None:
                return timed
            named = _bare_value_before(low, begin, start, end, stop)
            if named is not None:
                return named
        if dimension or _code_before(low, begin, start):
            value = amount(number, "", "count")
            dimension = dimension or "count"
    if value is None or not dimension:
        return None
    if dimension == "count":
        per = _PER_AFTER.match(low, quantity_end, stop)
        if per is not None and lemma(per.group("per")) in _PER_NOUNS:
            dimension = f"count per {lemma(per.group('per'))}"
            quantity_end = per.end()
    before = _TOKEN.findall(low, begin, start)
    after_tokens = _TOKEN.findall(low, quantity_end, stop)
    phrase, participles = _phrase_before(before, directive and not _starts_with_noun(before))
    forward, qualifiers = _phrase_after(after_tokens)
    qualifiers = {**(phrase.qualifiers or {}), **qualifiers}
    owner = owner_head = ""
    modifiers: frozenset[str]
    if counted:
        head, modifiers, bound = counted, frozenset(), False
        if counted == "time":
            # "is retried 3 times": the verb says what is counted; "3 times" alone does not
            if not any(lemma(p) in _VERB_HEADS for p in participles) and phrase.verb_head != (
                "attempt"
            ):
                return None
            head = "attempt"
        owner_head, owner_mods, _ = _subject(phrase.words)
        owner_head = _OWNER_NAMES.get(owner_head, owner_head)
        owner = " ".join(sorted(owner_mods | {owner_head})) if owner_head else ""
    else:
        head, modifiers, bound = _subject(forward)
        if not head:
            if phrase.verb_head:
                # "batch jobs time out after 60 minutes": whose timeout it is, its owner
                head, modifiers = phrase.verb_head, frozenset()
                owner_head, owner_mods, _ = _subject(phrase.words)
                owner_head = _OWNER_NAMES.get(owner_head, owner_head)
                owner = " ".join(sorted(owner_mods | {owner_head})) if owner_head else ""
            else:
                back_head, modifiers, back_bound = _subject(phrase.words, phrase.code)
                head, bound = back_head, bound or back_bound
                verbs = [_VERB_HEADS[lemma(p)] for p in participles if lemma(p) in _VERB_HEADS]
                if not head and verbs:
                    head = verbs[0]
                if dimension.startswith("count per"):
                    # "search results are paginated 20 to a page": what is counted, and its
                    # words are whose count it is
                    owner, modifiers = " ".join(sorted(modifiers)), frozenset()
        if not head:
            return None
        if dimension == "count" and not phrase.code:
            return None
    kind = _kind(low, start, quantity_end, head, bound)
    if kind is None:
        return None
    context = _context(low, begin, quantity_end, stop)
    return OpenSetting(
        dimension,
        value,
        kind,
        head,
        modifiers,
        owner,
        tuple(sorted(qualifiers.items())),
        start,
        end,
        context,
        owner_head,
        phrase.quantified or _UNIVERSAL.search(context) is not None,
    )


def _context(low: str, begin: int, end: int, stop: int) -> str:
    """The words of a setting's clause from ``begin`` to where its context ends after the
    number (``end``), at most to ``stop``: what :data:`_UNIVERSAL` and the narrowing read."""
    tail = _CONTEXT_END.search(low, end, stop)
    return low[begin : tail.start() if tail is not None else stop]


def _noun_follows(low: str, at: int, stop: int) -> bool:
    """Whether the word at ``at`` goes on a compound noun ("line **items**")."""
    following = _TOKEN.findall(low, at, min(stop, at + 40))
    return bool(following) and following[0][0].isalpha() and following[0] not in _FUNCTION


def _starts_with_noun(tokens: list[str]) -> bool:
    """Whether a clause's first word is a determiner, so not an imperative's verb."""
    return bool(tokens) and tokens[0] in ("the", "a", "an", "each", "every", "our", "all")


def _unit_key_before(low: str, begin: int, start: int, end: int, stop: int) -> OpenSetting | None:
    """A bare number after a key in code whose last word is its unit, maybe after a comma:
    "every job sets `timeout-minutes`, 30 at most" sets a timeout of 30 minutes, and
    "`cacheTtlSeconds` of 60" a TTL of 60 seconds."""
    tokens = _TOKEN.findall(low, begin, start)
    k = len(tokens) - 1
    while k >= 0 and (tokens[k] in _CONNECTORS or tokens[k] == ","):
        k -= 1
    if k < 0 or not tokens[k].startswith("`"):
        return None
    words = key_words(tokens[k].strip("`").rsplit(".", 1)[-1])
    if len(words) < 2 or words[-1] not in _KEY_UNITS or any(w in _NAMING_KEYS for w in words):
        return None
    found = _UNITS.get(_KEY_UNITS[words[-1]])
    if found is None:
        return None
    dimension, unit = found
    value = amount(low[start:end], unit, dimension)
    head, modifiers, bound = _subject(words[:-1], code=True)
    kind = _kind(low, start, end, head, bound)
    if value is None or not head or kind is None:
        return None
    context = _context(low, begin, end, stop)
    return OpenSetting(
        dimension,
        value,
        kind,
        head,
        modifiers,
        "",
        (),
        start,
        end,
        context,
        universal=_UNIVERSAL.search(context) is not None,
    )


#: settings whose value is a bare number, one per project whatever qualifies them ("the
#: global random seed is 42", "Seed: 1234"), by their stems
_BARE_VALUE_HEADS = frozenset({lemma("seed")})


def _bare_value_before(low: str, begin: int, start: int, end: int, stop: int) -> OpenSetting | None:
    """A bare number after the name of a setting whose value is a number by itself, with
    only a copula or a label mark between: "Seed: 1234", "the random seed is 42"."""
    tokens = _TOKEN.findall(low, begin, start)
    k = len(tokens) - 1
    while k >= 0 and tokens[k] in ("is", "=", ":", "of", "\u2014", "\u2013", "-", "to", "set"):
        k -= 1
    if k < 0 or k == len(tokens) - 1 or lemma(tokens[k]) not in _BARE_VALUE_HEADS:
        return None
    value = amount(low[start:end], "", "count")
    if value is None:
        return None
    context = _context(low, begin, end, stop)
    return OpenSetting(
        "count",
        value,
        VALUE,
        lemma(tokens[k]),
        frozenset(),
        "",
        (),
        start,
        end,
        context,
        universal=_UNIVERSAL.search(context) is not None,
    )


def _code_before(low: str, begin: int, start: int) -> bool:
    """Whether a code span stands right before a number, with only connectors between
    ("`limit` up to 100", "`PAGE_SIZE` of 50")."""
    tokens = _TOKEN.findall(low, begin, start)
    k = len(tokens) - 1
    while k >= 0 and tokens[k] in _CONNECTORS:
        k -= 1
    return k >= 0 and tokens[k].startswith("`")


def _keyed_settings(text: str) -> list[OpenSetting]:
    """Settings written as code inside a code span (`maxColumn = 120`, `timeoutMs: 5000`)."""
    out: list[OpenSetting] = []
    for span in _CODE.finditer(text):
        for match in _KEYED.finditer(text, span.start() + 1, span.end() - 1):
            words = key_words(match.group("key").rsplit(".", 1)[-1])
            if not words or any(w in _NAMING_KEYS for w in words):
                continue
            unit = match.group("unit") or ""
            if words[-1] in _KEY_UNITS:
                unit = unit or _KEY_UNITS[words[-1]]
                words = words[:-1]
            kind = _KEY_KINDS.get(words[0]) if words else None
            if kind is not None:
                words = words[1:]
            if not words:
                continue
            dimension = "count"
            if unit:
                found = _UNITS.get(unit.lower())
                if found is None:
                    continue
                dimension = found[0]
            head, modifiers, bound = _subject(words)
            if not head:
                continue
            if kind is None and not unit and not bound and head not in _MAXIMUM_HEADS:
                continue  # `workers: 4`, `retries: 3` name a value, but of what is unclear
            value = amount(match.group("number"), unit, dimension)
            if value is None:
                continue
            kind = kind or (MAXIMUM if bound or head in _MAXIMUM_HEADS else VALUE)
            out.append(
                OpenSetting(
                    dimension,
                    value,
                    kind,
                    head,
                    modifiers,
                    "",
                    (),
                    match.start("number"),
                    match.end("number"),
                    match.group("key"),
                )
            )
    return out


@lru_cache(maxsize=4096)
def open_settings(text: str, directive: bool = False) -> tuple[OpenSetting, ...]:
    """The open settings of one instruction's ``text`` (its Markdown, code spans included);
    ``directive`` says the sentence is an imperative, whose first word is its verb."""
    if not any(c.isdigit() for c in text) and not _WORD_NUMBER_HINT.search(text):
        return ()
    if _NARRATIVE.search(text):
        return ()
    keyed = _keyed_settings(text)
    low = _lower(text.replace("**", "  ").replace("\n", " "))
    low = _NUMBER_CODE.sub(lambda m: " " + m.group(1) + " ", low)
    low = _HYPHEN_RANGE.sub("\\1\u2013", low)  # "300-500 words" is "300–500 words"
    # a number inside a code span is read as prose only when the span is the number alone
    settings = tuple(keyed) + tuple(_prose_settings(low, directive))
    if settings and _NARROWING.search(low):
        return tuple(replace(setting, narrowed=True) for setting in settings)
    return settings


#: the hyphen of a range of two plain numbers before a word ("300-500 words", "2-4 hours"),
#: not of a date, a version or a number range in code
_HYPHEN_RANGE = re.compile(r"(?<![\w.,:/#@$\\-])(\d{1,6}+)-(?=\d{1,6}+\s{1,2}+[a-z])")


def narrowing(text: str) -> str:
    """The phrase of a condition narrower than its subject that a sentence states after
    its verb ("for docs-only prs", "in the nightly pipeline", "for anything touching"), in
    lowercase words; "" for none. Condition clauses ("when …") are left to :mod:`.scopes`."""
    low = _lower(text.replace("`", " "))
    for match in _NARROWING.finditer(low):
        if match.group(0) not in ("if", "when", "whenever", "unless", "while"):
            return " ".join(match.group(0).split())
    return ""


_WORD_NUMBER_HINT = re.compile(rf"\b(?:{_WORD_NUMBER})\b", re.IGNORECASE)


# --- when two settings contradict ---------------------------------------------------------


def _qualifiers_differ(
    a: tuple[tuple[str, frozenset[str]], ...],
    b: tuple[tuple[str, frozenset[str]], ...],
    own: frozenset[str],
) -> bool:
    there = dict(b)
    for preposition, words in a:
        other = there.get(preposition)
        if other is None:
            continue
        mine, theirs = words - own, other - own
        if mine and theirs and mine.isdisjoint(theirs):
            return True
    return False


def _owners_differ(a: OpenSetting, b: OpenSetting) -> bool:
    """Whether two settings are of different owners: "PRs under 400 lines" / "functions
    under 50 lines". A count whose owner one side leaves unsaid may be another thing's
    count, but a count per page is one setting; "every reply" is every detailed answer's."""
    if a.owner == b.owner or _owner_covers(a, b) or _owner_covers(b, a):
        return False
    return bool(a.owner and b.owner) or not a.dimension.startswith("count per")


def _owner_covers(broad: OpenSetting, narrow: OpenSetting) -> bool:
    """Whether ``broad`` is stated of every one of what ``narrow`` is stated of: "every
    reply" covers "a detailed answer", "all jobs" covers "release jobs"."""
    if not broad.universal or not broad.owner_head or broad.owner_head != narrow.owner_head:
        return False
    return set(broad.owner.split()) <= set(narrow.owner.split())


def _excludes(a: OpenSetting, b: OpenSetting) -> bool:
    """Whether two values of one subject exclude each other, by their kinds."""
    if abs(a.amount - b.amount) <= 1e-9 * max(abs(a.amount), abs(b.amount), 1.0):
        return False
    kinds = {a.kind, b.kind}
    if (a.ranged or b.ranged) and (a.kind == b.kind or VALUE in kinds):
        # a range's end is a bound only against the other side's opposite bound: 300–500
        # words and under 400 words overlap, and a range is often a typical value's spread
        return False
    if a.kind == b.kind:
        return True
    by_kind = {a.kind: a.amount, b.kind: b.amount}
    if kinds == {VALUE, MAXIMUM}:
        return by_kind[VALUE] > by_kind[MAXIMUM]
    if kinds == {VALUE, MINIMUM}:
        return by_kind[VALUE] < by_kind[MINIMUM]
    return by_kind[MAXIMUM] < by_kind[MINIMUM]


def settings_conflict(a: OpenSetting, b: OpenSetting, folders: tuple[str, ...] = ()) -> bool:
    """Whether two open settings are confidently of one subject and exclude each other.
    ``folders`` are the folders of the two files: a "for …" phrase naming one is the file's
    own subject, not another thing."""
    if a.key != b.key or a.modifiers != b.modifiers:
        return False
    if _owners_differ(a, b):
        return False
    if a.narrowed != b.narrowed and not (b if a.narrowed else a).universal:
        # "for docs-only PRs, 1 approval" meets "PRs need 2 approvals" only when the other
        # side speaks of every PR
        return False
    own = frozenset(lemma(os.path.basename(os.path.normpath(f)).lower()) for f in folders if f)
    if _qualifiers_differ(a.qualifiers, b.qualifiers, own):
        return False
    return _excludes(a, b)


def settings_may_conflict(a: OpenSetting, b: OpenSetting, folders: tuple[str, ...] = ()) -> bool:
    """Whether two open settings of one head and unit with different values may be of one
    subject, though :func:`settings_conflict` is not sure: one side names a qualifying word
    or an owner the other leaves unsaid ("requests to the billing API time out after 10 s" /
    "the timeout is 30 s"). A candidate for the model judge, never a finding."""
    if a.key != b.key or settings_conflict(a, b, folders):
        return False
    if not (a.modifiers <= b.modifiers or b.modifiers <= a.modifiers):
        return False
    if a.owner and b.owner and a.owner != b.owner:
        return False
    own = frozenset(lemma(os.path.basename(os.path.normpath(f)).lower()) for f in folders if f)
    if _qualifiers_differ(a.qualifiers, b.qualifiers, own):
        return False
    return _excludes(a, b)
