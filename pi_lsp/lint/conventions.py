"""Conventions and process rules read by their shape, beside the catalogue reading of choices.

The catalogue reading (:func:`pi_lsp.lint.choices.read_choices`) wants an imperative, a modal
or a convention stated with one of a few verbs. Rules about how a project writes, merges and
answers are often phrased otherwise, and these shapes are read here:

* **a value a convention verb or preposition introduces**, for roles whose values are terms of
  art ("past tense", "rebase-and-merge", "British English", "NumPy style"), in a clause that
  names what the role is about: "we write them in the past tense" (commits), "we land changes
  with rebase-and-merge", "docs follow American English", "`page.tsx` is the file's default
  export", "open your PR against main", "name your branch after yourself";
* **a config setting written in code**, whatever verb frames it: "`tsconfig.json` sets
  `"strict": false`", "mypy runs in `strict = true` mode", "the csproj sets
  `<Nullable>disable</Nullable>`": the code is the setting;
* **a reply language asked for in another language** ("Antworte immer auf Deutsch",
  "Réponds en français", "Responde en español", "请用中文回答"): the language the rule asks
  for, never the language it is written in;
* **an example list of spellings** that shows the variety meant ("colour, organise" is
  British, "color, organize" American), in a clause about spelling or docs;
* **a required Markdown heading in the reply** ("finish every task with a `## Summary`
  heading"), not one in a PR template or a file.

What is read here is a choice only where the clause is a rule at all: the caller passes
``ruled`` false for questions, narrative, hedges and clauses opened by a scope. Values after a
subordinate clause ("even when …", "unless …", "auch wenn …") are conditions, and a clause
that names two varieties of one role (a bad example quoted beside the good one) chooses none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pi_lsp.lint import cues, vocabulary

Stance = Literal["prefer", "reject"]

#: The character that stands for inline code in a clause's masked text (see choices).
CODE_MASK = vocabulary.CODE_MASK


@dataclass(frozen=True, slots=True)
class Stated:
    """One value a convention clause prefers or rejects; offsets index the clause."""

    dimension: str
    value: str
    stance: Stance
    start: int
    end: int
    group: str = ""


def _i(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _value(dimension: str, value: str, stance: Stance, start: int, end: int) -> Stated:
    """A choice of a catalogue value found by a shape, not by its aliases: its ecosystem
    group is the catalogue's."""
    role = vocabulary.current().by_name.get(dimension)
    group = next((v.group for v in role.values if v.name == value), "") if role else ""
    return Stated(dimension, value, stance, start, end, group)


# --- values a convention verb or preposition introduces --------------------------------------

#: roles whose values are terms of art, and what a clause must name for one to count: the
#: thing the role is about (commits for the tense, PRs for the base branch)
_STATED_ROLES: dict[str, re.Pattern[str]] = {
    "commit-tense": _i(r"\bcommit"),
    "commit-convention": _i(r"\bcommit"),
    "merge-strategy": _i(r"\b(?:merg\w*|land\w*|prs?|pull requests?|mrs?|merge requests?)\b"),
    "pr-base-branch": _i(r"\b(?:prs?|pull requests?|mrs?|merge requests?)\b"),
    "documentation-spelling": _i(
        r"\b(?:spell\w*|docs?|documentation|readmes?|prose|guides?|comments?|changelogs?|"
        r"writing|written|english)\b"
    ),
    "docstring-style": _i(r"\bdocstring"),
    "export-style": _i(r"\bexport"),
    "branch-naming": _i(r"\bbranch"),
    "string-externalisation": _i(r"\b(?:strings?|copy|text|labels?|messages?|i18n)\b"),
    "python-type-strictness": _i(r"\b(?:mypy|pyright|typ(?:e|es|ing)|annotat\w*)\b"),
    "sql-keyword-case": _i(r"\bsql\b"),
    "action-pinning": _i(r"\bactions?\b"),
}
#: the roles whose subject a section title may name for its clauses ("## Commit messages")
_TOPIC_ROLES = frozenset({"commit-tense", "commit-convention"})
#: a section title that names the subject of :data:`_TOPIC_ROLES`
_TOPIC = _i(r"\bcommit")
#: a text other than a commit that a clause names: the section's topic is not its subject
_OWN_TEXT = _i(
    r"\b(?:changelogs?|release notes|prs?|pull requests?|merge requests?|mrs?|docs?|"
    r"documentation|readmes?|comments?|docstrings?|issues?|tickets?|titles?|branch\w*+|"
    r"tags?|logs?|replies|reply|answers?|responses?)\b"
)
#: what opens the reason or condition of a rule: the texts named after it are not its subject
_REASON = _i(r"\b(?:so|because|since|as|unless|except|if|when)\b")
#: the words right before a value that introduce it as what a convention is: a preposition,
#: a verb of following or using, a copula; an article, a possessive or "them in the" between
_LED = re.compile(
    r"(?<=\w):\s++[`*_\"'\x1a]{0,2}+$|"
    r"\b(?:in|with|via|using|by|through|follows?|following|uses?|prefers?|adopts?|is|are|"
    r"against|into|onto|targets?|after)\s++"
    r"(?:(?:the|a|an|our|your|their|its|them|it|in|[\w.-]++['\u2019]s)\s++){0,3}+"
    r"[`*_\"'\x1a]{0,2}+$",
    re.IGNORECASE,
)
#: an alias that opens with its own preposition ("against main", "after yourself")
_SELF_LED = re.compile(
    r"(?:against|into|onto|after|with|target\w*+|based?|prefixed|by)\s", re.IGNORECASE
)
#: a value at the very start of a clause, used as its verb ("Hardcode English strings …",
#: "Squash-merge every PR"), followed by more words (not a label's colon)
_OPENING = re.compile(
    r"^[\s*_>\-+\d.)]*+(?:(?:always|please|just|only|we|you|must|should|then)\s++){0,3}+$",
    re.IGNORECASE,
)
#: a cue right before a value that rejects it ("not the past tense", "instead of squashing")
_REJECTED = re.compile(
    rf"\b(?:{cues.REJECTING}|no|without|exempt from|opt out of|turn off|switch off|disable)"
    r"\s++(?:(?:the|a|an|any|use|using|in|with)\s++){0,2}+[`*_\"'\x1a]{0,2}+$",
    re.IGNORECASE,
)

