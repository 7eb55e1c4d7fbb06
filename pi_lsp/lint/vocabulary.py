"""The catalogue compiled for reading: every value found in one pass over a clause.

A clause is split into its words once. Each word is looked up in two indexes built from the
catalogue: the aliases and commands that start with that word (checked token by token, with
the exact punctuation between their words), and the patterns that the word *triggers* (a
version, a number with its unit, a legacy pattern). Only the triggered patterns run, so the
cost of a clause grows with its length and the handful of candidates its words name, not with
the size of the catalogue.

The active vocabulary is the shipped catalogue unless :func:`using` installs another (the
shipped one plus a user's ``lint.catalogue`` roles) for the lint run at hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Protocol

from pi_lsp.lint import numbers, versions
from pi_lsp.lint.catalogue import (
    UNITS,
    Catalogue,
    CatalogueValue,
    Role,
    load_catalogue,
)

#: The character that stands for inline code in a clause's masked text (see choices).
CODE_MASK = "\x1a"

_WORD = re.compile(r"\w+")
#: a word glued to the version number after it ("net8" of "net8.0", "python3" of "python3.12",
#: "node20"): its letters are looked up as a trigger too, so "targets `net9.0`" reads as .NET
_GLUED_VERSION = re.compile(r"([a-z]{2,12}+)\d{1,3}+")

#: The words right before a strict value that make it a choice of a tool ("use black").
_STRICT_LEAD = frozenset(
    {
        "use",
        "uses",
        "using",
        "with",
        "via",
        "prefer",
        "prefers",
        "run",
        "runs",
        "adopt",
        "choose",
        "pick",
        "not",
        "than",
        "over",
        "avoid",
        "from",
        "through",
        "by",
        "on",
        "to",
        "into",
    }
)
#: "in" before a strict value chooses it only for a role whose values need a context the
#: clause names ("write new classes in Java": the language of new code), or when the value is
#: capitalised as a name ("secrets are stored in Vault")
_CONTEXT_LEAD = frozenset({"in", "at"})
#: a verb that makes something with a tool, and "as" after it ("add Helm charts", "declare a
#: Retrofit interface", "package it as a Helm chart"): before a strict value only when the
#: value is capitalised as a name ("write a Swift package", not "add a black border"); "no"
#: before one is its ban ("No Helm charts.")
_MAKING_LEAD = frozenset({"add", "adding", "declare", "define", "write", "create", "as", "no"})
#: "<subject> is <value>" chooses a strict value when the subject names its role
_COPULAS = frozenset({"is", "are"})
_SUBJECT_OPENERS = frozenset({"all", "every", "new", "our", "the", "any", "each"})
#: The words right before a command in prose that make it the command ("run make").
_COMMAND_LEAD = frozenset({"run", "runs", "running", "use", "using", "via", "with", "through"})
_ARTICLES = frozenset({"a", "an", "the", "only", "plain", "its", "their", "our"})


@dataclass(frozen=True, slots=True)
class ValueSpec:
    """One value of a dimension as the reader sees it.

    ``pattern`` is set only for a value found by a pattern (its first one); values found by
    their aliases have none: the matcher finds them (see :class:`Vocabulary`).
    """

    name: str
    pattern: re.Pattern[str] | None = None
    context: re.Pattern[str] | None = None
    #: values in different groups can coexist (pytest for Python, vitest for TypeScript)
    group: str = ""


class LabelMatcher(Protocol):
    """What tells whether a ``Label:`` names a dimension (a pattern, or :class:`LabelWords`)."""

    def search(self, text: str, /) -> object: ...


@dataclass(frozen=True, slots=True)
class LabelWords:
    """The labels naming a role ("feature flags", "the bundler", "logging (JS)"), matched
    without a pattern: lowercased, an article, a trailing "(…)" and a plural "s" ignored."""

    names: frozenset[str]

    def search(self, text: str, /) -> bool:
        label = " ".join(text.lower().split())
        if label.startswith("the "):
            label = label[4:]
        cut = label.find("(")
        if cut > 0:
            label = label[:cut].rstrip()
        return label in self.names or (label.endswith("s") and label[:-1] in self.names)


@dataclass(frozen=True, slots=True)
class Dimension:
    """An exclusive choice (a catalogue role): at most one of its values can be the rule."""

    name: str
    label: str
    values: tuple[ValueSpec, ...]
    #: a ``Label:`` that names this dimension ("Package manager:", "Indentation:")
    label_pattern: LabelMatcher
    #: numeric settings are claims even without an imperative verb ("Line length: 120")
    setting: bool = False
    kind: str = "choice"
    #: pairs of values used together, not instead of each other (both orders; see
    #: :func:`composes`)
    together: frozenset[tuple[str, str]] = frozenset()
    #: numeric settings: the unit dimension of the number ("duration", "size", "percent",
    #: "count")
    unit: str = ""
    #: the purposes the role is split by, each with the words naming it (see
    #: :mod:`pi_lsp.lint.purposes`)
    purposes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: where the role applies, as the catalogue says ("any", "service", "Python" …)
    applies: str = ""

    def composes(self, a: str, b: str) -> bool:
        """Whether values ``a`` and ``b`` work together (Meson and the Ninja it drives)."""
        return (a, b) in self.together


@dataclass(frozen=True, slots=True)
class Found:
    """One value found in a clause; offsets index the clause."""

    dimension: Dimension
    value: str
    start: int
    end: int
    group: str
    #: found by a command that implies the value (`./gradlew`), not by the value's name
    command: bool = False
    #: found by an alias or command (a literal name), not by a pattern
    literal: bool = False
    #: a number with its unit, found by a numeric role's pattern (subject included)
    numeric: bool = False
    #: a setting stated by its form (a version floor or pin, a configuration key in code):
    #: a claim without an imperative, and one inside inline code
    claim: bool = False


@dataclass(frozen=True, slots=True)
class _Alias:
    words: tuple[str, ...]
    gaps: tuple[str, ...]
    prefix: str
    suffix: str
    strict: bool
    spec: _Spec
    command: bool = False
    #: the word the alias is indexed by: its first word that is not a common one
    anchor: int = 0


@dataclass(frozen=True, slots=True)
class _Spec:
    dimension: Dimension
    name: str
    group: str
    context: re.Pattern[str] | None
    unless: re.Pattern[str] | None
    not_before: frozenset[str]
    patterns: tuple[re.Pattern[str], ...]
    #: numeric roles: the patterns capture a number and a unit
    numeric: bool = False
    unit: str = ""
    #: the words that trigger the patterns (when set, instead of the value's triggers)
    triggers: tuple[str, ...] = ()
    #: what the patterns find is a claim by its form (see :class:`Found`)
    claim: bool = False


def _i(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _phrase(text: str) -> str:
    """A literal phrase as a pattern, any run of blanks matching its blanks."""
    return r"\s+".join(re.escape(part) for part in text.split())


def _label_pattern(role: Role) -> LabelMatcher:
    if role.label_pattern is not None:
        return _i(role.label_pattern)
    names: list[str] = []
    for label in (*role.labels, role.label.lower()):
        cut = label.find("(")
        label = label[:cut] if cut >= 0 else label
        for part in label.split(" / "):
            words = part.split()
            if not words:
                continue
            names.append(" ".join(words))
            if len(words) >= 3 and words[0] in _ecosystem_words(role):
                # "JVM build tool" is named "the build tool" where its value says JVM
                names.append(" ".join(words[1:]))
            if len(words) >= 2 and words[0] in _LABEL_QUALIFIERS:
                words = words[1:]
                names.append(" ".join(words))
            if len(words) >= 2 and words[-1] in _GENERIC_HEADS:
                names.append(" ".join(words[:-1]))
    return LabelWords(frozenset(names))


#: the last word of a role's label that says only what kind of thing its values are: the
#: words before it name the role ("email provider" is named by "email:")
_GENERIC_HEADS = frozenset(
    {
        "library",
        "tool",
        "service",
        "format",
        "style",
        "provider",
        "platform",
        "system",
        "framework",
        "engine",
        "client",
        "store",
        "runtime",
    }
)
#: a first word of a role's label that a label in a file may leave out ("primary database"
#: is named by "database:")
_LABEL_QUALIFIERS = frozenset({"primary", "main", "default"})


def _ecosystem_words(role: Role) -> frozenset[str]:
    """The words that name where a role applies (its ``applies`` and its values' groups:
    "jvm", "python", "ios"), which a label may lead with."""
    words = set(re.findall(r"[\w.+#-]+", role.applies.lower()))
    words.update(v.group.lower() for v in role.values if v.group)
    return frozenset(words)


def _unit_alternation(words: Sequence[str]) -> str:
    return "|".join(_phrase(w) for w in sorted(set(words), key=len, reverse=True))


#: a unit word that is a rate in time: "requests per second", "req/s", "calls a minute", "rps"
_RATE_UNIT = re.compile(r"(?:\bper\s|/|\ba\s)\s*+(?:s|sec|second|m|min|minute|h|hour)$|^[rq]p[sm]$")


def _rate_units(role: Role) -> list[str]:
    """The unit words of a maximum count role that are rates in time (see :data:`_RATE_UNIT`)."""
    if role.unit != "count" or role.kind != "maximum":
        return []
    return [w for w in role.unit_words if _RATE_UNIT.search(w)]


#: what may follow "per page" when the page is the noun counted per, not a compound's first
#: word ("3 retries per page fetch"): a mark, the end, or a word that opens no noun
_PAGE_ENDS = (
    r"(?=\s*+(?:[.,;:!()]|$)|\s++(?:by|and|or|in|on|for|when|unless|if|is|are|at|to|with|"
    r"from|max|maximum|default|so|because|since|as|but)\b)"
)


#: what a paginated list holds, in the words of a page size
_PAGE_ITEMS = r"items|results|records|rows|entries|objects|resources|elements"


def _numeric_patterns(role: Role) -> tuple[re.Pattern[str], ...]:
    """The patterns capturing (number, unit): subject first, or number first; for a count,
    a label or copula naming the setting before a bare number, and a unit that is itself a
    subject ("at most 4 workers")."""
    subjects = _unit_alternation(role.subjects)
    if role.unit == "count":
        words = role.unit_words
        unit = f"({_unit_alternation(words)})" if words else "()"
    else:
        spelled = [w for name, (dim, _, ws) in UNITS.items() if dim == role.unit for w in ws]
        unit = f"({_unit_alternation(spelled)})"
    number = numbers.number_pattern(role.unit)
    space = r"\s?" if role.unit != "count" else r"\s+" if role.unit_words else ""
    after = r"(?![\w%])" if role.unit != "percent" else r"(?!\w)"
    first = rf"\b(?:{subjects})\b[^.;\d\n]{{0,40}}?{number}{space}{unit}{after}"
    if role.unit == "count" and not role.unit_words:
        return (_i(first),)
    second = rf"{number}{space}{unit}{after}[^.;\d\n]{{0,25}}?\b(?:{subjects})\b"
    patterns = [_i(first), _i(second)]
    counted = [w for w in role.unit_words if w in role.subjects]
    if counted:
        patterns.append(_i(rf"{number}\s++({_unit_alternation(counted)}){after}"))
    per = [s for s in role.subjects if s.startswith("per ") and len(s.split()) == 2]
    if per:
        # "N items per page": the generic things a list holds, counted per page, are the
        # page's size; a named noun ("10 posts per page" on the docs site, "500 lines per
        # page" in a log viewer, "40 lines per page" of a PDF) is some other surface's page
        patterns.append(
            _i(rf"{number}\s++({_PAGE_ITEMS})\s++(?:{_unit_alternation(per)})\b{_PAGE_ENDS}")
        )
    rates = _rate_units(role)
    if rates:
        # a rate unit names what it measures, so a bound on it is the role's limit with no
        # subject: "poll the carrier APIs at no more than 200 req/s"
        patterns.append(
            _i(rf"{numbers.MAXIMUM_WORDS}\s++{number}\s*+({_unit_alternation(rates)}){after}")
        )
    # a label that is a whole subject of two words or more names the unit itself, so its
    # value may be a bare number: "Requests per minute per API key: 100" (a settings table
    # row), "Pool size = 20"; a one-word subject ("PRs: 2") names a thing, not a setting
    named = [s for s in role.subjects if len(s.split()) > 1]
    if role.unit != "count" or not named:
        return tuple(patterns)
    label = (
        rf"^\W*+(?:(?:max(?:imum)?|min(?:imum)?|default)\s++)?(?:{_unit_alternation(named)})"
        rf"\s*+(?:[:=]|\u2014|\u2013|--?)\s*+{number}()\W*+$"
    )
    # and so does a copula or preposition after it: "the default page size is 50"
    stated = (
        rf"\b(?:{_unit_alternation(named)})\s++(?:is|of|defaults\s++to|is\s++set\s++to|to|at)"
        rf"\s++{number}()(?![\w%]|\.\d)"
    )
    # or nothing but a space, when a mark ends the number: "default page size 50, maximum 200"
    juxtaposed = rf"\b(?:{_unit_alternation(named)})\s++{number}()(?=\s*+(?:[,;)]|\.(?!\d)|$))"
    return (*patterns, _i(label), _i(stated), _i(juxtaposed))


#: Words too common to index an alias by ("the fetch api" is found from "fetch").
_COMMON = frozenset(
    [
        "a",
        "an",
        "the",
        "in",
        "on",
        "of",
        "to",
        "for",
        "with",
        "no",
        "new",
        "use",
        "be",
        "is",
        "are",
        "and",
        "or",
        "not",
        "all",
        "one",
        "two",
        "plain",
        "only",
        "any",
        "every",
        "each",
        "by",
        "at",
        "from",
        "into",
        "over",
        "under",
        "per",
        "off",
    ]
)


def _alias(text: str, strict: bool, spec: _Spec, command: bool = False) -> _Alias | None:
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if not words:
        return None
    names = [text[s:e] for s, e in words]
    anchor = next((k for k, word in enumerate(names) if word not in _COMMON), 0)
    gaps = tuple(text[a[1] : b[0]] for a, b in pairwise(words))
    return _Alias(
        tuple(text[s:e] for s, e in words),
        tuple(" " if g.isspace() else g for g in gaps),
        text[: words[0][0]],
        text[words[-1][1] :],
        strict,
        spec,
        command,
        anchor,
    )


class Vocabulary:
    """A catalogue compiled into a word index; :meth:`find` reads one clause."""

    def __init__(self, catalogue: Catalogue, key: str = "") -> None:
        self.catalogue = catalogue
        #: what tells this vocabulary from another in a cache of readings ("": the shipped one)
        self.key = key
        self.dimensions: tuple[Dimension, ...] = ()
        self._aliases: dict[str, list[_Alias]] = {}
        self._triggers: dict[str, list[_Spec]] = {}
        #: files and folders that imply a value, by their first word ("github" for
        #: ".github/workflows/"), see :func:`_match_file`
        self._files: dict[str, list[tuple[str, _Spec]]] = {}
        self.patterns: tuple[re.Pattern[str], ...] = ()
        dimensions: list[Dimension] = []
        patterns: list[re.Pattern[str]] = []
        for role in catalogue.roles:
            dimension, specs = self._compile(role)
            dimensions.append(dimension)
            for spec, value in specs:
                patterns.extend(spec.patterns)
                if spec.triggers:
                    for trigger in spec.triggers:
                        self._trigger(trigger, spec)
                    continue
                if value is None:  # a numeric role: its subjects trigger its patterns
                    for subject in (*role.subjects, *_rate_units(role)):
                        first = _WORD.search(subject)
                        if first:
                            self._trigger(first.group(0), spec)
                    continue
                for trigger in value.triggers:
                    self._trigger(trigger, spec)
                for path in value.files:
                    first = _WORD.search(path)
                    if first is not None:
                        self._files.setdefault(first.group(0), []).append((path, spec))
                names = {a.split()[0] for a in (*value.aliases, *value.strict_aliases)}
                for text, strict, command in (
                    *((a, value.strict, False) for a in value.aliases),
                    *((a, True, False) for a in value.strict_aliases),
                    # a command opened by the value's own name ("pnpm install") adds nothing
                    *((c, True, True) for c in value.commands if c.split()[0] not in names),
                ):
                    alias = _alias(text, strict, spec, command)
                    if alias is not None:
                        self._aliases.setdefault(alias.words[alias.anchor], []).append(alias)
        self.dimensions = tuple(dimensions)
        #: numbers named by a head and what it is about, or by a configuration key
        self._numbers = numbers.NumberReader(catalogue.roles)
        self._stated_kind = frozenset(r.name for r in catalogue.roles if r.stated_kind)
        self.patterns = tuple(patterns) + self._numbers.patterns
        self._keys = (
            frozenset(self._aliases)
            | frozenset(self._triggers)
            | frozenset(self._files)
            | self._numbers.triggers
        )
        self.by_name = {d.name: d for d in self.dimensions}

    def _trigger(self, word: str, spec: _Spec) -> None:
        specs = self._triggers.setdefault(word.lower(), [])
        if spec not in specs:
            specs.append(spec)

    def _compile(self, role: Role) -> tuple[Dimension, list[tuple[_Spec, CatalogueValue | None]]]:
        value_specs: list[ValueSpec] = []
        specs: list[tuple[_Spec, CatalogueValue | None]] = []
        holder: list[Dimension] = []
        dimension = Dimension(
            role.name,
            role.label,
            (),
            _label_pattern(role),
            role.statement,
            role.kind,
        )
        holder.append(dimension)
        for value in role.values:
            compiled = tuple(_i(p) for p in value.patterns)
            context = _i(value.context) if value.context else None
            spec = _Spec(
                dimension,
                value.name,
                value.group,
                context,
                _i(value.unless) if value.unless else None,
                frozenset(value.not_before),
                compiled,
            )
            specs.append((spec, value))
            value_specs.append(
                ValueSpec(value.name, compiled[0] if compiled else None, context, value.group)
            )
        if role.subjects:
            numeric = _Spec(
                dimension,
                role.label,
                "",
                None,
                None,
                frozenset(),
                _numeric_patterns(role),
                True,
                role.unit,
            )
            specs.append((numeric, None))
            value_specs.append(ValueSpec(f"{{}} ({role.unit})", numeric.patterns[0]))
        specs.extend((spec, None) for spec in _version_specs(role, dimension))
        # the dimension's values are known only now; dataclasses are frozen, so rebuild once
        dimension = Dimension(
            role.name,
            role.label,
            tuple(value_specs),
            dimension.label_pattern,
            role.statement,
            role.kind,
            frozenset((a, b) for group in role.composes for a in group for b in group if a != b),
            role.unit,
            role.purposes,
            role.applies,
        )
        specs = [(_respec(s, dimension), v) for s, v in specs]
        return dimension, specs

    def find(self, text: str, masked: str | None = None, context: str = "") -> list[Found]:
        """Every value in ``text``, in order; nested hits of one dimension dropped. A value
        whose role asks for a context word finds it in ``text`` or in ``context``, the
        titles of the section ``text`` is in ("Subject in the imperative mood" under
        "## Commits")."""
        low = text.lower()
        if len(low) != len(text):  # a letter whose lowercase is longer: keep offsets
            low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        masked = text if masked is None or len(masked) != len(text) else masked
        words = frozenset(_WORD.findall(low))
        glued = {
            m.group(1)
            for w in words
            if w[-1].isdigit() and not w[0].isdigit() and (m := _GLUED_VERSION.fullmatch(w))
        }
        if (
            self._keys.isdisjoint(words)
            and self._keys.isdisjoint(glued)
            and not self._numbers.may_hold_setting(text)
        ):
            return []  # most clauses name no value: one C-level pass decides
        tokens = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(low)]
        flat = text.replace("\n", " ")
        found: list[Found] = []
        clause_checks: dict[int, bool] = {}

        def holds(pattern: re.Pattern[str] | None, want: bool) -> bool:
            if pattern is None:
                return True
            key = id(pattern)
            if key not in clause_checks:
                clause_checks[key] = pattern.search(text) is not None
            return clause_checks[key] is want

        def in_context(pattern: re.Pattern[str] | None) -> bool:
            if holds(pattern, True):
                return True
            return bool(context) and pattern is not None and pattern.search(context) is not None

        triggered: dict[int, _Spec] = {}
        for word in glued:
            for spec in self._triggers.get(word, ()):
                triggered.setdefault(id(spec), spec)
        for index, (begin, _, word) in enumerate(tokens):
            for spec in self._triggers.get(word, ()):
                triggered.setdefault(id(spec), spec)
            for path, spec in self._files.get(word, ()):
                span = _match_file(path, begin, low, masked)
                if span is None or not (in_context(spec.context) and holds(spec.unless, False)):
                    continue
                found.append(
                    Found(spec.dimension, spec.name, span[0], span[1], spec.group, True, True)
                )
            for alias in self._aliases.get(word, ()):
                span = self._match_alias(alias, tokens, index, low, masked)
                if span is None:
                    continue
                spec = alias.spec
                if not (in_context(spec.context) and holds(spec.unless, False)):
                    continue
                found.append(
                    Found(
                        spec.dimension, spec.name, span[0], span[1], spec.group, alias.command, True
                    )
                )
        for spec in triggered.values():
            if not (in_context(spec.context) and holds(spec.unless, False)):
                continue
            versioned = spec.dimension.kind == "floor"
            # a number and its subject may stand on two lines of one wrapped paragraph
            # ("time out after\n10 seconds"): a soft line break is a space
            read = flat if spec.numeric else text
            for pattern in spec.patterns:
                for match in pattern.finditer(read):
                    if versioned and not versions.is_requirement(text, *match.span()):
                        continue
                    group = spec.group
                    if spec.numeric:
                        setting = numbers.setting_value(
                            flat,
                            match.span(1),
                            match.group(2),
                            spec.unit,
                            spec.dimension.kind,
                            spec.dimension.name in self._stated_kind,
                        )
                        if setting is None:
                            continue
                        value, group = setting
                    elif versioned and match.groups():  # "1.8.0" is shown "1.8"
                        value = spec.name.format(versions.normalise(match.group(1)))
                    elif match.groups():
                        value = spec.name.format(match.group(1))
                    else:
                        value = spec.name
                    found.append(
                        Found(
                            spec.dimension,
                            value,
                            match.start(),
                            match.end(),
                            group,
                            numeric=spec.numeric,
                            claim=spec.claim,
                        )
                    )
        for reading in self._numbers.read(flat, words, masked.replace("\n", " ")):
            found.append(
                Found(
                    self.by_name[reading.role],
                    reading.value,
                    reading.start,
                    reading.end,
                    reading.group,
                    numeric=True,
                    claim=reading.keyed,
                )
            )
        found.sort(key=lambda h: (h.start, -h.end, not h.claim))  # a claim wins a tie
        # drop hits nested in an earlier, longer hit of the same dimension, and a name that
        # starts where a longer name of another dimension starts ("React" in "React Native")
        kept: list[Found] = []
        kept_end: dict[str, int] = {}
        longest: tuple[int, int] = (-1, -1)
        for hit in found:
            if hit.start < kept_end.get(hit.dimension.name, -1):
                continue
            if hit.literal and hit.start == longest[0] and hit.end < longest[1]:
                continue
            kept.append(hit)
            kept_end[hit.dimension.name] = max(kept_end.get(hit.dimension.name, -1), hit.end)
            if hit.literal and hit.start != longest[0]:
                longest = (hit.start, hit.end)
        return kept

    @staticmethod
    def _match_alias(
        alias: _Alias,
        tokens: Sequence[tuple[int, int, str]],
        index: int,
        low: str,
        masked: str,
    ) -> tuple[int, int] | None:
        base = index - alias.anchor
        if base < 0 or base + len(alias.words) > len(tokens):
            return None
        first_start = tokens[base][0]
        start = first_start - len(alias.prefix)
        if start < 0 or low[start:first_start] != alias.prefix:
            return None
        if not alias.prefix and start > 0 and low[start - 1] in "-./@":
            return None
        last = base
        for k, word in enumerate(alias.words):
            last = base + k
            if tokens[last][2] != word:
                return None
            if k == 0:
                continue
            gap = low[tokens[last - 1][1] : tokens[last][0]]
            want = alias.gaps[k - 1]
            if gap != want and not (want == " " and gap and gap.isspace()):
                return None
        end = tokens[last][1]
        if alias.suffix:
            if low[end : end + len(alias.suffix)] != alias.suffix:
                return None
            end += len(alias.suffix)
            if alias.suffix.endswith("/") and low[end : end + 1].isalnum():
                return None  # "in tests/test_x.py" names a file, not where tests live
        else:
            after = low[end : end + 2]
            if after[:1] == "-" or (after[:1] in "./@" and after[1:2].isalnum()):
                return None
        following = last + 1
        if (
            alias.spec.not_before
            and following < len(tokens)
            and tokens[following][2] in alias.spec.not_before
            and low[end : tokens[following][0]].isspace()
        ):
            return None
        if alias.strict and not _strict_ok(alias, tokens, base, start, low, masked):
            return None
        return start, end


#: the characters of a path in prose or code ("chart/Chart.yaml", "~/.config/x")
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_./-@~*<>{}")
#: a word right before a path outside inline code that makes it the place worked in
#: how far a path is followed either side of a file entry (a path repeating the entry costs
#: each occurrence this much at most, not the whole path)
_PATH_REACH = 160
_FILE_LEAD = frozenset({"in", "into", "to", "under", "inside", "with", "via", "using", "by"})


def _match_file(path: str, word_start: int, low: str, masked: str) -> tuple[int, int] | None:
    """Where file or folder entry ``path`` occurs as a part of a path at the word starting at
    ``word_start``: a file name as the path's last part (``chart/Chart.yaml``), a folder
    (ending in "/") anywhere in it; the span covers the whole path. Outside inline code the
    path must follow a preposition ("add a job in .github/workflows/ci.yml")."""
    first = _WORD.search(path)
    if first is None:
        return None
    start = word_start - first.start()
    end = start + len(path)
    if start < 0 or low[start:end] != path:
        return None
    if start > 0 and low[start - 1] in _PATH_CHARS and low[start - 1] != "/":
        return None  # "myfly.toml", "x.github/…": another name
    closing = low[end : end + 1] == "." and not low[end + 1 : end + 2].isalnum()
    if not path.endswith("/") and low[end : end + 1] in _PATH_CHARS and not closing:
        return None  # "fly.toml.bak", "Podfile.lock": another file
    begin = start
    while begin > max(0, start - _PATH_REACH) and low[begin - 1] in _PATH_CHARS:
        begin -= 1
    finish = end
    while finish < min(len(low), end + _PATH_REACH) and low[finish] in _PATH_CHARS:
        finish += 1
    while finish > end and low[finish - 1] in ".,;:":
        finish -= 1
    if masked[begin : begin + 1] != CODE_MASK:
        before = low[:begin].split()
        if not before or before[-1].strip("`*_\"'(") not in _FILE_LEAD:
            return None
    return begin, finish


def _strict_ok(
    alias: _Alias,
    tokens: Sequence[tuple[int, int, str]],
    index: int,
    start: int,
    low: str,
    masked: str,
) -> bool:
    """An ordinary word counts as a tool in code, right after a verb choosing a tool, or
    after a label naming its role ("Bundler: Vite")."""
    if masked[start : start + 1] == CODE_MASK:
        return True
    if _followed_by_role(alias, tokens, index):
        return True
    colon = low.find(":", 0, start)
    if 0 < colon < 60:
        label = low[:colon].strip(" \t-*#>_`")
        if alias.spec.dimension.label_pattern.search(label):
            return True
    before = index - 1
    while before >= 0 and tokens[before][2] in _ARTICLES:
        before -= 1
    if before < 0:
        return False
    gap = low[tokens[before][1] : start]
    leads = _COMMAND_LEAD if alias.command else _STRICT_LEAD
    word = tokens[before][2]
    led = word in leads or (
        not alias.command
        and word in _CONTEXT_LEAD
        and (alias.spec.context is not None or _capitalised_name(masked, start))
    )
    if not led and not alias.command and word in _MAKING_LEAD:
        led = _capitalised_name(masked, start)
    if not led and not alias.command and word in _COPULAS:
        led = _names_role(alias.spec.dimension, low[: tokens[before][0]])
    if not led:
        return False
    if not gap or gap.isspace() or gap in ("`", "**"):
        return True
    # an article between the verb and the value ("uses the OpenTelemetry Go SDK", "with the
    # Ktor client") only before a proper name: "with the bash version" names no tool
    skipped = gap.split()
    return (
        before < index - 1
        and all(w in _ARTICLES for w in skipped)
        and not alias.command
        and _capitalised_name(masked, start)
    )


def _followed_by_role(alias: _Alias, tokens: Sequence[tuple[int, int, str]], index: int) -> bool:
    """Whether the value is the subject of "<value> is our <role>" / "… are the <role>"
    ("Docker is our container runtime", "Redis is the cache"): one to four words after the
    article name its role."""
    after = index + len(alias.words)
    if after + 2 >= len(tokens):
        return False
    if tokens[after][2] not in _COPULAS or tokens[after + 1][2] not in ("our", "the"):
        return False
    words = [t[2] for t in tokens[after + 2 : after + 6]]
    label = alias.spec.dimension.label_pattern
    return any(label.search(" ".join(words[:n])) for n in range(len(words), 0, -1))


def _capitalised_name(masked: str, start: int) -> bool:
    """Whether the word at ``start`` is capitalised ("Render", not "REST": an acronym is
    capitalised anyway) where a sentence does not capitalise every word."""
    head = masked[start : start + 2]
    return (
        len(head) == 2
        and head[0].isupper()
        and head[1].islower()
        and not (_sentence_start(masked, start))
    )


def _sentence_start(masked: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence, a list item or a label's value, where
    every word is capitalised: only blanks and marks (no letter or digit) since the last
    sentence end, colon or line start."""
    at = start - 1
    while at >= 0 and start - at <= _OPENING_WINDOW:
        char = masked[at]
        if char.isalnum() or char == CODE_MASK:
            return False
        if char in ".!?:\n|":
            return True
        at -= 1
    return at < 0


