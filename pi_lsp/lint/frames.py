"""Action frames: what one instruction tells the agent to do, or never to do.

A *frame* is (polarity, verb class, object, qualifiers), read from one clause of an
instruction's plain text with inline code masked (a code span is one object token, whole):

* polarity: *positive* for "always", "must", "should", "make sure to", "be sure to",
  "remember to", "X is required" and a plain imperative ("Push to main"); *negative* for
  "never", "don't", "must not", "should not", "avoid …ing", "refrain from …ing", "no X" (a
  bullet that starts with "No"), "X must not be …ed", "X is forbidden / not allowed /
  prohibited / banned";
* the verb, lemmatised and mapped through a small table of synonyms (push / commit / merge to
  a branch are one class, *land*; mock / stub / fake; use / rely on / employ; edit / modify /
  change / touch …); "add comments to X" reads as "comment X";
* the object's head noun, lemmatised and mapped through a table of synonyms (db / database,
  repo / repository, PR / pull request, test / spec, main / master / default branch …); for a
  verb of the *land* class, the branch it lands on;
* qualifiers: every other content word (modifiers, prepositional phrases, a subject, the
  condition of an "if …, never …"), lemmatised; words that never narrow a rule ("directly",
  "every", "your") are dropped.

Text that is not a rule makes no frame: a question, a description ("we never had to …", "CI
never pushes …": the verb after the marker must be in its base form), a clause with no verb
or no object. A frame read under a condition ("if …", "when …", "unless …") is marked
``conditional``: the conflict check passes such pairs on as candidates only.

Lemmas come from the Snowball English stemmer (PyStemmer: a 0.7 MB wheel with no data
files, about 1 ms to load) with a table of irregular verb forms, applied alike to the text and
to the synonym tables, so both sides of a comparison meet on the same stem. Everything here is
a walk over a token list with bounded look-ahead: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_lsp.lint.instructions import Instruction


@dataclass(frozen=True, slots=True)
class Frame:
    """One action an instruction asks for (``positive``) or forbids.

    ``verb`` and ``object`` are canonical classes (``"land"``, ``"database"``), or stems of
    words outside the tables, or the text of an inline code span; ``modifiers`` are the
    object's own modifiers ("generated" in "generated files"), ``qualifiers`` the other
    content words of the clause (prepositional phrases, adverbs, the subject, a condition),
    ``scope`` those of them that say where the rule applies ("in Makefiles", "for the docs",
    "In tests, …"); ``conditional`` says the clause holds only under a condition.
    """

    positive: bool
    verb: str
    object: str
    qualifiers: frozenset[str] = frozenset()
    conditional: bool = False
    modifiers: frozenset[str] = frozenset()
    scope: frozenset[str] = frozenset()

    @property
    def polarity(self) -> str:
        return "always" if self.positive else "never"


# --- lemmas ---------------------------------------------------------------------------------

_IRREGULAR = {
    "wrote": "write",
    "written": "write",
    "ran": "run",
    "kept": "keep",
    "made": "make",
    "did": "do",
    "done": "do",
    "does": "do",
    "went": "go",
    "gone": "go",
    "goes": "go",
    "had": "have",
    "has": "have",
    "left": "leave",
    "got": "get",
    "gotten": "get",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "built": "build",
    "brought": "bring",
    "sent": "send",
    "found": "find",
    "chose": "choose",
    "chosen": "choose",
    "broke": "break",
    "broken": "break",
    "began": "begin",
    "begun": "begin",
    "threw": "throw",
    "thrown": "throw",
    "hid": "hide",
    "hidden": "hide",
    "overrode": "override",
    "overridden": "override",
    "rewrote": "rewrite",
    "rewritten": "rewrite",
    "undid": "undo",
    "undone": "undo",
    "came": "come",
    "was": "be",
    "were": "be",
    "been": "be",
    "is": "be",
    "are": "be",
    "am": "be",
    "data": "datum",
}
#: forms that are past tense or participles although their stem looks like a base form
_PAST = frozenset(k for k, v in _IRREGULAR.items() if v not in ("be", "datum", "do", "go"))
#: base forms of verbs that end in "ed"
_ED_BASE = frozenset({"need", "embed", "feed", "seed", "shred", "speed", "proceed", "exceed"})


@lru_cache(maxsize=1)
def _stemmer() -> object:
    import Stemmer  # type: ignore[import-not-found,unused-ignore]

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=8192)
def lemma(word: str) -> str:
    """The stem of a lowercase ``word`` (irregular verb forms first mapped to their base)."""
    base = _IRREGULAR.get(word, word)
    if "-" in base:
        return "-".join(lemma(part) for part in base.split("-"))
    stem: str = _stemmer().stemWord(base)  # type: ignore[attr-defined]
    return stem


# --- synonym tables -------------------------------------------------------------------------

#: verb class -> members (phrasal verbs as several words)
_VERB_CLASSES: dict[str, tuple[str, ...]] = {
    "commit": ("commit", "check in"),
    "push": ("push",),
    "merge": ("merge",),
    "force-push": ("force-push", "force push", "force"),
    "add": ("add", "write", "include", "insert", "put", "introduce"),
    "remove": ("remove", "delete", "drop", "strip", "erase"),
    "mock": ("mock", "stub", "fake", "monkeypatch", "monkey-patch"),
    "use": ("use", "rely on", "employ", "utilize", "utilise", "depend on", "leverage"),
    "run": ("run", "execute", "invoke", "launch"),
    "edit": ("edit", "modify", "change", "touch", "alter", "hand-edit", "tweak"),
    "create": ("create", "make", "generate", "produce"),
    "skip": ("skip", "bypass", "disable"),
    "comment": ("comment",),
    "install": ("install",),
    "update": ("update", "upgrade", "bump"),
    "rewrite": ("rewrite", "rebase"),
}
#: verbs of these classes that name a branch they land on form one class, "land"
_LANDING = frozenset({"commit", "push", "merge"})
#: noun class -> members
_NOUN_CLASSES: dict[str, tuple[str, ...]] = {
    "database": ("db", "database", "dbs"),
    "repository": ("repo", "repository"),
    "pr": ("pr", "pull request", "merge request", "mr"),
    "test": ("test", "spec", "test case", "unit test"),
    "main": (
        "main",
        "master",
        "trunk",
        "main branch",
        "master branch",
        "default branch",
        "`main`",
        "`master`",
    ),
    "dependency": ("dependency", "dep", "deps", "third-party package"),
    "code": ("code", "file", "source", "source code", "source file", "code file"),
    "comment": ("comment", "code comment", "inline comment"),
    "docs": ("doc", "docs", "documentation"),
    "secret": ("secret", "credential", "api key"),
    "lockfile": ("lockfile", "lock file", "lockfiles"),
    "hook": ("hook", "git hook", "pre-commit hook", "commit hook"),
    "env-var": ("env var", "environment variable"),
}
#: payload nouns of a landing verb ("push your commits to main" lands on main)
_PAYLOAD = frozenset({"commit", "change", "code", "work", "it", "them", "branch"})
#: nouns that name a part of what they sit in ("every function in generated files")
_PARTS = frozenset({"function", "method", "class", "module", "line", "component", "export"})


#: words that never narrow a rule
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEUTRAL = _words(
    """a an the any all every each your our their its my his her this that these those
    you we i they it them us yourself yourselves ourselves themselves itself one
    directly direct straight ever just also really simply actually explicitly please always
    never still instead again properly anything something everything ever
    agent agents assistant model ai claude codex pi contributor developer everyone anybody
    anyone everybody"""
)
#: words that end the direct object ("push to main", "mock the db in tests")
_PREPOSITIONS = {
    "to": "to",
    "into": "to",
    "onto": "to",
    "in": "in",
    "inside": "in",
    "within": "in",
    "under": "in",
    "on": "on",
    "with": "with",
    "using": "with",
    "via": "with",
    "through": "with",
    "by": "with",
    "for": "for",
    "from": "from",
    "of": "of",
    "at": "at",
    "without": "without",
    "outside": "outside",
    "across": "in",
    "over": "over",
    "as": "as",
    "before": "before",
    "after": "after",
    "during": "in",
    "per": "per",
    "like": "like",
    "about": "about",
}
#: preposition classes whose phrase says where a rule applies
_PLACES = frozenset({"in", "for"})
#: heads of "in …" phrases that say how, not where ("in place", "in parallel")
_MANNER = ("place", "parallel", "general", "order", "bulk", "batch", "full", "advance", "isolation")


@lru_cache(maxsize=1)
def _not_places() -> frozenset[str]:
    return frozenset(lemma(w) for w in _MANNER)


#: words that open a relative clause after a noun ("the code you just wrote")
_RELATIVE = frozenset(
    {"you", "we", "they", "i", "he", "she", "it", "that", "which", "who", "whose", "where"}
)
#: adverbs that are not "-ly" words; "-ly" words that are not adverbs
_ADVERB_WORDS = frozenset(
    {"only", "anywhere", "everywhere", "here", "there", "elsewhere", "locally", "first", "too"}
)
_NOT_ADVERBS = frozenset({"apply", "reply", "supply", "fly", "rely", "family", "assembly"})
#: a verb and the noun after it that make a compound noun, not an imperative ("Commit
#: messages follow …", "Test files live …")
_COMPOUNDS = frozenset(
    {
        ("commit", "messag"),
        ("commit", "subject"),
        ("commit", "hash"),
        ("commit", "histori"),
        ("commit", "log"),
        ("merge", "request"),
        ("merge", "conflict"),
        ("merge", "commit"),
        ("push", "notif"),
        ("run", "time"),
        ("mock", "data"),
        ("mock", "server"),
        ("change", "log"),
        ("test", "file"),
        ("test", "suit"),
        ("build", "output"),
    }
)
#: words that open a reason or purpose: what follows does not narrow the rule
_REASON = frozenset({"because", "since", "so", "which", "otherwise", "but", "or else"})
#: words that open a condition: the frame holds only under it
_CONDITION = frozenset(
    {"if", "when", "whenever", "unless", "once", "before", "after", "while", "until", "except"}
)
#: words that open a scope ("In tests, …"): a qualifier, not a condition
_SCOPE = frozenset({"in", "for", "inside", "within", "on", "across", "under"})
#: marker words before the verb that keep the polarity
_FILLER = frozenset({"please", "you", "we", "always", "ever", "just", "also", "really", "only"})
#: adverbs between the marker and the verb: dropped or kept as qualifiers
_ADVERBS = frozenset(
    {"directly", "ever", "just", "also", "really", "manually", "simply", "explicitly", "only"}
)
_FORBIDDEN = frozenset({"forbidden", "prohibited", "banned", "disallowed", "discouraged"})


def _table(classes: dict[str, tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    table: dict[tuple[str, ...], str] = {}
    for name, members in classes.items():
        for member in members:
            key = tuple(w if w.startswith("`") else lemma(w) for w in member.split())
            table[key] = name
    return table


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[tuple[str, ...], str], dict[tuple[str, ...], str]]:
    return _table(_VERB_CLASSES), _table(_NOUN_CLASSES)


# --- tokens ---------------------------------------------------------------------------------

# Each alternative is possessive, so no start rescans the text after it.
_TOKEN = re.compile(
    r"(?P<code>\x1a++)|(?P<word>[A-Za-z][A-Za-z0-9]*+(?:['\u2019-][A-Za-z0-9]++)*+)"
    r"|(?P<number>\d++(?:[.,]\d++)*+%?)|(?P<punct>[.,;:!?()\u2014\u2013])"
)
_CONTRACTIONS = {
    "don't": ("do", "not"),
    "doesn't": ("do", "not"),
    "didn't": ("did", "not"),
    "mustn't": ("must", "not"),
    "shouldn't": ("should", "not"),
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "won't": ("will", "not"),
    "isn't": ("is", "not"),
    "aren't": ("are", "not"),
    "shan't": ("shall", "not"),
    "needn't": ("need", "not"),
}
#: markers that can stand as a label before a colon ("Never: …", "Do not: …")
_LABEL_MARKERS = frozenset(
    {("never",), ("always",), ("do", "not"), ("must",), ("must", "not"), ("avoid",)}
)
#: clause ends: a new clause starts after these
_CLAUSE_END = frozenset({";", ":", "\u2014", "\u2013", "?", "!", "."})


def _tokens(readable: str, masked: str) -> list[str]:
    """Lowercase words, inline code spans (as "`code`") and punctuation; numbers dropped."""
    out: list[str] = []
    for match in _TOKEN.finditer(masked):
        kind = match.lastgroup
        if kind == "word":
            text = match.group(0).lower().replace("\u2019", "'")
            if text in _CONTRACTIONS:
                out += _CONTRACTIONS[text]
            elif text.endswith("n't"):
                out += (text[:-3], "not")
            else:
                out.append(text)
        elif kind == "code":
            out.append(f"`{readable[match.start() : match.end()].strip().lower()}`")
        elif kind == "punct":
            out.append(match.group(0))
    return out


def _clauses(tokens: list[str]) -> list[tuple[list[str], bool]]:
    """Clauses, each with whether it was a question; parentheses are dropped."""
    clauses: list[tuple[list[str], bool]] = []
    current: list[str] = []
    depth = 0
    for token in tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(depth - 1, 0)
        elif depth:
            continue
        elif token in _CLAUSE_END:
            if token == ":" and len(current) <= 2 and tuple(current) in _LABEL_MARKERS:
                continue  # "Never: edit generated files …" says never to what follows
            if current:
                clauses.append((current, token == "?"))
            current = []
        else:
            current.append(token)
    if current:
        clauses.append((current, False))
    return clauses


# --- reading one clause ---------------------------------------------------------------------


def _is_base(word: str) -> bool:
    """Whether ``word`` can be a verb's base form (not "had", "mocked", "pushes")."""
    if word in _PAST or word in ("be", "is", "are", "was", "were"):
        return False
    if word.endswith("ed") and word not in _ED_BASE:
        return False
    if word.endswith("ing"):
        return False
    return not (word.endswith("s") and not word.endswith("ss") and len(word) > 3)


