"""Numbers with their units: how a numeric setting is written, what it is about, and of which
kind it is.

A numeric role of the catalogue (:mod:`.catalogue`, kinds ``maximum`` / ``minimum`` /
``default``) names its subject three ways, all of them data:

- ``subjects``: whole phrases ("page size", "coverage threshold") read next to a number with
  its unit by the patterns of :mod:`.vocabulary`;
- ``heads`` and ``about``: the head noun of the setting ("timeout", "time out") and the words
  that say what it is about ("http", "outbound", "client" for a request timeout; "query",
  "statement" for a database one). A number with a unit next to a head belongs to the role
  whose ``about`` word is nearest; a head that no role's words qualify is nobody's setting
  ("the timeout is 30 s"), and one qualified by two roles' words at the same distance is
  ambiguous and left alone;
- ``keys``: the configuration keys whose value is the setting, in words ("page size" reads
  `PAGE_SIZE = 50`, `pageSize: 50`, `page-size=50`); a unit at the end of a key gives the
  number its unit (`timeoutMs: 30_000`), a "max" / "min" / "default" at its start its kind.

A number is written in digits with separators (`30_000`, `30,000`), with a decimal part
(`1.5s`), with a thousands suffix for counts (`10k requests per minute`), in words ("thirty
seconds", "two approvals") or as a compound duration (`2m30s`, `1h30m`); it is normalised to
its unit dimension's base unit, so 30 s and 30000 ms are one value. A number that is one end of
a range ("between 10 and 30 seconds", "4–5 hours") sets nothing.

The *kind* a sentence states ("at most", "up to", "capped at" for a maximum; "at least", "or
more" for a minimum; "default", "defaults to" for a default) decides which role a number
belongs to where one subject has both ("the default page size is 50" and "clients may ask for
up to 200 per page"): a default role takes no stated maximum or minimum, a maximum no stated
minimum, a minimum no stated maximum, and a role marked ``stated_kind`` only numbers stated
with its kind.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pi_lsp.lint.catalogue import BASE_UNIT, UNITS, Role

#: numbers written in words, as they appear with a unit ("two approvals", "thirty seconds")
WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
}
_WORDS = "|".join(sorted(WORD_NUMBERS, key=len, reverse=True))
#: a count of one said without a number: "a single approval is enough"
_SINGLE = r"(?<=\ba\s)single\b"
#: digits: grouped by "_" or "," in thousands, or plain with a decimal part
_DIGITS = r"\d{1,3}+(?:[_,]\d{3})++(?![\d_,])|\d{1,9}+(?:\.\d++)?+"
#: a compound duration's leading part ("2m" of "2m30s", "1h" of "1h30m"); the unit after
#: the trailing number is the pattern's unit
_COMPOUND = r"\d{1,3}+[hm]\d{1,2}+(?=[a-z])"


def number_pattern(dimension: str) -> str:
    """A pattern capturing one number as a setting of ``dimension`` writes it (one group)."""
    before = r"(?<![\w.,])"
    if dimension == "duration":
        return rf"{before}((?:{_COMPOUND})|(?:{_DIGITS})|\b(?:{_WORDS})\b)"
    if dimension == "count":
        return rf"{before}((?:{_DIGITS})(?:k(?=\s))?+|\b(?:{_WORDS})\b|{_SINGLE})"
    return rf"{before}((?:{_DIGITS})|\b(?:{_WORDS})\b)"


def _factor(unit: str, dimension: str) -> float | None:
    unit = unit.lower().strip()
    for _, (dim, factor, words) in UNITS.items():
        if dim == dimension and unit in words:
            return factor
    return None


def amount(number: str, unit: str, dimension: str) -> float | None:
    """The number in its dimension's base unit (seconds, bytes, percent, a count)."""
    text = number.lower().replace("_", "").replace(",", "")
    if text in WORD_NUMBERS:
        value = float(WORD_NUMBERS[text])
    elif text == "single" and dimension == "count":
        value = 1.0
    elif text.endswith("k") and dimension == "count":
        value = float(text[:-1]) * 1000
    else:
        lead = 0.0
        for mark, seconds in (("h", 3600.0), ("m", 60.0)):
            if mark in text:
                head, _, text = text.partition(mark)
                lead = float(head) * seconds
        try:
            value = float(text)
        except ValueError:
            return None
        if lead:
            factor = _factor(unit, dimension)
            return None if factor is None else lead + value * factor
    if dimension == "count":
        return value
    factor = _factor(unit, dimension)
    return None if factor is None else value * factor