#: a subject that speaks of some cases or of what is not the project's own
_PARTIAL = re.compile(
    r"\b(?:legacy|old|older|deprecated|some|several|few|certain|other|others|upstream|"
    r"vendor(?:ed)?|third[- ]party|examples?|samples?|fixtures?|sometimes|release|hotfix(?:es)?|"
    r"bots?|dependabot|renovate)\b",
    re.IGNORECASE,
)
#: a subordinate clause: the values after it are conditions ("even when", "unless", "if")
_SUBORDINATE = re.compile(
    r"\b(?:even (?:when|if|though|where)|unless|except|other than|if|when|whenever|"
    r"although|though|because|since|until|while|whereas)\b",
    re.IGNORECASE,
)
#: user-facing copy, not documentation: a spelling rule for it is another decision
_UI_COPY = re.compile(
    r"\b(?:ui|user[- ]facing|user[- ]visible|product|in-app|marketing|interface)\s++"
    r"(?:copy|strings?|text|labels?|messages?)\b",
    re.IGNORECASE,
)
_DOCS = re.compile(
    r"\b(?:docs?|documentation|readmes?|prose|guides?|comments?|changelogs?|docstrings?)\b",
    re.IGNORECASE,
)


#: how far before a value its cues are read
_WINDOW = 200


def _stated_values(
    clause: str, masked: str, found: Sequence[vocabulary.Found], topic: str = ""
) -> list[Stated]:
    out: list[Stated] = []
    negated = cues.NEGATED_START.match(masked) is not None
    first_end = found[0].end if found else 0
    sub = _SUBORDINATE.search(masked, first_end)
    cut = sub.start() if sub is not None else len(masked)
    named: dict[str, bool] = {}
    for hit in found:
        name = hit.dimension.name
        subject = _STATED_ROLES.get(name)
        if subject is None or hit.start >= cut:
            continue
        if name not in named:
            named[name] = subject.search(masked) is not None or (
                name in _TOPIC_ROLES and subject.search(topic) is not None
            )
        if not named[name]:
            continue
        # what comes before a value is read in a window, so a clause naming many values costs
        # each of them the same
        window = max(0, hit.start - _WINDOW)
        if masked[hit.start : hit.start + 1] == CODE_MASK and not _in_code_whole(masked, hit):
            continue  # a word inside a longer code span names code, not the convention
        before = masked[max(0, hit.start - 80) : hit.start]
        text = clause[hit.start : hit.end]
        if off_topic(name, masked) or _consumed(name, masked, window, hit.start):
            continue
        rejected = _REJECTED.search(before) is not None
        led = (
            rejected
            or _LED.search(before) is not None
            or _SELF_LED.match(text) is not None
            or (_OPENING.match(before) is not None and _verb_use(clause, masked, hit))
        )
        if not led or _PARTIAL.search(masked, window, hit.start):
            continue
        if rejected:
            stance: Stance = "reject"
        elif negated:
            stance = "reject"
            if re.search(r"\b(?:instead|but|rather)\b|;", before, re.IGNORECASE):
                continue
        elif cues.NEGATION.search(masked, window, hit.start):
            continue
        else:
            stance = "prefer"
        out.append(Stated(name, hit.value, stance, hit.start, hit.end, hit.group))
    return out


#: what after a value that opens a clause makes it the clause's subject, not its verb
_SUBJECT_NEXT = re.compile(
    r"\s++(?:is|are|was|were|must|should|will|would|gets?|needs?|has|have|can|may|stays?)\b",
    re.IGNORECASE,
)


#: a clause about using what another module exports ("import X through its default export")
_IMPORTED = _i(r"\b(?:import\w*|require\w*|consum\w*)\b")


def _consumed(name: str, masked: str, start: int, end: int) -> bool:
    """Whether an export style is named for importing a dependency, not for writing one."""
    return name == "export-style" and _IMPORTED.search(masked, start, end) is not None


def _verb_use(clause: str, masked: str, hit: vocabulary.Found) -> bool:
    """Whether a value that opens a clause is its verb ("Hardcode English strings …",
    "Squash-merge every PR"): a base form followed by more words, not a subject ("Hardcoded
    strings are …") nor the label of a description ("Squash and merge: …")."""
    first = clause[hit.start : hit.end].split()[0].lower().rstrip(",.")
    if first.endswith(("ed", "ing")):
        return False
    rest = masked[hit.end : hit.end + 3]
    if not rest or rest[0] not in " \t" or not rest.strip()[:1].isalnum():
        return False
    return _SUBJECT_NEXT.match(masked, hit.end) is None