def _verb_class(words: Sequence[str], at: int) -> tuple[str, int] | None:
    """The verb class of the (phrasal) verb at ``words[at]`` and how many words it takes."""
    verbs, _ = _tables()
    for size in (3, 2, 1):
        key = tuple(lemma(w) for w in words[at : at + size])
        if len(key) == size and key in verbs:
            return verbs[key], size
    return None


def _noun(words: Sequence[str], at: int) -> tuple[str, int]:
    """The noun class of the noun phrase head starting at ``words[at]`` and its length."""
    _, nouns = _tables()
    for size in (3, 2, 1):
        piece = words[at : at + size]
        if len(piece) < size:
            continue
        key = tuple(w if w.startswith("`") else lemma(w) for w in piece)
        if key in nouns:
            return nouns[key], size
    word = words[at]
    return (word if word.startswith("`") else lemma(word)), 1


@dataclass(slots=True)
class _Phrase:
    """A noun phrase: its head and its modifiers (canonical)."""

    head: str
    modifiers: list[str]


def _noun_phrases(words: Sequence[str]) -> list[tuple[str, _Phrase]]:
    """The noun phrases of ``words`` (the part after the verb), each with the preposition
    class that opens it ("" for the direct object); coordination ("X or Y") splits phrases."""
    phrases: list[tuple[str, _Phrase]] = []
    role = ""
    current: list[str] = []
    k = 0

    def close() -> None:
        if current:
            phrases.append((role, _Phrase(current[-1], current[:-1])))
        current.clear()

    while k < len(words):
        word = words[k]
        if word in _RELATIVE and current:
            break  # "code you just wrote": a relative clause ends the phrases read
        if word in _PREPOSITIONS:
            close()
            role = _PREPOSITIONS[word]
            k += 1
            continue
        if word in _ADVERB_WORDS or (word.endswith("ly") and word not in _NOT_ADVERBS):
            # "use named exports only", "run it locally": a qualifier, never a head
            close()
            phrases.append(("adv", _Phrase(lemma(word), [])))
            k += 1
            continue
        if word in ("and", "or", "nor", ","):
            close()
            k += 1
            continue
        if word in _NEUTRAL or word == "not":
            k += 1
            continue
        name, size = _noun(words, k)
        current.append(name)
        k += size
    close()
    return phrases