def _format(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def show(base: float, dimension: str) -> str:
    """A base amount shown in the largest unit that keeps it whole (30 s, 10 MB, 50)."""
    if dimension == "count":
        return _format(base)
    candidates = sorted(
        ((f, name) for name, (dim, f, _) in UNITS.items() if dim == dimension), reverse=True
    )
    for factor, name in candidates:
        if base >= factor and abs(base / factor - round(base / factor)) < 1e-9:
            return f"{_format(round(base / factor))} {name}"
    return f"{_format(base)} {BASE_UNIT[dimension]}"


def numeric_value(number: str, unit: str, dimension: str) -> str | None:
    """A number with its unit as one comparable value ("30 s" for `30_000` ms), or ``None``
    when it is not a number of ``dimension``."""
    base = amount(number, unit, dimension)
    return None if base is None else show(base, dimension)


# --- what a time or size setting is for: a layer, an environment, a credential -------------

#: the layers and environments that keep their own time and size settings, each with the
#: words that name it: a TTL "at the CDN" is not the application's cache TTL, a "dev server"
#: timeout not the load balancer's, a timeout "in staging" not the one in production
_LAYERS: tuple[tuple[str, str], ...] = (
    (
        "cdn",
        r"cdns?+|edge\s++(?:caches?+|networks?+|functions?+|workers?+)|cloudfront|fastly|akamai",
    ),
    ("static assets", r"static\s++(?:assets?+|files?+)"),
    ("browser", r"browsers?+|client[- ]side"),
    ("load balancer", r"load[- ]balanc(?:ers?+|ing)|alb|elb"),
    ("proxy", r"(?:reverse\s++)?+prox(?:y|ies)|nginx|envoy|haproxy|traefik|ingress"),
    ("gateway", r"(?:api\s++)?+gateways?+"),
)
#: credentials with lifetimes of their own: a refresh token outlives the access token
_CREDENTIALS: tuple[tuple[str, str], ...] = (
    ("access token", r"access[- ]tokens?+"),
    ("refresh token", r"refresh[- ]tokens?+"),
    ("id token", r"id[- ]tokens?+"),
    ("api key", r"api[- ]keys?+"),
    ("link", r"(?:magic|invit(?:e|ation)|password[- ]reset|reset|sign[- ]in|download)\s++links?+"),
    ("remember me", r"remember[- ]me"),
)
_ENVIRONMENTS: tuple[tuple[str, str], ...] = (
    (
        "local",
        r"locally|local\s++(?:dev\w*+|machines?+|environments?+|setups?+|runs?+)|"
        r"dev(?:elopment)?+\s++servers?+|devserver|on\s++your\s++machine",
    ),
    ("ci", r"ci|continuous\s++integration"),
    ("staging", r"staging|pre-?prod(?:uction)?+"),
    ("production", r"production|prod"),
)


def _named(qualifiers: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    return re.compile(
        r"\b(?:"
        + "|".join(f"(?P<p{i}>{words})" for i, (_, words) in enumerate(qualifiers))
        + r")\b",
        re.I,
    )


_QUALIFIERS = _LAYERS + _ENVIRONMENTS
_QUALIFIER_WORDS = _named(_QUALIFIERS)
_CREDENTIAL_WORDS = _named(_CREDENTIALS)
_ENVIRONMENT_WORDS = _named(_ENVIRONMENTS)


def _qualifiers_in(
    text: str, pattern: re.Pattern[str], qualifiers: tuple[tuple[str, str], ...], own: str
) -> set[str]:
    own_words = {own, *re.split(r"[-_.]", own)} if own else set()
    found: set[str] = set()
    for match in pattern.finditer(text):
        group = match.lastgroup
        # "the gateway" in the gateway's own file is the file's subject, not another layer
        if group is not None and match.group().lower().replace(" ", "-") not in own_words:
            found.add(qualifiers[int(group[1:])][0])
    return found


@lru_cache(maxsize=4096)
def setting_qualifier(unit: str, sentence: str, heading: str, folder: str = "") -> str:
    """The layers and environments a time or size setting is stated for ("cdn", "local",
    "production"), from its sentence and, for an environment, its section's heading, joined
    in a fixed order; "" when it names none (the application's own setting), when the
    number is of another unit (a coverage gate or a retry count is one per project), and for
    a layer that names the file's own folder (``folder``: "the gateway" in ``gateway/``)."""
    if unit not in ("duration", "size"):
        return ""
    own = os.path.basename(os.path.normpath(folder)).lower() if folder else ""
    found = _qualifiers_in(sentence, _QUALIFIER_WORDS, _QUALIFIERS, own)
    found |= _qualifiers_in(heading, _ENVIRONMENT_WORDS, _ENVIRONMENTS, own)
    return "+".join(sorted(found))


def credentials_differ(unit: str, sentence: str, other: str) -> bool:
    """Whether two time settings name different credentials ("access tokens expire after 15
    minutes", "refresh tokens after 14 days"). A sentence that names none ("tokens are valid
    for an hour") speaks of the same credential as the other."""
    if unit != "duration":
        return False
    here = _qualifiers_in(sentence, _CREDENTIAL_WORDS, _CREDENTIALS, "")
    there = _qualifiers_in(other, _CREDENTIAL_WORDS, _CREDENTIALS, "")
    return bool(here and there and here.isdisjoint(there))


# --- kinds and ranges ---------------------------------------------------------------------

_MAXIMUM_BEFORE = (
    r"\b(?:max(?:imum)?+|at\s++most|up\s++to|no\s++more\s++than|not\s++more\s++than|"
    r"cap(?:s|ped)?+(?:\s++\w++){0,3}?\s++(?:at|to)|limit(?:ed)?+\s++to|within|ceiling)\b"
)
#: the words before a number that state a maximum ("at most", "no more than", "capped at")
MAXIMUM_WORDS = _MAXIMUM_BEFORE
_MINIMUM_BEFORE = (
    r"\b(?:min(?:imum)?+|at\s++least|no\s++less\s++than|no\s++fewer\s++than|not\s++below|"
    r"floor)\b"
)
_DEFAULT_BEFORE = r"\b(?:default(?:s|ed)?+|by\s++default)\b"
_KIND_BEFORE = re.compile(
    rf"(?P<maximum>{_MAXIMUM_BEFORE}|\u2264|<=)|(?P<minimum>{_MINIMUM_BEFORE}|\u2265|>=)|"
    rf"(?P<default>{_DEFAULT_BEFORE})",
    re.IGNORECASE,
)
#: a "max" or "min" after a number is its kind ("3 retries max"), unless a number of its
#: own follows ("default 50, maximum 200")
_KIND_AFTER = re.compile(
    r"\W{0,3}+(?:(?P<maximum>max(?:imum)?+\b(?!\s*+[:=]?+\s*+\d)|at\s++most\b|"
    r"or\s++(?:less|fewer|under)\b)|"
    r"(?P<minimum>min(?:imum)?+\b(?!\s*+[:=]?+\s*+\d)|at\s++least\b|"
    r"or\s++(?:more|higher|above|greater)\b)|"
    r"(?P<default>by\s++default\b))",
    re.IGNORECASE,
)
# "under", "below", "more than", "exceed" say nothing of the kind by themselves: "keep PRs
# under 400 lines" states a maximum, "CI fails below 80%" a minimum
#: how far before a number its kind may be stated ("the maximum upload size is 10 MB")
_KIND_REACH = 48


def _words_before(text: str, start: int, reach: int) -> int:
    """Where the words before ``start`` that qualify it begin: ``reach`` characters back,
    or the start of its clause (after a ".", ";", line break or table cell) if nearer."""
    window_start = max(0, start - reach)
    cut = max(text.rfind(mark, window_start, start) for mark in (".", ";", "\n", "|"))
    return max(window_start, cut + 1)


def stated_kind(text: str, start: int, end: int) -> str | None:
    """The kind the words around a number state: ``maximum``, ``minimum``, ``default`` or
    ``None``. A qualifier right after the number ("3 retries max", "80% or more") wins over
    one before it; before it, the nearest one in the same clause."""
    after = _KIND_AFTER.match(text, end)
    if after is not None:
        return after.lastgroup
    kind: str | None = None
    for match in _KIND_BEFORE.finditer(text, _words_before(text, start, _KIND_REACH), start):
        kind = match.lastgroup
    return kind


#: comparisons that a negation before them turns into a bound: "no task may run longer than
#: 30 minutes" and "don't retry more than 3 times" state a maximum, "never merge with fewer
#: than two approvals" a minimum
_NEGATED_BOUND = {
    "maximum": (
        r"\b(?:(?:longer|more|greater|larger|higher|bigger)\s++than|exceed(?:s|ing)?+|over|"
        r"above|beyond)"
    ),
    "minimum": r"\b(?:(?:shorter|less|fewer|smaller|lower)\s++than|below|under)",
}
_NEGATED_BOUND_NUMBER = {
    kind: re.compile(rf"{words}\s++{number_pattern('count')}", re.IGNORECASE)
    for kind, words in _NEGATED_BOUND.items()
}
_NEGATION = re.compile(
    r"\b(?:not|no|never|don['\u2019]?+t|mustn['\u2019]?+t|shouldn['\u2019]?+t|"
    r"can['\u2019]?+t|cannot)\b",
    re.IGNORECASE,
)


def negated_bound(text: str, start: int, end: int, role_kind: str) -> bool:
    """Whether the number of a hit at ``start:end`` follows a comparison that a negation
    before it in its clause turns into a bound of ``role_kind``: "no task may run longer
    than 30 minutes" sets a maximum of 30 minutes, it rejects nothing."""
    pattern = _NEGATED_BOUND_NUMBER.get(role_kind)
    if pattern is None:
        return False
    window = _words_before(text, start, _KIND_REACH)
    comparison = pattern.search(text, window, end)
    if comparison is None:
        return False
    clause = _words_before(text, comparison.start(), _DESCRIBED_REACH)
    return _NEGATION.search(text, clause, comparison.start()) is not None


def kind_fits(role_kind: str, stated: str | None, required: bool) -> bool:
    """Whether a number stated as ``stated`` is a value of a role of ``role_kind``."""
    if required:
        return stated == role_kind
    if role_kind == "default":
        return stated in (None, "default")
    opposite = {"maximum": "minimum", "minimum": "maximum"}.get(role_kind)
    return stated != opposite


_RANGE_BEFORE = re.compile(
    r"(?:\bbetween\s{1,3}+\S{1,12}+(?:\s{1,3}+(?!and\b)\w{1,12}+)?+\s{1,3}+and|"
    r"\d\s{0,3}+[a-z%]{0,8}+\s{0,3}+(?:-|\u2013|\u2014|to|or))\s{0,3}+$",
    re.IGNORECASE,
)
_RANGE_AFTER = re.compile(
    r"\s{0,3}+(?:[a-z%]{1,8}+\s{0,3}+)?(?:-|\u2013|\u2014|to|or)\s{0,3}+\d", re.IGNORECASE
)


def in_range(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` is one end of a range ("between 10 and 30
    seconds", "4–5 hours", "2 or 3 retries"): a range states no catalogue setting (an open
    setting may read a plain range as a minimum and a maximum, see :mod:`.open_numbers`)."""
    before = text[max(0, start - 32) : start]
    if _RANGE_BEFORE.search(before):
        return True
    return _RANGE_AFTER.match(text, end, min(len(text), end + 16)) is not None


#: a number right after one of these words names a thing, it counts nothing ("step 4",
#: "section 2", "version 3", "PR #12")
_REFERENCE_BEFORE = re.compile(
    r"\b(?:steps?+|sections?+|chapters?+|parts?+|phases?+|items?+|rules?+|lines?+|pages?+|"
    r"issues?+|prs?+|versions?+|releases?+|v|no|number|figures?+|tables?+|appendix|levels?+|"
    r"tiers?+|stages?+|options?+|python|node|java|go|ruby|php|on|status|codes?+|errors?+|"
    r"http|ports?+)\s{0,3}+[#.]?+\s{0,3}+$",
    re.IGNORECASE,
)


def names_a_thing(text: str, start: int) -> bool:
    """Whether the number at ``start`` names a thing rather than counting it ("step 4",
    "version 3", "port 8080", "HTTP 429")."""
    return _REFERENCE_BEFORE.search(text, max(0, start - 16), start) is not None


#: words that make a number a description, not a setting: a measurement ("usually
#: finishes within 10 minutes", "takes about 8 s", "our p99 is 120 ms today"), the past ("the
#: timeout used to be 60 s"), a tool's own behaviour ("out of the box Sidekiq retries a job
#: 25 times"), or a judgement of it ("a 30 s timeout is too long")
_DESCRIBED_BEFORE = re.compile(
    r"\b(?:usually|typically|normally|generally|often|sometimes|about|around|roughly|"
    r"approximately|nearly|almost|on\s++average|used\s++to|was|were|"
    r"previously|formerly|originally|had\s++been|out\s++of\s++the\s++box|ships\s++with|"
    r"upstream)\b|~",
    re.IGNORECASE,
)
_DESCRIBED_AFTER = re.compile(
    r"[^.;\n]{0,24}?\b(?:today|currently|right\s++now|at\s++the\s++moment|on\s++average|"
    r"in\s++practice|at\s++peak|too\s++(?:long|short|high|low|small|large|big|slow|fast|"
    r"aggressive|strict|lax))\b",
    re.IGNORECASE,
)
#: how far before a number the words that describe it are read (back to its clause's start)
_DESCRIBED_REACH = 80


def described(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` is described, not set (see
    :data:`_DESCRIBED_BEFORE`); the words before it are read back to the clause's start."""
    if _DESCRIBED_BEFORE.search(text, _words_before(text, start, _DESCRIBED_REACH), start):
        return True
    return _DESCRIBED_AFTER.match(text, end) is not None


#: the group of a number stated as the default in a maximum or minimum role
DEFAULT_GROUP = "default"


def kind_group(role_kind: str, stated: str | None) -> str:
    """The group a number of a maximum or minimum role is in: ``"default"`` when it is
    stated as the default ("requests default to a 10 s timeout"), which a bound of the same
    subject does not contradict unless the default breaks it (:func:`bound_excludes`)."""
    return DEFAULT_GROUP if stated == "default" and role_kind != "default" else ""


def setting_value(
    text: str,
    number: tuple[int, int],
    unit: str,
    dimension: str,
    role_kind: str,
    required: bool,
) -> tuple[str, str] | None:
    """The value a number found with its subject sets and its :func:`kind_group`, or
    ``None`` when it sets nothing for a role of ``role_kind``: one end of a range, a
    reference ("step 4"), a description, a kind the role does not take, no number."""
    start, end = number
    if in_range(text, start, end) or names_a_thing(text, start):
        return None
    if described(text, start, end):
        return None
    stated = stated_kind(text, start, end)
    if not kind_fits(role_kind, stated, required):
        return None
    value = numeric_value(text[start:end], unit, dimension)
    return None if value is None else (value, kind_group(role_kind, stated))


def shown_amount(value: str) -> float | None:
    """The base amount of a value as :func:`show` wrote it ("30 s", "10 MB", "50")."""
    number, _, unit = value.partition(" ")
    try:
        amount_ = float(number)
    except ValueError:
        return None
    if not unit:
        return amount_
    found = UNITS.get(unit)
    return None if found is None else amount_ * found[1]


def bound_excludes(role_kind: str, a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two numbers of one subject, a default and a bound (value, group), exclude
    each other: the default is above the maximum, or below the minimum."""
    if {a[1], b[1]} != {DEFAULT_GROUP, ""} or role_kind not in ("maximum", "minimum"):
        return False
    default, bound = (a, b) if a[1] == DEFAULT_GROUP else (b, a)
    low, high = shown_amount(default[0]), shown_amount(bound[0])
    if low is None or high is None:
        return False
    return low > high if role_kind == "maximum" else low < high


# --- heads and keys -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NumericRole:
    """What :class:`NumberReader` needs of one numeric role."""

    name: str
    kind: str
    unit: str
    stated_kind: bool
    heads: tuple[str, ...]
    about: tuple[str, ...]
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Reading:
    """A number one role's heads or keys found; offsets index the clause."""

    role: str
    value: str
    start: int
    end: int
    #: found as a configuration key's value (a setting by its form, counted in code)
    keyed: bool
    #: see :func:`kind_group`
    group: str = ""


def _words_pattern(words: Iterable[str]) -> str:
    parts = sorted({w.lower() for w in words}, key=len, reverse=True)
    return "|".join(r"\s++".join(re.escape(p) for p in w.split()) for w in parts)


#: the unit word a key may end with, and the unit it names
_KEY_UNITS = {
    "ms": "ms",
    "millis": "ms",
    "msec": "ms",
    "milliseconds": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "mins": "min",
    "minutes": "min",
    "hours": "h",
    "days": "day",
    "bytes": "b",
    "kb": "kb",
    "mb": "mb",
    "gb": "gb",
    "pct": "%",
    "percent": "%",
}
#: the kind a key's first word states (`maxPageSize`, `min_approvals`, `defaultTimeout`)
_KEY_KINDS = {
    "max": "maximum",
    "maximum": "maximum",
    "min": "minimum",
    "minimum": "minimum",
    "default": "default",
}
#: a configuration setting in code: a key, "=" or ":", maybe a `timedelta(hours=` and a number
#: with an optional unit suffix (`30s`, `10MB`, Go and Kubernetes style)
_SETTING = re.compile(
    r"(?<![\w.-])(?P<key>[A-Za-z][\w.-]{0,48}+)[\"']?+\s*+[:=]\s*+[\"']?+"
    r"(?:timedelta\(\s*+(?P<span>hours|minutes|seconds|days)\s*+=\s*+)?"
    rf"(?P<number>{_DIGITS})(?P<unit>ms|kib|mib|gib|kb|mb|gb|ki|mi|gi|s|m|h|%)?+(?!\w|\.\d)",
    re.IGNORECASE,
)
_SETTING_HINT = re.compile(r"[:=]\s*+[\"'(]?+(?:timedelta\(\s*+\w++\s*+=\s*+)?\d")
#: a key written as code: a "_", "-" or "." inside it, or a capital after a small letter
_CODE_KEY = re.compile(r"\w[_.-]\w|[a-z][A-Z]")
#: what stands for a character of inline code in a masked clause (as in :mod:`.choices`)
CODE_MASK = "\x1a"
_HUMP = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SPAN_UNITS = {"hours": "h", "minutes": "min", "seconds": "s", "days": "day"}


def key_words(key: str) -> list[str]:
    """A configuration key in words, whatever its case style: `timeoutMs`, `TIMEOUT_MS` and
    `timeout-ms` all read ``["timeout", "ms"]``."""
    return [w.lower() for w in _HUMP.findall(key)]


class NumberReader:
    """The numeric roles that name their subject by heads or keys, read in one clause."""

    def __init__(self, roles: Sequence[Role]) -> None:
        self.roles = tuple(
            NumericRole(
                r.name,
                r.kind,
                r.unit,
                r.stated_kind,
                r.heads,
                r.about,
                tuple(" ".join(key_words(k)) for k in r.keys),
            )
            for r in roles
            if r.numeric and (r.heads or r.keys)
        )
        self._by_key = {k: role for role in self.roles for k in role.keys}
        headed = [r for r in self.roles if r.heads and r.about]
        self._heads = (
            re.compile(rf"\b(?:{_words_pattern(h for r in headed for h in r.heads)})\b", re.I)
            if headed
            else None
        )
        self._head_roles = {
            h.lower(): [r for r in headed if h in r.heads] for r in headed for h in r.heads
        }
        self._about = {
            r.name: re.compile(rf"\b(?:{_words_pattern(r.about)})\b", re.I) for r in headed
        }
        self._head_words = {h.split()[0].lower() for r in headed for h in r.heads}
        self.patterns = tuple(p for p in (self._heads, *self._about.values()) if p is not None)

    @property
    def triggers(self) -> frozenset[str]:
        """The words that make a clause worth reading (besides a setting in code)."""
        return frozenset(self._head_words)

    def may_hold_setting(self, text: str) -> bool:
        """Whether ``text`` may set a keyed number (`PAGE_SIZE = 50`): one cheap search."""
        return bool(self._by_key) and _SETTING_HINT.search(text) is not None

    def read(self, text: str, words: frozenset[str], masked: str = "") -> list[Reading]:
        """The numbers of ``text`` that ``self.roles`` set: by key first, then by head.
        ``masked`` is ``text`` with inline code masked (see :func:`.choices.read_choices`):
        a key counts inside code, or outside it when it is written as code (`PAGE_SIZE`,
        `maxRetries`, `page-size`), never as a word of prose ("Retries: 3")."""
        out: list[Reading] = []
        if self.may_hold_setting(text):
            out.extend(self._keyed(text, masked or text))
        if self._heads is not None and not self._head_words.isdisjoint(words):
            taken = [(r.start, r.end) for r in out]
            out.extend(r for r in self._headed(text) if not any(s <= r.start < e for s, e in taken))
        return out

    def _keyed(self, text: str, masked: str) -> list[Reading]:
        out: list[Reading] = []
        places: dict[str, list[int]] = {}
        for match in _SETTING.finditer(text):
            key = match.group("key")
            if masked[match.start()] != CODE_MASK and not _CODE_KEY.search(key):
                continue
            # the last part of a dotted key names the setting (`http.client.timeoutMs`),
            # unless the whole key is the setting's name (`coverage.thresholds.lines`)
            words = key_words(key)
            if " ".join(words) not in self._by_key:
                words = key_words(key.rsplit(".", 1)[-1])
            unit = ""
            if words and words[-1] in _KEY_UNITS:
                unit = _KEY_UNITS[words.pop()]
            stated = _KEY_KINDS.get(words[0]) if words else None
            role = self._by_key.get(" ".join(words))
            if role is None and stated is not None:
                role = self._by_key.get(" ".join(words[1:]))
            if role is None and words:
                role = self._resolve(words[-1], text, match.start(), places, " ".join(words))
            if role is None:
                continue
            if stated is None:
                stated = stated_kind(text, match.start(), match.start("number"))
            if not kind_fits(role.kind, stated, role.stated_kind):
                continue
            span = match.group("span")
            unit = match.group("unit") or (_SPAN_UNITS[span] if span else unit)
            spelled = _SPELLED_UNIT.get(role.unit)
            written = spelled.match(text, match.end()) if spelled and not unit else None
            if written is not None:
                unit = written.group(1)  # "execution_timeout | 30 minutes": its unit in words
            number = match.group("number")
            if not unit and role.unit == "duration":
                # a bare duration in code: milliseconds when it is that large (JS clients),
                # seconds otherwise (Python clients, most config files)
                unit = "ms" if (amount(number, "s", "duration") or 0) >= 1000 else "s"
            if not unit and role.unit in ("size", "percent"):
                unit = "b" if role.unit == "size" else "%"
            value = numeric_value(number, unit, role.unit)
            if value is not None:
                group = kind_group(role.kind, stated)
                out.append(Reading(role.name, value, match.start(), match.end(), True, group))
        return out

    def _resolve(
        self, head: str, text: str, at: int, places: dict[str, list[int]], key: str = ""
    ) -> NumericRole | None:
        """The role of a head found at ``at``: the one whose ``about`` word is nearest (in
        the key itself, then in the clause); ``None`` when none qualifies it or two do at
        one distance. ``places`` caches where each role's words are in ``text``."""
        # a longer head ("expire after") also names the roles of its shorter ones ("expire")
        words = head.split()
        candidates = list(
            dict.fromkeys(
                r
                for k in range(len(words), 0, -1)
                for r in self._head_roles.get(" ".join(words[:k]), [])
            )
        )
        if not candidates:
            return None
        best: list[tuple[int, NumericRole]] = []
        for role in candidates:
            about = self._about[role.name]
            if key and about.search(key):
                best.append((-1, role))
                continue
            if role.name not in places:
                places[role.name] = [p for m in about.finditer(text) for p in m.span()]
            spots = places[role.name]
            if not spots:
                continue
            k = bisect_left(spots, at)
            near = [abs(spots[i] - at) for i in (k - 1, k) if 0 <= i < len(spots)]
            best.append((min(near), role))
        if not best:
            return None
        best.sort(key=lambda pair: pair[0])
        if len(best) > 1 and best[0][0] == best[1][0]:
            return None
        return best[0][1]

    def _headed(self, text: str) -> list[Reading]:
        assert self._heads is not None
        out: list[Reading] = []
        places: dict[str, list[int]] = {}
        for head in self._heads.finditer(text):
            name = " ".join(head.group(0).lower().split())
            role = self._resolve(name, text, head.start(), places)
            if role is None:
                continue
            found = _number_near(text, head.start(), head.end(), role)
            if found is None:
                continue
            (start, end), unit = found
            read = setting_value(text, (start, end), unit, role.unit, role.kind, role.stated_kind)
            if read is not None:
                span = (min(start, head.start()), max(end, head.end()))
                out.append(Reading(role.name, read[0], *span, False, read[1]))
        return out


def _unit_words(dimension: str) -> str:
    return _words_pattern(w for _, (dim, _, ws) in UNITS.items() if dim == dimension for w in ws)


_QUANTITY = {
    dimension: re.compile(
        rf"{number_pattern(dimension)}\s?((?:{_unit_words(dimension)}))(?![\w%])", re.I
    )
    for dimension in ("duration", "size", "percent")
}
#: a unit in words after a keyed number ("execution_timeout: 30 minutes")
_SPELLED_UNIT = {
    dimension: re.compile(rf"\s{{1,3}}+({_unit_words(dimension)})(?![\w%])", re.I)
    for dimension in ("duration", "size", "percent")
}
#: a count takes no unit: the head is what is counted ("3 retries", "two approvals")
_QUANTITY["count"] = re.compile(rf"(?<![#/$-]){number_pattern('count')}()(?![\w%]|\.\d)", re.I)
#: what may stand between a head and its number after it ("timeout of", "time out after",
#: "timeout is set to", "Retries on 5xx | 2"): no clause end
_BETWEEN_AFTER = re.compile(r"[^.;\n]{0,32}+")
#: between a number before its head: its unit, a hyphen, an adjective or two ("a 10 s
#: outbound timeout")
_BETWEEN_BEFORE = 24
#: a number this close before its head, with nothing but words between, is the head's
_ADJACENT = 12
_NO_BREAK = re.compile(r"[^.;:\d\n|]*+")


def _number_near(
    text: str, head_start: int, head_end: int, role: NumericRole
) -> tuple[tuple[int, int], str] | None:
    """The number with a unit that a head at ``head_start:head_end`` takes: the one right
    before it ("a 10 s timeout", "two approvals"), else the first after it ("a timeout of 45
    seconds", "Retries on 5xx | 2"), else one a few words before it."""
    pattern = _QUANTITY.get(role.unit)
    if pattern is None:
        return None
    window = max(0, head_start - _BETWEEN_BEFORE)
    last = None
    for match in pattern.finditer(text, window, head_start):
        last = match
    between = text[last.end() : head_start] if last is not None else ""
    if last is not None and len(between) <= _ADJACENT and _NO_BREAK.fullmatch(between):
        return last.span(1), last.group(2)
    gap = _BETWEEN_AFTER.match(text, head_end)
    reach = gap.end() if gap is not None else head_end
    after = pattern.search(text, head_end, min(len(text), reach + 24))
    if after is not None and after.start() <= reach:
        return after.span(1), after.group(2)
    if last is not None and _NO_BREAK.fullmatch(between):
        return last.span(1), last.group(2)
    return None