#: how far back :func:`_sentence_start` looks for a letter before a word (marks and blanks)
_OPENING_WINDOW = 16


def _names_role(dimension: Dimension, subject: str) -> bool:
    """Whether the subject of "<subject> is/are <value>" names the value's role ("Config
    files are YAML", "The bundler is Vite"), with "all", "new", "our" … before it."""
    words = subject.strip(" \t-*#>_`").split()
    while words and words[0] in _SUBJECT_OPENERS:
        words = words[1:]
    return 0 < len(words) <= 4 and bool(dimension.label_pattern.search(" ".join(words)))


def _respec(spec: _Spec, dimension: Dimension) -> _Spec:
    return _Spec(
        dimension,
        spec.name,
        spec.group,
        spec.context,
        spec.unless,
        spec.not_before,
        spec.patterns,
        spec.numeric,
        spec.unit,
        spec.triggers,
        spec.claim,
    )


def _version_specs(role: Role, dimension: Dimension) -> list[_Spec]:
    """The floors and pins of a version role that names its products (:mod:`.versions`):
    one spec per form, triggered by the products' and keys' first words. A value is named
    like the role's first value ("Node.js {}"), a floor with a "+"."""
    if not role.products or not role.values:
        return []
    base = role.values[0].name
    if "{}" not in base:
        return []
    triggers: list[str] = []
    for word in (*role.products, *role.keys):
        first = _WORD.search(word)
        if first and first.group(0) not in triggers:
            triggers.append(first.group(0))
    forms: dict[str, list[re.Pattern[str]]] = {}
    for form, pattern in versions.constraint_patterns(role.products, role.version, role.keys):
        forms.setdefault(form, []).append(_i(pattern))
    return [
        _Spec(
            dimension,
            base + "+" if form == "floor" else base,
            versions.FLOOR_GROUP if form == "floor" else "",
            None,
            None,
            frozenset(),
            tuple(patterns),
            triggers=tuple(triggers),
            claim=True,
        )
        for form, patterns in forms.items()
    ]


@cache
def default_vocabulary() -> Vocabulary:
    """The shipped catalogue, compiled once."""
    return Vocabulary(load_catalogue())


_ACTIVE: ContextVar[Vocabulary | None] = ContextVar("pi_lsp_lint_vocabulary", default=None)


def current() -> Vocabulary:
    """The vocabulary of the lint run at hand."""
    return _ACTIVE.get() or default_vocabulary()


@contextmanager
def using(vocabulary: Vocabulary | None) -> Iterator[None]:
    """Read clauses with ``vocabulary`` (``None``: the shipped one) inside the block."""
    token = _ACTIVE.set(vocabulary)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


#: every pattern the shipped catalogue applies to clause text (probed for linear time)
VALUE_PATTERNS: tuple[re.Pattern[str], ...] = default_vocabulary().patterns