@dataclass(slots=True)
class _Reading:
    positive: bool
    verb_at: int
    gerund: bool = False
    passive: bool = False


_NEGATIVE_LEADS: tuple[tuple[tuple[str, ...], bool], ...] = (
    # (words, the verb that follows is a gerund)
    (("never",), False),
    (("do", "not"), False),
    (("must", "not"), False),
    (("should", "not"), False),
    (("shall", "not"), False),
    (("may", "not"), False),
    (("can", "not"), False),
    (("are", "not", "to"), False),
    (("avoid",), True),
    (("refrain", "from"), True),
    (("no",), True),
)
_POSITIVE_LEADS: tuple[tuple[str, ...], ...] = (
    ("always",),
    ("must",),
    ("should",),
    ("shall",),
    ("make", "sure", "to"),
    ("make", "sure", "you"),
    ("be", "sure", "to"),
    ("remember", "to"),
    ("need", "to"),
    ("have", "to"),
    ("ensure", "you"),
    ("ensure", "that", "you"),
)


def _starts(words: Sequence[str], at: int, lead: tuple[str, ...]) -> bool:
    return tuple(words[at : at + len(lead)]) == lead


_REVERSED = (("do", "not", "forget", "to"), ("never", "forget", "to"), ("do", "not", "skip"))