def _in_code_whole(masked: str, hit: vocabulary.Found) -> bool:
    """Whether the value fills its inline code span (`rebase-and-merge`)."""
    begin, end = hit.start, hit.end
    return (begin == 0 or masked[begin - 1] != CODE_MASK) and (
        end >= len(masked) or masked[end] != CODE_MASK
    )


# --- a config setting written in code --------------------------------------------------------

#: the text of a value that is a setting: a key and a value ("strict: true", `a = b`), an XML
#: element (`<Nullable>disable</Nullable>`), a pragma (`#nullable disable`) or a flag
_SETTING = re.compile(
    r"^[\"']?+[\w.-]++[\"']?+\s*+(?::\s|=)|^[\"']?+[\w.-]++[\"']?+\s=|^<\w|^#\w|^--\w",
    re.IGNORECASE,
)


#: a cue before a setting that takes it away ("never set `x`", "replace `x` with …")
_REMOVED = re.compile(
    r"\b(?:(?:never|don['\u2019]?t|do not|no longer)\s++(?:\w++\s++){0,2}+|replace|remove|"
    r"drop|delete|get rid of|revert|undo|swap|replacing|removing)\s*+[`\x1a\"']*+$",
    re.IGNORECASE,
)


def _config_settings(clause: str, masked: str, found: Sequence[vocabulary.Found]) -> list[Stated]:
    out: list[Stated] = []
    for hit in found:
        if masked[hit.start : hit.start + 1] != CODE_MASK:
            continue
        text = clause[hit.start : hit.end]
        if not _SETTING.search(text):
            continue
        begin = hit.start
        while begin > 0 and masked[begin - 1] == CODE_MASK:
            begin -= 1
        before = masked[max(0, begin - 80) : begin]
        if _PARTIAL.search(masked, max(0, begin - _WINDOW), begin):
            continue  # "the upstream template ships `strict: false`"
        if _REJECTED.search(before) or _REMOVED.search(before):
            stance: Stance = "reject"
        elif cues.NEGATION.search(masked, _segment_start(masked, begin), begin):
            continue
        else:
            stance = "prefer"
        out.append(Stated(hit.dimension.name, hit.value, stance, hit.start, hit.end, hit.group))
    return out


def _segment_start(masked: str, end: int) -> int:
    """Where the part of a clause that ``end`` is in begins: after the last colon or comma
    before it ("exempt from strict typing: … with `strict = false`")."""
    start = max(0, end - _WINDOW)
    return max(start - 1, masked.rfind(":", start, end), masked.rfind(",", start, end)) + 1


# --- a reply language asked for in another language ------------------------------------------