_LEAD_FIRST = frozenset(
    lead[0] for lead in (*_REVERSED, *(n for n, _ in _NEGATIVE_LEADS), *_POSITIVE_LEADS)
)
#: words after "no" that make it no prohibition
_NO_IDIOMS = frozenset({"need", "longer", "matter", "problem", "worries", "one", "doubt"})


def _lead(words: Sequence[str], at: int) -> _Reading | None:
    """The polarity marker at ``words[at]`` (after fillers), or a plain imperative."""
    start = at
    positive = False
    for _ in range(4):  # "you must always …", "please make sure to always …"
        while at < len(words) and words[at] in ("please", "you", "we"):
            at += 1
        if at >= len(words) or words[at] not in _LEAD_FIRST:
            break
        if words[at] == "no" and at + 1 < len(words) and words[at + 1] in _NO_IDIOMS:
            return None  # "no need to run …", "no longer …"
        for lead in _REVERSED:
            if _starts(words, at, lead):  # "don't forget to run the tests" asks to run them
                return _Reading(True, at + len(lead))
        for negative, gerund in _NEGATIVE_LEADS:
            if _starts(words, at, negative):
                after = at + len(negative)
                while after < len(words) and words[after] in ("ever", "always"):
                    after += 1
                return _Reading(False, after, gerund=gerund)
        marker = next((p for p in _POSITIVE_LEADS if _starts(words, at, p)), None)
        if marker is None:
            break
        positive = True
        at += len(marker)
    if positive:
        return _Reading(True, at)
    if at == start and at < len(words) and _is_base(words[at]) and _verb_class(words, at):
        following = words[at + 1] if at + 1 < len(words) else ""
        if (lemma(words[at]), lemma(following)) not in _COMPOUNDS:
            return _Reading(True, at)
    return None


_MODALS = frozenset({"must", "should", "shall", "may", "can", "are", "is", "need"})
_PERMITTED = frozenset({"allowed", "permitted", "required", "mandatory", "ok", "okay", "fine"})
#: how far into a clause its modal may sit ("Generated files in `src/gen` must not …")
_SUBJECT_WORDS = 8


def _subject_form(words: Sequence[str]) -> tuple[_Reading, list[str]] | None:
    """The reading of "X must not be edited", "X is forbidden", "Tests should mock the DB",
    and the subject's words."""
    if words and words[0] in ("no", "nobody", "none", "nothing", "neither", "nor"):
        return None  # "No one should …", "No need to …": not read
    for k in range(1, min(len(words), _SUBJECT_WORDS + 1)):
        word = words[k]
        if word in ("not", "never", "always", ","):
            return None
        if word not in _MODALS:
            continue
        subject = list(words[:k])
        rest = k + 1
        negative = False
        if rest < len(words) and words[rest] in ("not", "never"):
            negative = True
            rest += 1
        following = words[rest] if rest < len(words) else ""
        if word in ("is", "are"):
            if following in _FORBIDDEN:
                return _Reading(negative, 0, gerund=True), subject
            if following in _PERMITTED:
                return _Reading(not negative, 0, gerund=True), subject
            return None
        if word in ("may", "can") and not negative:
            return None
        if word == "need":
            if following != "to":
                return None
            rest += 1
        while rest < len(words) and words[rest] in ("always", "ever", "only"):
            rest += 1
        if rest < len(words) and words[rest] == "be":
            return _Reading(not negative, rest + 1, passive=True), subject
        return _Reading(not negative, rest), subject
    return None


#: words after a comma that open a clause of its own ("…, always open a PR instead")
_NEW_CLAUSE = frozenset({"always", "never", "instead", "do", "must", "please", "then"})