#: per language of the rule: the verbs of replying, the way a language is named after them
#: (a preposition and the language's name in that language) and the subordinate clauses whose
#: languages are conditions ("auch wenn ich auf Englisch frage")
_LANGUAGE_NAMES: dict[str, dict[str, str]] = {
    "de": {
        "deutsch": "German",
        "englisch": "English",
        "französisch": "French",
        "spanisch": "Spanish",
        "italienisch": "Italian",
        "portugiesisch": "Portuguese",
        "niederländisch": "Dutch",
        "chinesisch": "Chinese",
        "japanisch": "Japanese",
        "koreanisch": "Korean",
        "russisch": "Russian",
    },
    "fr": {
        "français": "French",
        "francais": "French",
        "anglais": "English",
        "allemand": "German",
        "espagnol": "Spanish",
        "italien": "Italian",
        "portugais": "Portuguese",
        "néerlandais": "Dutch",
        "chinois": "Chinese",
        "japonais": "Japanese",
        "coréen": "Korean",
        "russe": "Russian",
    },
    "es": {
        "español": "Spanish",
        "castellano": "Spanish",
        "inglés": "English",
        "ingles": "English",
        "alemán": "German",
        "francés": "French",
        "italiano": "Italian",
        "portugués": "Portuguese",
        "chino": "Chinese",
        "japonés": "Japanese",
    },
    "it": {
        "italiano": "Italian",
        "inglese": "English",
        "tedesco": "German",
        "francese": "French",
        "spagnolo": "Spanish",
        "portoghese": "Portuguese",
    },
    "pt": {
        "português": "Portuguese",
        "portugues": "Portuguese",
        "inglês": "English",
        "alemão": "German",
        "francês": "French",
        "espanhol": "Spanish",
        "italiano": "Italian",
    },
    "nl": {
        "nederlands": "Dutch",
        "engels": "English",
        "duits": "German",
        "frans": "French",
        "spaans": "Spanish",
    },
}
_LANGUAGE_RULES: dict[str, tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = {
    code: (
        verbs,
        re.compile(rf"\b(?:{prepositions})\s++({'|'.join(_LANGUAGE_NAMES[code])})\b", re.I),
        subs,
    )
    for code, (verbs, prepositions, subs) in {
        "de": (
            _i(r"\b(?:antwort\w*|schreib\w*|kommunizier\w*|sprich|sprechen|rede\w*|formulier\w*)"),
            "auf|in",
            _i(
                r"\b(?:auch wenn|selbst wenn|wenn|falls|au(?:ß|ss)er|sofern|weil|obwohl|"
                r"es sei denn)\b"
            ),
        ),
        "fr": (
            _i(r"\b(?:r[ée]pon\w*|[ée]cri\w*|communiqu\w*|parle\w*|r[ée]dige\w*)"),
            "en",
            _i(r"\b(?:m[êe]me si|m[êe]me quand|sauf|si|quand|lorsque|parce que|bien que)\b"),
        ),
        "es": (
            _i(r"\b(?:respon\w*|contesta\w*|escrib\w*|comunica\w*|habla\w*|redacta\w*)"),
            "en",
            _i(r"\b(?:aunque|incluso si|incluso cuando|salvo|excepto|si|cuando|porque)\b"),
        ),
        "it": (
            _i(r"\b(?:rispond\w*|scriv\w*|comunica\w*|parla\w*)"),
            "in",
            _i(r"\b(?:anche se|anche quando|tranne|salvo|se|quando|perché|perche)\b"),
        ),
        "pt": (
            _i(r"\b(?:respond\w*|escrev\w*|comuniqu\w*|fal[ae]\w*)"),
            "em",
            _i(r"\b(?:mesmo que|mesmo se|mesmo quando|exceto|se|quando|porque)\b"),
        ),
        "nl": (
            _i(r"\b(?:antwoord\w*|schrijf\w*|communiceer\w*|spreek\w*)"),
            r"in het|in",
            _i(r"\b(?:ook als|zelfs als|tenzij|behalve|als|wanneer|omdat)\b"),
        ),
    }.items()
}
#: what a rule may ask to write in a language that is not the reply: commits, code, comments,
#: identifiers, docs, PRs, issues, tickets, files (in the languages above and in English)
_ARTEFACTS = _i(
    r"\b(?:commit\w*|code\w*|kommentar\w*|commentaire\w*|comentario\w*|commento\w*|"
    r"bezeichner\w*|identifi\w*|variab\w*|dokument\w*|document\w*|doc\w*|readme\w*|prs?|"
    r"pull requests?|issues?|tickets?|changelog\w*|dateien|datei|fichiers?|archivos?|file|"
    r"nomi|noms|nombres|namen)\b"
)
_LANGUAGE_NEGATION = _i(r"\b(?:nicht|nie|niemals|kein\w*|pas|jamais|nunca|non|mai|niet|nooit)\b")
#: Chinese and Japanese: "用中文回答" / "请使用英文回复", "日本語で回答してください"
_CJK_NAMES = {
    "中文": "Chinese",
    "汉语": "Chinese",
    "漢語": "Chinese",
    "英文": "English",
    "英语": "English",
    "英語": "English",
    "日语": "Japanese",
    "日文": "Japanese",
    "日本語": "Japanese",
    "德语": "German",
    "ドイツ語": "German",
    "法语": "French",
    "中国語": "Chinese",
}
_CJK_NAMES.update(
    {
        "한국어": "Korean",
        "영어": "English",
        "일본어": "Japanese",
        "중국어": "Chinese",
        "독일어": "German",
    }
)
_CJK_NAME = "|".join(_CJK_NAMES)
_CJK_RULE = re.compile(
    rf"(?:用|以|使用)\s*+({_CJK_NAME})\s*+(?:来\s*+)?(?:回答|回复|回覆|答复|交流|沟通|回應)"
    rf"|({_CJK_NAME})\s*+で\s*+(?:回答|返信|答え|返答|応答|話)"
    rf"|({_CJK_NAME})\s*+로\s*+(?:답변|대답|응답|답)"
)
_RUSSIAN = re.compile(
    r"\b(?:отвеча\w*|ответь\w*|пиши\w*|общайся|общайтесь)\b[^.;]{0,40}?"
    r"(?:\bна\s++(русском|английском|немецком|французском)|\bпо-(русски|английски|немецки))",
    re.IGNORECASE,
)
_RUSSIAN_NAMES = {
    "русском": "Russian",
    "русски": "Russian",
    "английском": "English",
    "английски": "English",
    "немецком": "German",
    "немецки": "German",
    "французском": "French",
}
#: an English rule that names the reply language without "in": "use Japanese for all
#: replies", "speak German with me", "replies: Dutch" is the catalogue's
_ENGLISH_NAMES = (
    "English",
    "French",
    "German",
    "Spanish",
    "Chinese",
    "Japanese",
    "Korean",
    "Portuguese",
    "Italian",
    "Russian",
    "Dutch",
)
_LANGUAGE_FOR_REPLIES = re.compile(
    rf"\b(?:use|write|speak|talk)\s++({'|'.join(_ENGLISH_NAMES)})\s++(?:(?:with|to)\s++(?:me|us)\b|"
    r"(?:for|in)\s++(?:(?:all|every|each|your|the|our)\s++)?(?:chat\s++)?"
    r"(?:repl(?:y|ies)|responses?|answers?|chat|conversations?|communication)\b)",
    re.IGNORECASE,
)


def _reply_language(clause: str, masked: str) -> list[Stated]:
    """The reply language a rule written in another language asks for."""
    found = _CJK_RULE.search(masked)
    if found is not None:
        name = found.group(1) or found.group(2) or found.group(3) or ""
        return [_value("response-language", _CJK_NAMES[name], "prefer", *found.span())]
    found = _RUSSIAN.search(masked)
    if found is not None:
        name = (found.group(1) or found.group(2) or "").lower()
        return [_value("response-language", _RUSSIAN_NAMES[name], "prefer", *found.span())]
    found = _LANGUAGE_FOR_REPLIES.search(masked)
    if found is not None and not cues.NEGATION.search(masked, 0, found.start()):
        name = found.group(1).capitalize()
        return [_value("response-language", name, "prefer", *found.span(1))]
    for code, (verbs, named, subordinate) in _LANGUAGE_RULES.items():
        verb = verbs.search(masked)
        if verb is None:
            continue
        language = named.search(masked, verb.end())
        if language is None:
            continue
        word = language.group(1).lower()
        value = _LANGUAGE_NAMES[code].get(word)
        sub = subordinate.search(masked, verb.end(), language.start())
        if value is None or sub is not None or _ARTEFACTS.search(masked, 0, language.start()):
            continue
        negated = _LANGUAGE_NEGATION.search(masked, 0, language.start()) is not None
        if negated:
            continue  # "nicht auf Englisch": what is wanted instead is not read
        return [_value("response-language", value, "prefer", *language.span(1))]
    return []


# --- an example list of spellings ------------------------------------------------------------


#: words that are spelled one way in British and another in American English
def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_BRITISH = _word_set(
    "colour colours behaviour behaviours organise organised organising organisation "
    "normalise normalised licence centre centres analyse analysed catalogue favour honour "
    "grey cancelled cancelling travelled modelling labelled labelling initialise optimise "
    "optimised recognise realise customise customised serialise serialised summarise "
    "utilise minimise maximise prioritise apologise defence offence neighbour flavour "
    "humour rumour judgement programme dialogue artefact"
)
_AMERICAN = _word_set(
    "color colors behavior behaviors organize organized organizing organization normalize "
    "normalized center centers analyze analyzed catalog favor honor gray canceled "
    "canceling traveled modeling labeled labeling initialize optimize optimized recognize "
    "realize customize customized serialize serialized summarize utilize minimize maximize "
    "prioritize apologize defense offense neighbor flavor humor rumor judgment dialog "
    "artifact"
)
_SPELLING_TOPIC = _i(r"\b(?:spell\w*|english|prose|wording|docs?|documentation|readmes?)\b")
_WORDS = re.compile(r"[^\W\d_]++")


#: what stands between two words of an example list: marks, quotes, "and" / "or", "as a noun"
_LIST_MARKS = "[\\s,;/()\"'\u201c\u201d\u2018\u2019*_-]*+"
_LIST_GAP = re.compile(
    rf"{_LIST_MARKS}(?:(?:and|or|as an? \w++)\s*+{_LIST_MARKS})?",
    re.IGNORECASE,
)


def _listed(masked: str, words: list[re.Match[str]]) -> list[re.Match[str]]:
    """The longest run of ``words`` that stand next to each other as a list ("colour,
    organise, behaviour"); words far apart in a sentence are no example list."""
    best: list[re.Match[str]] = []
    run: list[re.Match[str]] = []
    for word in words:
        if run and not _LIST_GAP.fullmatch(masked, run[-1].end(), word.start()):
            run = []
        run.append(word)
        if len(run) > len(best):
            best = list(run)
    return best


def _spelling_examples(clause: str, masked: str) -> list[Stated]:
    if not _SPELLING_TOPIC.search(masked):
        return []
    if off_topic("documentation-spelling", masked):
        return []
    british: list[re.Match[str]] = []
    american: list[re.Match[str]] = []
    for word in _WORDS.finditer(masked):
        low = word.group(0).lower()
        if low in _BRITISH:
            british.append(word)
        elif low in _AMERICAN:
            american.append(word)
    if british and american:
        return []  # a bad example quoted beside the good one, or no rule at all
    listed = _listed(masked, british or american)
    if len({w.group(0).lower() for w in listed}) < 2:
        return []
    value = "British English" if british else "American English"
    hits = listed
    if cues.NEGATION.search(masked, 0, hits[0].start()):
        return []
    return [_value("documentation-spelling", value, "prefer", hits[0].start(), hits[-1].end())]


# --- a branch name pattern, by its first segment ---------------------------------------------

_BRANCH_TOPIC = _i(r"\bbranch")
_BRANCH_FIRST: dict[str, str] = {
    **dict.fromkeys(
        _word_set(
            "feat feature features fix fixes bugfix bug hotfix chore docs refactor perf test "
            "ci build type types kind category prefix change"
        ),
        "type/description",
    ),
    **dict.fromkeys(
        _word_set(
            "user username name initials handle you your-name yourname your_name author "
            "github-handle github login owner"
        ),
        "user/description",
    ),
    **dict.fromkeys(
        _word_set("ticket ticket-id issue issue-id issue-number jira jira-key jira-id story"),
        "ticket-id branches",
    ),
}
#: a ticket key as the first segment of an example branch ("LRK-482/…")
_TICKET_KEY = re.compile(r"[A-Z][A-Z0-9]{1,9}-\d++")


def _branch_pattern(clause: str, masked: str) -> list[Stated]:
    """The branch naming a pattern or an example in code shows by its first segment:
    `<type>/<slug>` and `feat/login-fix` name a type first, `<user>/<topic>` a person,
    `<ticket>/…` or `ABC-12/…` a ticket. A pattern with a wildcard (`release/*`) is a rule
    about some branches, not a naming convention."""
    if _BRANCH_TOPIC.search(masked) is None:
        return []
    values: dict[str, tuple[int, int]] = {}
    for run in re.finditer(r"\x1a++", masked):
        token = (
            clause[run.start() : run.end()].split()[-1]
            if clause[run.start() : run.end()].split()
            else ""
        )
        parts = token.split("/")
        if len(parts) != 2 or not parts[1] or "*" in token or "." in token:
            continue
        first = parts[0].strip("<>{}[]")
        value = _BRANCH_FIRST.get(first.lower())
        if value is None and _TICKET_KEY.fullmatch(first):
            value = "ticket-id branches"
        if value is not None:
            values.setdefault(value, run.span())
    if len(values) != 1:
        return []
    value, (start, end) = next(iter(values.items()))
    before = masked[max(0, start - 80) : start]
    if _REJECTED.search(before) or cues.NEGATED_START.match(masked):
        return [_value("branch-naming", value, "reject", start, end)]
    if cues.NEGATION.search(masked, max(0, start - _WINDOW), start):
        return []
    return [_value("branch-naming", value, "prefer", start, end)]


# --- a convention named as the title of its examples ----------------------------------------

#: the roles whose value may title its examples ("Conventional Commits: `feat(cli): add x`")
_TITLED_ROLES = frozenset({"commit-convention"})
#: what may stand before the title: marks and blanks; after it, a colon and code
_TITLE_LEAD = re.compile(r"[\s*_>\-+\d.)]*+")
_TITLE_TAIL = re.compile(r"[*_]*+\s*+:\s*+\x1a")


def _titled_examples(masked: str, found: Sequence[vocabulary.Found]) -> list[Stated]:
    """A convention named as the title of code examples of it is the convention chosen; a
    name before anything else than code is a label of something else."""
    for hit in found:
        if hit.dimension.name not in _TITLED_ROLES:
            continue
        if _TITLE_LEAD.fullmatch(masked, 0, hit.start) and _TITLE_TAIL.match(masked, hit.end):
            return [Stated(hit.dimension.name, hit.value, "prefer", hit.start, hit.end, hit.group)]
    return []


# --- emoji in commit messages ----------------------------------------------------------------

_EMOJI_REJECTED = re.compile(
    r"^\W*+(?:no|never|don['\u2019]?t|do not|avoid|without)\b(?:\s++\w++){0,4}?\s++(emojis?)\b",
    re.IGNORECASE,
)
_EMOJI_PLACE = _i(r"\bcommit|\banywhere\b|\beverywhere\b|\bat all\b")
_EMOJI_TURN = _i(r"\b(?:but|except|instead|only|unless|apart from|other than)\b")


def _commit_emoji(clause: str, masked: str) -> list[Stated]:
    """A rule against emoji that covers commit messages ("No emoji anywhere", "never put
    emoji in commit subjects") rejects the emoji that gitmoji puts there; one that names only
    replies or one that makes an exception does not."""
    found = _EMOJI_REJECTED.match(masked)
    if found is None or not _EMOJI_PLACE.search(masked) or _EMOJI_TURN.search(masked):
        return []
    return [_value("commit-emoji", "emoji in commit messages", "reject", *found.span(1))]


# --- a required Markdown heading in the reply ------------------------------------------------

#: the end of the agent's turn or its reply ("finish every task with", "end each reply with")
_REPLY_END = _i(
    r"\b(?:finish|end|close|wrap up|conclude|start|open|begin)\w*\s++(?:every|each|all|your|the)"
    r"\s++(?:\w++\s++)?(?:tasks?|turns?|responses?|repl(?:y|ies)|answers?|messages?|runs?)\b"
)
#: an artefact other than the reply: its headings are its own template
_ARTEFACT = _i(
    r"\b(?:prs?|pull requests?|templates?|readmes?|changelogs?|commit|issues?|docs?|adrs?|"
    r"files?\s++(?:named|called)|\.md)\b"
)
_HEADING_CODE = re.compile(r"#{1,6}\s++\w")


def _reply_headings(clause: str, masked: str) -> list[Stated]:
    if _REPLY_END.search(masked) is None or _ARTEFACT.search(masked) is not None:
        return []
    for run in re.finditer(r"\x1a++", masked):
        if _HEADING_CODE.match(clause, run.start(), run.end()):
            if cues.NEGATION.search(masked, 0, run.start()):
                return []
            return [_value("response-format", "Markdown headings", "prefer", *run.span())]
    return []


#: a table the end of a turn is to hold ("end every task with a Markdown table: file, change")
_REPLY_TABLE = _i(r"\bwith\s++an?\s++(?:(?:short|small|markdown|summary)\s++){0,2}+(tables?)\b")


def _reply_table(masked: str) -> list[Stated]:
    """The end of every turn set as a table asks for a Markdown table in the reply, as
    "finish every task with a `## Summary` heading" asks for a heading; a table in a PR, a
    file or the docs is their own."""
    if _REPLY_END.search(masked) is None or _ARTEFACT.search(masked) or _OTHER_TEXT.search(masked):
        return []
    found = _REPLY_TABLE.search(masked)
    if found is None or cues.NEGATION.search(masked, 0, found.start()):
        return []
    return [_value("response-format", "Markdown tables", "prefer", *found.span(1))]


# --- emoji written into the agent's own output ------------------------------------------------

#: an emoji pictograph (dingbats, misc symbols, pictographs), maybe with its variation selector
_PICTOGRAPH = re.compile("[\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f?+")
#: an imperative that shapes what the agent writes back: how a reply, a report or the end of a
#: task looks
_OUTPUT_RULE = _i(
    r"^\W*+(?:always\s++)?(?:start|begin|end|finish|close|open|mark|tick|prefix|label|report|"
    r"summari[sz]e|answer|reply|respond)\b"
)
_OUTPUT_WORDS = _i(
    r"\b(?:repl(?:y|ies)|answers?|responses?|reports?|summar(?:y|ies)|status|tasks?|steps?|"
    r"progress)\b"
)
#: what else emoji may mark: commits and PRs (gitmoji is :data:`commit-emoji`), documents, a
#: file ("Mark completed tasks in `ROADMAP.md` with ✅")
_OTHER_TEXT = _i(
    r"\bcommit|\bprs?\b|pull request|\bbranch|changelog|\btitles?\b|\bdocs?\b|"
    r"\b(?:in|into|to)\s++(?:the\s++)?(?:\x1a|[\w-]++\.(?:md|txt|rst)\b)"
)


#: a quoted string: an emoji in it is text the rule quotes (a UI label), not one it asks for
_QUOTED = re.compile('"[^"\n]*+"|\u201c[^\u201c\u201d\n]*+\u201d')


def _unquoted(masked: str) -> str:
    return _QUOTED.sub(lambda m: CODE_MASK * len(m.group(0)), masked)


def _emoji_markers(masked: str) -> list[Stated]:
    """A rule that marks the agent's own output with emoji ("End every task with a status list
    using ✅ for done and ❌ for blocked", "Mark each finished step with ✅ in your progress
    notes") prefers emoji in replies, as one that names them does ("Start every reply with a
    status emoji"). An emoji in code or in quotes is text quoted, not one asked for."""
    if _OUTPUT_RULE.match(masked) is None or _OTHER_TEXT.search(masked):
        return []
    found = _PICTOGRAPH.search(_unquoted(masked))
    if found is None or _OUTPUT_WORDS.search(masked) is None:
        return []
    return [_value("emoji-policy", "emoji", "prefer", *found.span())]


#: a rule against emoji that names no place: all the agent writes, its replies among it
#: ("Never use emoji.", "No emoji, anywhere.")
_EMOJI_EVERYWHERE = _i(
    r"^\W*+(?:no|never|don['\u2019]?t|do not|avoid)\s++(?:(?:use|add|put|write|include|any)\s++)"
    r"{0,2}+(emojis?)\b(?:[\s,]++(?:anywhere|at all|ever|whatsoever|please))?+[\s.!;]*+$"
)
#: agent output allowed to carry emoji ("Status updates may use emoji for quick scanning")
_EMOJI_ALLOWED = _i(
    r"^\W*+(?:your\s++|the\s++)?(?:(?:status|progress)\s++(?:updates?|notes?|reports?)|"
    r"repl(?:y|ies)|answers?|responses?|summar(?:y|ies))\s++(?:may|can)\s++"
    r"(?:use|include|contain|carry|have)\s++(emojis?)\b"
)


def _emoji_everywhere(masked: str) -> list[Stated]:
    found = _EMOJI_EVERYWHERE.match(masked)
    if found is None:
        return []
    return [_value("emoji-policy", "emoji", "reject", *found.span(1))]


def emoji_allowed(clause: str, masked: str | None = None) -> list[Stated]:
    """A permission for emoji in the agent's own output, read where a hedge ("may", "can")
    keeps every other shape of this module from reading a choice: it allows what a rule
    against emoji in replies forbids."""
    masked = clause if masked is None or len(masked) != len(clause) else masked
    found = _EMOJI_ALLOWED.match(masked)
    if found is None or _OTHER_TEXT.search(masked) or _EMOJI_TURN.search(masked):
        return []
    return [_value("emoji-policy", "emoji", "prefer", *found.span(1))]


#: a permission given to the agent ("feel free to …", "you may …", "you're welcome to …")
_PERMISSION = _i(
    r"^\W*+(?:(?:feel free|you(?:['\u2019]re| are) welcome|it['\u2019]s fine)\s++to|"
    r"you\s++(?:may|can))\b"
)
#: a verb that leaves out what it names ("feel free to skip the jokes")
_LEFT_OUT = _i(r"\b(?:skip|omit|drop|leave\s++out|cut|remove|avoid|forgo)\b")
#: the roles of how the agent answers, where a permission allows what another rule forbids
_ANSWER_ROLES = frozenset({"response-tone", "emoji-policy", "response-format"})


def permitted(clause: str, masked: str | None = None) -> list[Stated]:
    """What a hedged clause allows the agent in its answers, read where a hedge keeps every
    other shape of this module from reading a choice: "Status updates may use emoji", "Feel
    free to be chatty in your replies". An allowance meets a rule against the same value, or
    one for another value of the role (a formal tone); one that names an exception ("only",
    "except") or is negated allows nothing whole."""
    masked = clause if masked is None or len(masked) != len(clause) else masked
    if _EMOJI_TURN.search(masked) or cues.NEGATED_START.match(masked):
        return []
    out = emoji_allowed(clause, masked)
    if _PERMISSION.match(masked) is None or _OTHER_TEXT.search(masked):
        return out
    for hit in vocabulary.current().find(clause, masked):
        if hit.dimension.name not in _ANSWER_ROLES:
            continue
        window = max(0, hit.start - _WINDOW)
        if cues.NEGATION.search(masked, window, hit.start) or _LEFT_OUT.search(
            masked, window, hit.start
        ):
            continue
        out.append(Stated(hit.dimension.name, hit.value, "prefer", hit.start, hit.end, hit.group))
    return out


# --- dates written by example ----------------------------------------------------------------

_MONTH = (
    r"(?:jan(?:uary)?+|feb(?:ruary)?+|mar(?:ch)?+|apr(?:il)?+|may|june?+|july?+|aug(?:ust)?+|"
    r"sep(?:t(?:ember)?+)?+|oct(?:ober)?+|nov(?:ember)?+|dec(?:ember)?+)\.?+"
)
#: "dates are written like March 4, 2026", "write dates as 4 March 2026", "format dates like
#: `2026-03-04`": the example says the format
_DATE_EXAMPLE = _i(
    r"(?:\b(?:write|format)\s++(?:all\s++|the\s++|\w++\s++)?dates?|"
    r"\bdates?\b[^.;\n]{0,40}?\b(?:are|is)\s++written(?:\s++\w++)?)"
    r"\s++(?:like|as)\s++[\"'`*_\x1a]?+"
    rf"(?:(?P<named>{_MONTH}\s++\d{{1,2}}(?:st|nd|rd|th)?+,?+\s++\d{{4}}|"
    rf"\d{{1,2}}\.?+\s++{_MONTH}\s++\d{{4}})|(?P<iso>\d{{4}}-\d{{2}}-\d{{2}}))\b"
)


def _date_example(clause: str) -> list[Stated]:
    """The date format a rule shows by example rather than by name."""
    found = _DATE_EXAMPLE.search(clause)
    if found is None or cues.NEGATION.search(
        clause, 0, found.start("named") if found.group("named") else found.start("iso")
    ):
        return []
    if found.group("named"):
        return [_value("timestamp-format", "month-name dates", "prefer", *found.span("named"))]
    return [_value("timestamp-format", "ISO 8601", "prefer", *found.span("iso"))]


# --- all shapes ------------------------------------------------------------------------------

#: the words of a clause that any shape here needs (a cheap test before the readers run)
_HINT = re.compile(
    r"commit|merg|squash|rebase|land|\bprs?\b|pull request|merge request|spell|english|"
    r"docstring|export|branch|strings?\b|i18n|hard-?cod|\x1a|antwort|r[ée]pon|respon|"
    r"rispond|antwoord|schreib|escrib|scriv|escrev|emoji|contest|kommuni|communi|parl|habl|"
    r"sprich|sprech|rede|formul|[ée]cri|spreek|schrijf|redact|r[ée]dig|fal[ae]|speak|talk|"
    r"[\uac00-\ud7af]|\u043e\u0442\u0432\u0435|repl|answer|\u043f\u0438\u0448|\u043e\u0431\u0449|[\u3040-\u30ff\u4e00-\u9fff]|colou?r|"
    r"behaviou?r|organi[sz]|licen[cs]e|doc|date|\bsql\b|\bactions?\b|\btables?\b|[\u2600-\u27bf\U0001f300-\U0001faff]",
    re.IGNORECASE,
)


def off_topic(dimension: str, masked: str) -> bool:
    """Whether a clause speaks of something else than ``dimension`` is about, though it names
    one of its values: a spelling rule for user-facing copy only ("write UI copy in British
    English for the UK shop") is not the documentation's spelling."""
    if dimension == "documentation-spelling":
        return _UI_COPY.search(masked) is not None and _DOCS.search(masked) is None
    return False


def read_conventions(
    clause: str, masked: str | None = None, ruled: bool = True, context: str = ""
) -> list[Stated]:
    """The choices the shapes of this module read in one clause (see the module docstring);
    ``ruled`` false (a question, narrative, a hedge, a clause opened by a scope) reads none.
    ``context`` is the titles of the section the clause is in: under "## Commit messages",
    "Subject in the imperative mood" speaks of commits, as long as the clause names no other
    text of its own (a changelog, a PR)."""
    masked = clause if masked is None or len(masked) != len(clause) else masked
    if not ruled or (_HINT.search(masked) is None and _TOPIC.search(context) is None):
        return []
    reason = _REASON.search(masked)
    head = masked[: reason.start()] if reason is not None else masked
    topic = context if context and _OWN_TEXT.search(head) is None else ""
    found = vocabulary.current().find(clause, masked, topic)
    out = _stated_values(clause, masked, found, topic)
    out += _titled_examples(masked, found)
    out += _config_settings(clause, masked, found)
    out += _reply_language(clause, masked)
    out += _spelling_examples(clause, masked)
    out += _reply_headings(clause, masked)
    out += _reply_table(masked)
    out += _commit_emoji(clause, masked)
    out += _branch_pattern(clause, masked)
    out += _emoji_markers(masked)
    out += _emoji_everywhere(masked)
    out += _date_example(clause)
    seen: set[tuple[str, str, str]] = set()
    unique: list[Stated] = []
    for stated in out:
        key = (stated.dimension, stated.value, stated.stance)
        if key not in seen:
            seen.add(key)
            unique.append(stated)
    return unique