def _condition(words: list[str]) -> tuple[list[str], list[str], bool]:
    """Split a leading condition or scope ("If X, …", "In tests, …") and a trailing one ("…
    unless X"): (main words, qualifier words, conditional)."""
    qualifiers: list[str] = []
    conditional = False
    if words and (words[0] in _CONDITION or words[0] in _SCOPE) and "," in words:
        cut = words.index(",")
        qualifiers += words[1:cut]
        conditional = words[0] in _CONDITION
        words = words[cut + 1 :]
    elif words and words[0] in _CONDITION:
        return [], words, True
    for k, word in enumerate(words):
        if word in ("unless", "if", "when", "whenever", "except", "until", "once"):
            qualifiers += words[k + 1 :]
            return words[:k], qualifiers, True
        if word in _REASON or (word == "," and k + 1 < len(words) and words[k + 1] in _REASON):
            return words[:k], qualifiers, conditional
    return words, qualifiers, conditional


#: words a leading condition may hold before its comma
_CONDITION_WORDS = 16


def _comma_clauses(words: list[str]) -> list[list[str]]:
    """``words`` cut before each comma that opens a clause of its own ("…, always open a PR
    instead"), in one pass."""
    pieces: list[list[str]] = [[]]
    for k, word in enumerate(words):
        piece = pieces[-1]
        # the first comma after "If …" / "In tests …" ends the condition, not the clause
        opened = bool(piece) and (piece[0] in _CONDITION or piece[0] in _SCOPE)
        closed = not opened or "," in piece[-_CONDITION_WORDS:] or len(piece) > _CONDITION_WORDS
        if word == "," and k + 1 < len(words) and words[k + 1] in _NEW_CLAUSE and closed:
            pieces.append([])
            continue
        piece.append(word)
    return pieces


def _canonical(words: Sequence[str]) -> list[str]:
    """Content words as canonical nouns or stems (determiners, pronouns dropped)."""
    out: list[str] = []
    k = 0
    while k < len(words):
        word = words[k]
        if word in _NEUTRAL or word in _PREPOSITIONS or word in ("and", "or", "not", ","):
            k += 1
            continue
        name, size = _noun(words, k)
        out.append(name)
        k += size
    return out


#: coordinated verbs or objects read from one clause ("edit, move or delete X, Y or Z")
_MAX_EACH = 4
#: words a gerund reading may skip before its verb-like noun ("No direct commits to main")
_GERUND_REACH = 3


def _clause_frames(words: list[str]) -> list[Frame]:
    frames: list[Frame] = []
    for piece in _comma_clauses(words):
        start = 0
        while start < len(piece) and piece[start] in (",", "and", "then"):
            start += 1
        main, outer, conditional = _condition(piece[start:])
        frames += _main_frames(main, outer, conditional)
    return frames


def _main_frames(words: list[str], outer: list[str], conditional: bool) -> list[Frame]:
    if not words:
        return []
    reading = _lead(words, 0)
    subject: list[str] = []
    if reading is None:
        found = _subject_form(words)
        if found is None:
            return []
        reading, subject = found
    nominal = reading.gerund and reading.verb_at == 0
    rest = subject if nominal else words[reading.verb_at :]
    if nominal:
        subject = []
    qualifiers = list(outer)
    k = 0
    while k < len(rest) and rest[k] in _ADVERBS:
        qualifiers.append(rest[k])
        k += 1
    if reading.gerund:
        # "avoid mocking …", "no direct commits to main", "force pushes are forbidden"
        reach = k + _GERUND_REACH
        while k < len(rest) and k < reach and _verb_class(rest, k) is None:
            qualifiers.append(rest[k])
            k += 1
        if k >= len(rest) or _verb_class(rest, k) is None:
            return []
    if k >= len(rest):
        return []
    verb_word = rest[k]
    if reading.passive:
        if not (verb_word.endswith(("ed", "en")) or verb_word in _PAST):
            return []
    elif not reading.gerund and not _is_base(verb_word):
        return []
    if verb_word in _NOT_VERBS or verb_word in _PREPOSITIONS or verb_word in _NEUTRAL:
        return []
    if not verb_word[0].isalpha():
        return []
    verbs: list[str] = []
    while True:
        known = _verb_class(rest, k)
        if known is not None:
            verbs.append(known[0])
            k += known[1]
        else:
            verbs.append(lemma(verb_word))
            k += 1
        # "edit or delete …": coordinated verbs share the object
        if k + 1 < len(rest) and rest[k] in ("or", "and", "nor", ",") and _verb_class(rest, k + 1):
            k += 1
            verb_word = rest[k]
            continue
        break
    after = rest[k:]
    if reading.passive:
        head, modifiers = _head(subject)
        if not head:
            return []
        phrases = [("", _Phrase(head, modifiers)), *_noun_phrases(after)]
    else:
        phrases = _noun_phrases(after)
        qualifiers += subject
    quals = [q for q in _canonical(qualifiers) if q not in _dropped()]
    scope = frozenset(_canonical(outer)) if outer and not conditional else frozenset()
    return [
        frame
        for verb in list(dict.fromkeys(verbs))[:_MAX_EACH]
        for frame in _frames(reading.positive, verb, phrases, quals, conditional, scope)
    ]


#: words at the verb's place that make no action frame
_NOT_VERBS = frozenset(
    {"need", "have", "be", "get", "do", "let", "go", "not", "no", "and", "or", "a", "the"}
)
#: qualifier words that do not narrow a rule
_DROPPED_WORDS = ("directly", "direct", "straight", "ever", "just", "also", "really", "simply")


@lru_cache(maxsize=1)
def _dropped() -> frozenset[str]:
    return frozenset(lemma(w) for w in _DROPPED_WORDS)


def _head(words: Sequence[str]) -> tuple[str, list[str]]:
    phrases = _noun_phrases(words)
    if not phrases:
        return "", []
    _, phrase = phrases[0]
    return phrase.head, phrase.modifiers + [q for _, p in phrases[1:] for q in _flat(p)]


def _flat(phrase: _Phrase) -> list[str]:
    return [*phrase.modifiers, phrase.head]


def _frames(
    positive: bool,
    verb: str,
    phrases: list[tuple[str, _Phrase]],
    qualifiers: Iterable[str],
    conditional: bool,
    scope: frozenset[str] = frozenset(),
) -> list[Frame]:
    quals = set(qualifiers)
    places = set(scope)
    if verb == "add" and phrases and phrases[0][0] == "" and phrases[0][1].head == "comment":
        # "add comments to generated code" reads as "comment generated code"
        verb = "comment"
        phrases = [("", p) if k == 0 else (r, p) for k, (r, p) in enumerate(phrases[1:])]
    objects: list[_Phrase] = []
    others: list[tuple[str, _Phrase]] = []
    if verb in _LANDING:
        targets = [p for r, p in phrases if r in ("to", "on")]
        if targets:
            # "push your commits to main" lands on main: the payload does not narrow it
            verb = "land"
            objects = targets[:1]
            others = [(r, p) for r, p in phrases if p is not targets[0] and p.head not in _PAYLOAD]
    if not objects:
        direct = [p for r, p in phrases if r == ""]
        if direct:
            # coordinated direct objects ("edit X or Y") make one frame each
            objects = direct
            others = [(r, p) for r, p in phrases if r != ""]
        elif phrases and phrases[0][0] in ("to", "on", "with", "in"):
            objects = [phrases[0][1]]
            others = phrases[1:]
    for role, phrase in others:
        quals.update(_flat(phrase))
        if role in _PLACES and phrase.head not in _not_places():
            places.update(_flat(phrase))
    quals -= _dropped()
    out: list[Frame] = []
    for phrase in objects[:_MAX_EACH]:
        extra = set(quals)
        if phrase.head in _PARTS and others and others[0][0] == "in":
            # "every function in generated files": the part's container is the object
            container = others[0][1]
            head, modifiers = container.head, container.modifiers
            extra.difference_update(_flat(container))
            extra.update(phrase.modifiers)
        else:
            head, modifiers = phrase.head, phrase.modifiers
        kinds = frozenset(m for m in modifiers if m not in _PARTS) - _dropped()
        extra.discard(head)
        extra -= _PARTS
        extra -= kinds
        where = frozenset(places & extra)
        out.append(Frame(positive, verb, head, frozenset(extra), conditional, kinds, where))
    return out


def frames_of(readable: str, masked: str | None = None) -> tuple[Frame, ...]:
    """The action frames of one sentence: ``readable`` is its plain text, ``masked`` the same
    text with inline code replaced by :data:`~pi_lsp.lint.choices.CODE_MASK` (each code span
    becomes one object token)."""
    if masked is None or len(masked) != len(readable):
        masked = readable
    frames: dict[Frame, None] = {}
    for clause, question in _clauses(_tokens(readable, masked)):
        if not question:
            frames.update(dict.fromkeys(_clause_frames(clause)))
    return tuple(frames)


# --- comparing frames -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FramePair:
    """Two instructions whose action frames have opposite polarity on one object.

    A ``confident`` pair shares the verb class and the object with its modifiers, neither
    side under a condition, and every qualifier of the *never* side is also on the *always*
    side: tier 1 reports it. The others are candidates for a judge (tier 2); ``reason``
    says what kept the pair from being confident ("different actions on …", "different
    kinds of …", "the never side is narrower: …", "the always side says only", "the always
    side is scoped: …", "one side holds under a condition").
    """

    later: Instruction
    earlier: Instruction
    later_frame: Frame
    earlier_frame: Frame
    confident: bool
    reason: str
    #: positions of the two instructions in the sequence given to :func:`frame_pairs`
    later_index: int = 0
    earlier_index: int = 0


#: earlier instructions kept per object and polarity for candidates, so one object named in
#: a hundred rules stays cheap (confident matches are found by key, without this limit)
_PER_KEY = 8


def _reason(a: Frame, b: Frame) -> str | None:
    """None for a confident match, else why not. The positive side may be narrower than the
    negative one ("never push to main" / "always push to main on Fridays": what it asks for
    is still forbidden), not wider ("never edit generated files by hand" / "always edit
    generated files": they can be edited another way)."""
    reasons: list[str] = []
    if a.verb != b.verb:
        reasons.append(f"different actions on \u201c{a.object}\u201d: {a.verb} / {b.verb}")
    if a.modifiers != b.modifiers:
        only = sorted(a.modifiers ^ b.modifiers)
        reasons.append(f"different kinds of \u201c{a.object}\u201d: " + ", ".join(only[:6]))
    if a.conditional or b.conditional:
        reasons.append("one side holds under a condition")
    negative, positive = (b, a) if a.positive else (a, b)
    if lemma("only") in positive.qualifiers:
        # "push to main only through the merge queue" restricts how, it does not ask to
        reasons.append("the always side says only")
    scoped = sorted((positive.qualifiers - negative.qualifiers) & positive.scope)
    if scoped:
        # "never use tabs" / "use tabs in Makefiles": an exception for one place, maybe meant
        reasons.append("the always side is scoped: " + ", ".join(scoped[:6]))
    if not negative.qualifiers <= positive.qualifiers:
        only = sorted(negative.qualifiers - positive.qualifiers)
        reasons.append("the never side is narrower: " + ", ".join(only[:6]))
    return "; ".join(reasons) or None


def _key(frame: Frame, positive: bool) -> tuple[str, str, frozenset[str], frozenset[str], bool]:
    return frame.verb, frame.object, frame.modifiers, frame.qualifiers, positive


def frame_pairs(instructions: Sequence[Instruction]) -> list[FramePair]:
    """Later instructions against earlier ones (``instructions`` in prompt order) whose
    frames share an object with opposite polarity, in the later instruction's order: one pair
    per (later, earlier), confident when any of their frames match confidently. Each later
    frame meets the earliest frame with the same verb, object and qualifiers by key, and at
    most :data:`_PER_KEY` earlier instructions per object and polarity otherwise."""
    confident: dict[tuple[str, str, frozenset[str], frozenset[str], bool], tuple[int, Frame]] = {}
    seen: dict[tuple[str, bool], list[tuple[int, Frame]]] = {}
    pairs: list[FramePair] = []
    for position, later in enumerate(instructions):
        best: dict[int, FramePair] = {}
        for frame in later.frames:
            match = None if frame.conditional else confident.get(_key(frame, not frame.positive))
            if match is not None:
                at, old = match
                best[at] = FramePair(
                    later, instructions[at], frame, old, True, "same action", position, at
                )
            for at, old in seen.get((frame.object, not frame.positive), ()):
                reason = _reason(frame, old)
                if at not in best or (reason is None and not best[at].confident):
                    best[at] = FramePair(
                        later,
                        instructions[at],
                        frame,
                        old,
                        reason is None,
                        reason or "same action",
                        position,
                        at,
                    )
        pairs += [best[at] for at in sorted(best)]
        for frame in later.frames:
            if not frame.conditional:
                confident.setdefault(_key(frame, frame.positive), (position, frame))
            bucket = seen.setdefault((frame.object, frame.positive), [])
            if len(bucket) < _PER_KEY and all(at != position for at, _ in bucket):
                bucket.append((position, frame))
    return pairs
