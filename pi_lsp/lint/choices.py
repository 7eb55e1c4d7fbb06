"""Vocabularies of exclusive choices, and how to read the choices one clause makes.

A *dimension* is a decision a project makes once: its package manager, its test runner, its
indentation, the language the agent answers in, the line length limit. The dimensions are the
roles of the catalogue (``catalogue.toml``, :mod:`.catalogue`), whose values are found in a
clause in one pass (:mod:`.vocabulary`). A clause *prefers* a
value ("use pnpm", "Line length: 120") or *rejects* it ("don't use npm", "pnpm, not npm",
"prefer X over Y", "X instead of Y"). Two clauses conflict when one prefers a value and the
other prefers a different value of the same dimension, or rejects the preferred value.

Only clauses that read as instructions produce choices: an imperative ("use", "run",
"prefer" …), a modal ("must use", "should be run with"), "we use …", a ``Label: value``
line whose label names the dimension, (for numeric limits) a statement of the setting, or a
convention stated as a fact about the project ("strings use single quotes", "tests are run
with pytest", "our formatter is Prettier", "we're on pnpm"; the value comes after the verb),
a value before its role ("Biome is the formatter for this package", "`develop` is the base
branch", but not "the formatter our dependency uses"), a rule without a verb ("Two-space
indentation in Swift files", "Formatting via Prettier", "pnpm only"), a how-to step whose
command names the tool ("Bring the stack up with `docker compose up -d`") and a command
entry ("1. `./mvnw verify` — compiles and runs the tests"). A rule before a colon is read
whole, not as a label ("Tests are Minitest: `bin/rails test` from the engine folder").
Descriptions ("pnpm install runs in CI", "some packages use Jest"), past-tense narrative ("we
migrated from Jest", "this used to use yarn"), hedges ("you may use …", "can be run with …",
"optionally", "if you like"), questions, and statements about a part of the project ("the
legacy app uses yarn", "`docs/` uses npm") make no choice. A value in a subordinate clause
after the main one ("use pnpm, even when a README says npm"; "unless", "except", "if" …) is a
condition, not a choice. Alternatives ("use npm or pnpm") and scoped pairs ("pnpm for the app
and npm for the docs") make no choice either: a clause that prefers two values of one
dimension is dropped, and so is a clause opened by a scope ("For the docs site, use npm",
"When …", "If …"). A negated
*action* ("never run `npm publish`") rejects the action, not the tool, and makes no choice;
a tool name inside a code snippet counts only when the code is that tool's command
(`pnpm test`, `uv run pytest`), not in `import { expect } from "vitest"`. Test runners and
formatters are exclusive only within one ecosystem (pytest and vitest can coexist).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from pi_lsp.lint import conventions, cues, numbers, versions, vocabulary
from pi_lsp.lint.scopes import names_own_folder
from pi_lsp.lint.vocabulary import Dimension, ValueSpec

__all__ = ["DIMENSIONS", "Choice", "Dimension", "ValueSpec", "contradicts", "read_choices"]

Stance = Literal["prefer", "reject"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One value a clause prefers or rejects; ``start``/``end`` are offsets in the clause."""

    dimension: str
    value: str
    stance: Stance
    start: int
    end: int
    group: str = ""
    #: read from a bare mention of the value in a description of the project ("host alerts
    #: are emails we send with the SendGrid API"), not from a rule or a stated convention:
    #: it contradicts a rule, never another mention (see :func:`_mentions`)
    weak: bool = False
    #: what the value is chosen for ("transactional mail" in "use Postmark for transactional
    #: mail"), as :func:`pi_lsp.lint.purposes.purpose_of` reads it; "" for no stated purpose
    purpose: str = ""

    @property
    def label(self) -> str:
        return dimension_label(self.dimension)


#: The dimensions of the shipped catalogue (``catalogue.toml``), in catalogue order.
DIMENSIONS: tuple[Dimension, ...] = vocabulary.default_vocabulary().dimensions


def dimension_label(name: str) -> str:
    """The human name of a dimension ("package manager")."""
    dimension = vocabulary.current().by_name.get(name)
    return dimension.label if dimension else name


# --- reading one clause ---------------------------------------------------------------------

_LEAD = (
    r"^[^\w\x1a]*(?:(?:please|always|only|also|then|just|instead|and|so|you|we|must|should|"
    r"make sure (?:to|you)|be sure to|remember to|need to|have to|will|shall|strictly|"
    r"exclusively|consistently|to)\s+)*"
)
_VERBS = (
    r"(?:use|using|run|running|prefer|write|format|choose|pick|install|indent|respond|reply|"
    r"answer|target|stick|adopt|default|keep|set|limit|wrap|enforce|follow|execute|invoke|"
    r"lint|test|build|add|call|communicate|speak|manage|code|go|rely|switch|migrate|work|"
    r"develop|launch|start|configure|apply|only|pin|give|name|end(?!-)|terminate|return|bump|"
    r"replace|favou?r|opt\s++for|"
    # "base your PRs on `develop`": the noun "base" is no verb
    r"base(?=\s++(?:your\s++|all\s++|the\s++|every\s++|each\s++)?(?:prs?|pull\s++requests?|"
    r"merge\s++requests?|branch(?:es)?|work|changes)\b))\b"
)
_DIRECTIVE = re.compile(_LEAD + _VERBS, re.IGNORECASE)
# An imperative whose verb names the work, not the choice ("Log with winston", "Validate
# input with zod", "Read the keys from Vault", "Store sessions in Redis"): it chooses only
# the values that its preposition introduces (see _TOOL_PREPOSITION).
_TOOL_VERBS = (
    r"(?:log(?!\s++(?:in|on|out)\b)|validate|bundle|create|expose|read|store|parse|deploy|"
    r"compile|transpile|serialize|generate|render|send|route|fetch|load|persist|cache|"
    r"publish|package|provision|document|style|type-?check|encrypt|authenticate|track|trace|"
    r"monitor|emit|schedule|(?:en)?queue|containeri[sz]e|translate|locali[sz]e|mock|set\s++up|"
    r"serve|query|save|define|declare|model|hash|orchestrate|handle|implement|check|"
    r"bootstrap|scaffold|pull|version|release|ship|gate|put|hide|guard|index|subscribe|"
    r"consume|stream|upload|charge|bill|instrument|report|alert|notify|process|poll|ingest|"
    r"export|transcode|archive|replicate|back\s++up|sign)\b"
)
#: the verbs of a how-to step ("Bring the stack up with `docker compose up -d`", "Seed the
#: database using `bin/rails db:seed`"): a work verb too, and the verbs of a fence's lead
#: (:mod:`.fences`)
HOW_TO_VERBS = (
    r"(?:install|run|build|start|test|deploy|render|set\s++up|bootstrap|launch|use|execute|"
    r"serve|preview|lint|format|generate|seed|migrate|bring|spin|compile|check|release|"
    r"publish|package|provision|upgrade|update|invoke|call|type-?check|apply|sync|"
    r"create|initiali[sz]e|regenerate|verify|reproduce|work)\b"
)
#: a work verb that is the first word of a subject ("Log lines are plain text", "Build
#: output is ignored"): a noun before its copula, no imperative; "Lint what is staged"
#: is one
_SUBJECT_AHEAD = r"(?!\s++(?!(?:what|whatever|which|who)\b)[\w-]++\s++(?:is|are)\b)"
_TOOL_DIRECTIVE = re.compile(
    _LEAD + f"(?:{_TOOL_VERBS}|{HOW_TO_VERBS}){_SUBJECT_AHEAD}", re.IGNORECASE
)
#: what comes right before a value that a work verb chooses: "with", "via", "through",
#: "using", "from", "in", "into" (an article, the owner of the value and a mark may stand
#: between: "with the standard library's `log/slog`", "through Go's `net/http`")
_WORK_PREPOSITIONS = r"(?:with|via|through|using|from|in|into|on|onto|by|behind)"
_TOOL_PREPOSITION = re.compile(
    rf"(?:\b{_WORK_PREPOSITIONS}\s++(?:the\s++|an?\s++|its\s++|their\s++|our\s++|my\s++|your\s++)?|"
    r"(?<!such\s)\bas\s++an?\s++)"
    r"(?:(?:[\w.-]++\s++)?[\w.-]++['\u2019]s\s++)?[`*_\"'\x1a]{0,2}$",
    re.IGNORECASE,
)
#: a rule of the work without a subject, opened by its participle: "Deployed with Kustomize
#: overlays", "Bundled with esbuild", "Tested with pytest" (the file's own code is meant);
#: like a work verb it chooses the values its preposition introduces
_BARE_PARTICIPLE = re.compile(
    r"[^\w\x1a]*+(?:deployed|built|bundled|tested|formatted|linted|hosted|served|packaged|"
    r"managed|released|published|shipped|generated|compiled|styled|rendered|validated|"
    r"provisioned|orchestrated|scheduled|containeri[sz]ed|documented|typed|type-checked)\s++"
    rf"{_WORK_PREPOSITIONS}\b",
    re.IGNORECASE,
)
#: a value set against the one a work verb chose, after a comma: "with zod, not yup",
#: "via Kustomize overlays, not Helm", "through Vite, instead of webpack"
_CONTRASTED = re.compile(
    r"[,;(]\s*+(?:but\s++)?(?:not|never|instead\s++of|rather\s++than|in\s++place\s++of)\s++"
    r"(?:the\s++|an?\s++)?[`*_\"'\x1a]{0,2}$",
    re.IGNORECASE,
)
#: "as" right before a code span that holds the value: the form the work takes
_AS_BEFORE_CODE = re.compile(r"\bas\s++$", re.IGNORECASE)
#: how far before a value its preposition is looked for
_PREPOSITION_REACH = 48
#: a value that names where to read about something, not what to use ("in the pnpm docs")
_DOCUMENT_AFTER = re.compile(
    r"[\s`*_\"'\x1a]{0,3}(?:docs?|documentation|guides?|manual|readme|website|site|blog|"
    r"issues?|issue tracker|tracker|changelog|release notes|handbook|tutorials?|faq|repo|"
    r"repository|forums?|discord|slack|community|account|team)\b",
    re.IGNORECASE,
)
#: what opens a clause about a role right after its noun ("the formatter our dependency
#: uses", "the linter that upstream runs"): a relative pronoun, or a subject of its own
_CONTACT_OPENING = (
    r"(?:that|which|who|whom|whose|our|their|its|his|her|the|a|an|this|these|those|they|he|"
    r"she|it|some|upstream|[\w-]++['\u2019]s)\b"
)
#: a clause about the role whose subject is the project itself ("the linter we use")
_PROJECT_OPENING = (
    r"(?:we|you|(?:this|the|our)\s++(?:repo|repository|project|package|codebase|monorepo|"
    r"workspace|team))\b"
)
_CONTACT_CLAUSE = re.compile(_CONTACT_OPENING, re.IGNORECASE)
_PROJECT_CLAUSE = re.compile(_PROJECT_OPENING, re.IGNORECASE)
_MODAL_DIRECTIVE = re.compile(
    r"\b(?:must|should|always|need to|have to|has to|required to|make sure to|be sure to)\s+"
    r"(?:only\s+|always\s+)?(?:be\s+)?(?:use|run|written|formatted|indented|managed|installed|"
    r"tested|kept|wrapped|limited|prefer|write|format|indent|respond|reply|answer|stay|"
    r"have|include|carry|contain)\w*\b"
    r"|\b(?:we|this (?:repo(?:sitory)?|project|package|codebase|monorepo|workspace)) "
    r"(?:use|uses|prefer|prefers|standardi[sz]e on|standardi[sz]es on)\b"
    r"|\bis (?:our|the) (?:package manager|test runner|formatter)\b"
    rf"(?!\s++(?!{_PROJECT_OPENING}){_CONTACT_OPENING})"
    r"|\b(?:is|are) (?:not allowed|forbidden|banned)\b"
    r"|\b(?:responses?|replies|answers|output|communication)\b[^.;]{0,30}\b(?:must|should) be\b"
    # a requirement on every one of a kind: "Every commit needs a DCO sign-off"
    r"|^\W*+(?:every|each|all)\s++[\w-]++(?:\s++[\w-]++)?\s++(?:needs?|requires?)\s++(?:an?\s|\w)",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^\W*([A-Za-z][\w ./-]{1,40}?)\s*(?::|\s[-–—]\s)\s*(\S.*)$", re.S)

# A rejecting cue right before a value ("don't use ", "not ", "instead of ", "avoid ").
# What may follow a cue up to the value: blanks, at most two marks, blanks. The blanks are
# taken whole (\W matches a blank too, so a blank run could otherwise be split between the
# three parts in n² ways before the end fails); that matches the same texts.
_CUE_END = r"\s*+\W{0,2}\s*+$"
_FILLER = (
    r"(?:\s++(?:use|using|run|running|call|calling|invoke|invoking|install|installing|add|"
    r"adding|the|a|an|any|with|rely on|depend on|to|use of|via|other|tools like|like|"
    r"commands? like|such as|(?:re)?introduce|(?:re)?introducing|pull in|pulling in|"
    r"bring in|bringing in|reach for|reaching for|import|importing|adopt|adopting|"
    r"switch to|switching to|add back|bring back))*"
)
_REJECT_BEFORE = re.compile(r"\b" + cues.REJECTING + _FILLER + _CUE_END, re.IGNORECASE)
_OVER_BEFORE = re.compile(r"\bover" + _CUE_END, re.IGNORECASE)
#: "prefer pnpm to npm", "favour date-fns to Moment.js": the value after "to" is the one not
#: preferred (the preferred one is one or two words, or a code span, right after the verb)
_PREFER_TO_BEFORE = re.compile(
    # not a gerund ("prefer sending logs to Datadog": the value after "to" is where they go)
    r"\b(?:prefer|favou?r)\s++(?!\w++(?<=ing)\b)[`*_\"']?+[\w.@/+\x1a-]++(?:\s++[\w.@/+\x1a-]++)?"
    r"[`*_\"']?+\s++to" + _CUE_END,
    re.IGNORECASE,
)
_REJECT_AFTER = re.compile(
    r"^\W{0,2}\s*(?:is|are)\s+(?:not allowed|forbidden|banned|deprecated|not supported|"
    r"discouraged|not used|no longer used)\b",
    re.IGNORECASE,
)
# The gap between two values of a list ("`npm install` or `yarn install`", "jest, vitest").
_JOIN = re.compile(
    r"^(?![^.;]*\b(?:use|run|prefer|not|never|instead|rather|over)\b)[^.;]{0,30}?"
    r"(?:,|/|\bor\b|\band\b|\bnor\b)[\s`'\"*]*$",
    re.IGNORECASE,
)
_CONTRAST = re.compile(r"\b(?:not|instead of|rather than|in place of|replac\w*)\b", re.I)
_OMIT_BEFORE = re.compile(
    r"\b(?:omit|omitting|drop|skip|leave out|no|without)\s+(?:the\s+|any\s+|trailing\s+)?\W{0,2}$",
    re.IGNORECASE,
)
_WITHOUT_BEFORE = re.compile(r"\b(?:without|no|kein(?:e[nmrs]?+)?+|ohne)" + _CUE_END, re.IGNORECASE)
#: after "no <value>": the value is only not needed ("No changeset file is needed for this
#: package", "no Docker required"), which waives a step and forbids nothing
_WAIVED_AFTER = re.compile(
    r"^[\s`*_\x1a]*+(?:[\w-]++\s++){0,2}?(?:(?:is|are)\s++)?(?:needed|required|necessary)\b",
    re.IGNORECASE,
)
_REVERSE_NEGATION = re.compile(
    r"\b(?:don'?t|do not|never) (?:forget|hesitate|skip running|omit running)\b", re.IGNORECASE
)


# A convention stated as a fact about the project: "strings use single quotes", "the project
# builds with Gradle", "tests live in `tests/`", "PRs are squash-merged", "our formatter is
# Prettier", "we're on pnpm", "commits follow Conventional Commits". The subject is at most six
# words (tried from the shortest, each a whole word: at most seven tries of the verb list);
# the verb is in the present tense.
_STATEMENT = re.compile(
    r"^\W*+(?:we|they)[\'\u2019]re\s++(?:on|using)\b|"
    r"^\W*+(?P<subject>(?:(?:[\w`'\u2019@./*+-]++,?+|\([^()\n]{1,60}+\))\s++){0,6}?)"
    r"(?:uses|use|is using|are using|builds?\s++(?:with|using|via|on)|"
    r"(?:is|are)\s++(?:built|bundled|tested|formatted|linted|managed|installed|written|"
    r"indented|wrapped|kept|limited|capped|pinned|squash-merged|squashed|rebased|merged|"
    r"typed|checked|validated|logged|handled|stored|named|versioned|required|"
    r"configured|set|done|run|enforced|restricted)\b|"
    r"lives?\s++(?:in|under|next to|beside|alongside|inside)|(?:starts?|begins?)\s++with|"
    r"follows?|go(?:es)?\s++(?:through|via)|comes?\s++(?:in\s++)?(?:from|through|via)|"
    r"targets?|requires?|needs?|"
    r"(?:starts?|begins?|opens?)\s++with|"
    r"standardi[sz]es?\s++on|relies\s++on|rely\s++on|"
    r"(?:is|are)\s++on|(?P<copula>is|are))\b",
    re.IGNORECASE,
)
#: A convention stated as a fact with any verb of how a project works, when a preposition
#: introduces what it works with ("background jobs are processed by Sidekiq", "our CI runs on
#: Buildkite", "errors are reported to Sentry", "the app is hosted on Vercel", "we deploy to
#: Fly.io"): read only for the values after the verb (:func:`read_choices`), never to make a
#: sentence a rule by itself (:func:`is_directive`). The subject is one to six whole words;
#: a passive participle is any word ending in "ed" or a common irregular one.
#: the verbs of a fact that may name their object before the tool that does the work, and
#: that object: one to three words, none a negation, a verb of its own or a mark of code
_FACT_OBJECT_VERBS = (
    r"(?:enqueues?|queues?|sends?|logs?|writes?|reports?|tracks?|stores?|caches?|emits?|"
    r"streams?|publish(?:es)?|ships?|deploys?|schedules?|runs?|handles?|processe?s?|"
    r"serializes?|validates?|renders?|fetch(?:es)?|builds?|bundles?|hosts?|persists?)"
)
_FACT_OBJECT = (
    r"(?:(?!(?:not|never|no|none|nothing|is|are|was|were|be|with|via|through|using|to|by)\b)"
    r"[A-Za-z][\w&'\u2019-]*+\s++){1,3}?"
)
_FACT = re.compile(
    # inline code in the subject ("type checking in `workers/`") is read by _statement
    r"^\W*+(?P<subject>(?:(?:[\w`'\u2019@./*+-]++|\x1a++|\([^()\n]{1,60}+\))\s++){1,6}?)"
    r"(?:(?:(?:is|are|gets?)\s++(?:(?:all|always|only|automatically|currently)\s++)?"
    # a participle with its reverse in brackets: "(de)serialized", "(un)marshalled"
    r"(?:\((?:de|un|re|dis)\))?+(?:[a-z]++(?<=ed)|sent|built|run|kept|written|done|made|held|shown|driven|thrown|"
    r"hosted|spun up))"
    r"|(?:runs?|go(?:es)?|talks?|lives?|deploys?|ships?|connects?|sits?|lands?|flows?|"
    r"points?|writes?|reads?|sends?|publish(?:es)?|releases?|hosts?|stores?|caches?|logs?|"
    r"tracks?|reports?|serves?|renders?|routes?|syncs?|depends?|persists?|queues?|pulls?|"
    r"pushes?|push|streams?|emits?|authenticates?|deploy|ship|host|run|talk|connect|sync|"
    r"store|send|publish|report|log|track|stream|emit|pull|persist|queue|cache|serve)"
    r"\s++(?:by|with|via|through|on|onto|in|into|to|using|from|against|behind|at|under|"
    r"(?=next\s++to\b|beside\b))"
    # a verb with its object before the tool ("billing enqueues its jobs with Exq", "runs log
    # metrics and artifacts to W&B"): one to three plain words, no negation
    rf"|{_FACT_OBJECT_VERBS}\s++{_FACT_OBJECT}(?:with|via|through|using|to)"
    # a reduced relative after a copula ("manifests are plain YAML composed with Kustomize")
    rf"|(?:is|are)\s++{_FACT_OBJECT}(?:[a-z]++(?<=ed)|built|run|kept|written|done|made)"
    r"\s++(?:by|with|via|through|using))\b",
    re.IGNORECASE,
)
#: a step that says when an instruction holds, before a comma ("After changing dependencies,
#: …", "Before each release, …"): the instruction follows it
_TIME_OPENER = re.compile(
    r"^[^\w\x1a]*+(?:after|before)\s++[^,;:.!?\x1a]{1,60}+,\s*+", re.IGNORECASE
)
#: a subject that lists what it speaks of ("Sign-in, sign-up and organisation switching"):
#: the words before each comma are items of a list that "and" closes
_LISTED_SUBJECT = re.compile(
    r"(?:[\w'\u2019-]++\s++)?(?:[\w'\u2019-]++,\s++){1,3}?(?:[\w'\u2019-]++\s++)?"
    r"(?:and|or)\s++(?:[\w'\u2019-]++\s++){1,3}",
    re.IGNORECASE,
)
#: a quoted phrase: words someone writes or sees, not what the sentence says happened
_QUOTED = re.compile(r'"[^"\n]{0,120}+"|\u201c[^\u201d\n]{0,120}+\u201d')
_ASIDE = re.compile(r"\([^()\n]{0,60}+\)\s*+")
#: a subject that ends on an article or a possessive: the word after it is a noun
_DETERMINER_END = re.compile(
    r"\b(?:the|a|an|our|their|its|this|these|those|your|my|every|each|all)\s++$", re.IGNORECASE
)
#: a subject that speaks of some cases only ("some packages use …", "older services …")
_PARTIAL_SUBJECT = re.compile(
    r"^\W*+(?:some|several|many|most|few|a few|certain|other|others|older|legacy|one|two|"
    r"a|an|sometimes|often|usually|occasionally|here|there|what|which|who|why|how|where|"
    r"it|that|this file|nothing|no one|nobody|each of)\b",
    re.IGNORECASE,
)
#: a subject that names a part of the project, not the project ("the legacy app uses yarn",
#: "the docs site uses npm", "the Dockerfile uses npm ci"): a scope, left to scopes; or one
#: that holds a clause of its own ("Renovate opens PRs that use …")
_SCOPED_SUBJECT = re.compile(
    r"\b(?:legacy|old|older|deprecated|docs|documentation|website|examples?|demos?|samples?|"
    r"templates?|benchmarks?|fixtures?|vendor|vendored|third-party|playground|sandbox|ci|"
    r"workflows?|pipelines?|release|parts?|some|few|dockerfile|docker|images?|containers?|"
    r"that|which|who|whose)\b",
    re.IGNORECASE,
)
#: a place phrase ending a subject ("type checking in `workers/`"), that may name the file's
#: own folder
_OWN_PLACE_END = re.compile(r"\b(?:in|under|inside|for)\s++[^\s]++\s*+$", re.IGNORECASE)
#: a subject that is a spec, a standard or a third party, not the project ("the Fetch spec
#: requires …", "browsers send …", "upstream uses …"): what it does is no project rule
_EXTERNAL_SUBJECT = re.compile(
    r"\b(?:specs?|specifications?|standards?|rfcs?|w3c|whatwg|ietf|upstream|browsers?|"
    r"vendors?|third[- ]part(?:y|ies)|the (?:runtime|platform|protocol|library|framework))\b",
    re.IGNORECASE,
)
#: a value that modifies the noun after it names a thing of that tool, not a choice of it
#: ("the Vite plugin", "the Fetch spec", "the React docs")
_MODIFIER_BEFORE = re.compile(r"\b(?:the|a|an|its|their|our|your)\s++[`*_]*+$", re.IGNORECASE)
_MODIFIER_AFTER = re.compile(
    r"^[`*_]*+\s++(?:plugins?|spec|specs|specification|standard|docs|documentation|guides?|"
    r"team|maintainers|community|ecosystem|integrations?|adapters?|extensions?|presets?|"
    r"website|site|blog|handbook|manual|changelog|release notes|issue tracker|authors)\b",
    re.IGNORECASE,
)
#: past-tense narrative: what happened, not what to do; "what was done" after a verb of
#: describing is the content a rule asks for ("describe what was done"), not narrative
_NARRATIVE = re.compile(
    r"\b(?:used to|(?<!\bwhat\s)(?:was|were|had|has been|have been)|previously|formerly|originally|"
    r"historically|last (?:year|month|week|quarter|release|sprint)|ago|until recently|"
    r"in the past(?!\s++tense)|back then|at first|migrated|moved|switched|replaced|converted|"
    r"introduced|adopted|dropped|removed|started|decided)\b",
    re.IGNORECASE,
)
#: a hedge before a value: the value is allowed, not chosen ("you may use …", "can be run
#: with …"); "may not" / "cannot" / "can't" forbid and are no hedge
_HEDGE = re.compile(
    r"\b(?:may|might|could)\b(?!\s++not\b)|\bcan\b(?![\'\u2019]t|\s++not\b)",
    re.IGNORECASE,
)
#: "may" after a subject that a "no" opens forbids, it does not hedge ("No task may run
#: longer than 30 minutes", "No one may push to `main`")
_PROHIBITING_MAY = re.compile(
    r"\W*+(?:no|nobody|no\s++one)\b(?:\s++[\w-]++){0,3}?\s++may\b(?!\s++not\b)",
    re.IGNORECASE,
)
#: a hedge anywhere in the clause: nothing in it is a choice
_HEDGE_ANYWHERE = re.compile(
    r"\b(?:optional(?:ly)?|if you (?:like|prefer|want|wish)|feel free|is fine|is ok(?:ay)?|"
    r"are fine|also works|works too|up to you|either works|whichever|"
    r"(?:is|are|remains?|stays?)\s++(?:still\s++|also\s++)?acceptable)\b",
    re.IGNORECASE,
)
#: a value allowed only under a condition after it ("Default exports only where a framework
#: demands them"): an exception to the rule, not a choice
_ONLY_UNDER_CONDITION = re.compile(
    r"[`*_\x1a]*+\s++(?:are\s++|is\s++)?only\s++(?:where|when|whenever|if)\b", re.IGNORECASE
)
# A subordinate clause after the main clause: the values in it are conditions, not choices
# ("use pnpm, even when a README says npm", "use Vitest unless the package already has Jest").
_TAIL_SUBORDINATE = re.compile(
    r"\b(?:even (?:when|if|though|where)|unless|except|other than|if|when|whenever|where|"
    r"although|though|because|since|as long as|until|while|whereas)\b",
    re.IGNORECASE,
)


#: what may stand between "is" / "are" and the value it names: blanks, marks, "the"
_COPULA_FILL = re.compile(
    r"[\s`*_\"'\x1a]*+(?:(?:not|never)\s++)?(?:the\s++)?[\s`*_\"'\x1a]*+", re.IGNORECASE
)


#: an obligation whatever its verb ("the build has to pass", "a changelog entry is required")
_OBLIGATION = re.compile(
    r"\b(?:must|shall|has to|have to|(?:is|are) (?:required|mandatory))\b", re.IGNORECASE
)


#: an aside in a statement's subject that narrows or conditions it rather than describing it
_QUALIFYING_ASIDE = re.compile(
    r"\([^()]*?\b(?:except|excluding|unless|only|not|never|but|if|when|while|until|legacy|"
    r"old|new|other than|apart from|besides|outside)\b",
    re.IGNORECASE,
)


def _statement(
    clause: str,
    folder: str = "",
    general: bool = False,
    role_named: Callable[[str], bool] | None = None,
    plain: str = "",
) -> re.Match[str] | None:
    """The subject and verb of a convention stated as a fact, or ``None`` when ``clause`` is
    not one: a partial subject ("some packages"), a subject that names a part of the project
    by its path or code (a scope), past-tense narrative, a hedge, a question. A subject that
    names ``folder``, the folder of the file ("The docs site uses npm" in ``docs/``), is the
    file's own scope: the statement stands. With ``general``, any verb of how the project
    works introduces the values after it (:data:`_FACT`). A subject that ``role_named``
    says names the role of a value ("our CI runs on Buildkite") is no scope. ``plain`` is
    ``clause`` with its inline code as text: a subject that ends on a place in code naming
    ``folder`` ("Type checking in `workers/`" in ``workers/``) speaks of the file's own
    folder, not of a part of it."""
    if clause.rstrip().endswith("?") or _PARTIAL_SUBJECT.match(clause):
        return None
    match = (_FACT.match(clause) if general else None) or _STATEMENT.match(clause)
    if match is None or _HEDGE_ANYWHERE.search(clause):
        return None
    if _NARRATIVE.search(
        _QUOTED.sub(" ", clause) if '"' in clause or "\u201c" in clause else clause
    ):
        return None  # past tense outside quotes; a quoted message ("your listing was …") tells none
    subject = match.group("subject") or ""
    listed = _ASIDE.sub("", subject) if "(" in subject else subject
    if "," in listed and not _LISTED_SUBJECT.fullmatch(listed):
        return None  # "Locally, tests use Jest": a comma that is no list opens a scope
    if match.re is _FACT and cues.NEGATION.search(subject):
        return None  # "billing never sends email with SendGrid" states no tool it uses
    if match.re is _FACT and _DETERMINER_END.search(subject):
        return None  # "The Fetch spec requires …": a noun after its article, not a verb
    if match.re is _FACT and _SCOPED_SUBJECT.search(match.group(0), match.end("subject")):
        return None  # "we deploy the docs to Netlify": the object names a part of the project
    if CODE_MASK in subject or "/" in subject:
        place = _OWN_PLACE_END.search(subject)
        if not (
            folder
            and len(plain) == len(clause)
            and place is not None
            and CODE_MASK not in subject[: place.start()]
            and "/" not in subject[: place.start()]
            and names_own_folder(plain[place.start() : match.end("subject")], folder)
        ):
            return None
        subject = subject[: place.start()]
    if "(" in subject and _QUALIFYING_ASIDE.search(subject):
        return None  # "Tests (except the e2e suite) use Jest": the aside narrows the subject
    if (
        _SCOPED_SUBJECT.search(subject)
        and not names_own_folder("in " + subject, folder)
        and not (role_named is not None and role_named(subject))
    ):
        return None
    external = [m.group(0).lower() for m in _EXTERNAL_SUBJECT.finditer(subject)]
    if any(not word.startswith("spec") for word in external):
        return None
    if external and not (role_named is not None and role_named(subject)):
        return None  # "the Fetch spec requires …"; but "specs" that name tests are the tests
    if _HEDGE.search(clause, 0, match.end()):
        return None
    return match


def is_directive(clause: str) -> bool:
    """Whether ``clause`` reads as an instruction rather than a description: an imperative,
    a modal, a prohibition, or a convention stated as a fact about the project ("strings use
    single quotes"; a bare "X is Y" counts only where it names a value)."""
    if _HEDGE_ANYWHERE.search(clause):
        return False
    if _imperative(clause) or _OBLIGATION.search(clause):
        return True
    statement = _statement(clause)
    return statement is not None and statement.group("copula") is None


def _imperative(clause: str) -> bool:
    return bool(
        _DIRECTIVE.match(clause)
        or _MODAL_DIRECTIVE.search(clause)
        or cues.NEGATED_START.match(clause)
    )


@dataclass(frozen=True, slots=True)
class _Hit:
    dimension: Dimension
    value: str
    start: int
    end: int
    group: str
    command: bool = False
    #: a number with its unit, found with its subject ("the maximum upload size is 10 MB")
    numeric: bool = False
    #: a setting stated by its form ("Node 18+", `jvmToolchain(21)`): a claim by itself
    claim: bool = False
    #: found by an alias or command (a literal name), not by a pattern
    literal: bool = False


def _hits(text: str, masked: str | None = None, context: str = "") -> list[_Hit]:
    """Every catalogue value in ``text``, found in one pass (see :mod:`.vocabulary`). A
    naming case takes its subject from the words outside code ("File names are kebab-case
    (`content-type.ts`)" speaks of files, not of the "type" in the code)."""
    outside_code = masked if masked is not None and len(masked) == len(text) else text
    return _by_naming_subject(
        outside_code,
        [
            _Hit(
                f.dimension,
                f.value,
                f.start,
                f.end,
                f.group,
                f.command,
                f.numeric,
                f.claim,
                f.literal,
            )
            for f in vocabulary.current().find(text, masked, context)
        ],
    )


_FOR_SUBJECT = re.compile(r"[\s`*_\x1a]*+for\s++(?!example\b|instance\b|now\b)\w", re.I)


def _case_for_subject(body: str, hits: list[_Hit], offset: int) -> bool:
    """Whether ``body`` is a terse naming rule: it opens with a naming case and says what it
    is for ("snake_case for functions and variables", "`PascalCase` for components")."""
    first = next((h for h in hits if h.start >= offset), None)
    if first is None or not first.dimension.name.startswith("naming-"):
        return False
    if re.match(r"[\W_]*+$", body[: first.start - offset]) is None:
        return False
    return _FOR_SUBJECT.match(body, first.end - offset) is not None


#: after "<value> <role>" in a rule without a verb: where it holds, and nothing else
#: ("Two-space indentation in Swift files here", "Prettier formatting across the repo")
_ROLE_TAIL = re.compile(
    r"(?:\s++(?:in|for|across|throughout|on|under|inside|within)\s++[^.;:!?]*+|"
    r"\s++(?:everywhere|here|only|always|throughout))?[\s.!]*+$",
    re.IGNORECASE,
)
#: a word that makes the tail a clause of its own, not a place ("… in files that need it")
_TAIL_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|does|do|did|will|would|can|could|may|might|"
    r"must|should|that|which|who|where|when|if|unless)\b",
    re.IGNORECASE,
)
#: the noun of a role right after a value: one or two words
_ROLE_NOUN = re.compile(r"[\s`*_\x1a]*+([A-Za-z][\w-]*+(?:\s++[A-Za-z][\w-]*+)?)")


#: after a value alone: it is the only one ("pnpm only.", "Black everywhere.")
_ONLY_TAIL = re.compile(
    r"[`*_\x1a]*+\s++(?:only|exclusively|everywhere|throughout|for everything)[\s.!]*+$",
    re.IGNORECASE,
)
#: a rule without a verb that names the role and then its value: "Formatting via Prettier",
#: "Unit tests with Vitest", "Logging through structlog"
_ROLE_LEAD = re.compile(
    r"[^\w\x1a]*+(?P<role>[A-Za-z][\w-]*+(?:\s++[A-Za-z][\w-]*+)?)\s++"
    rf"{_WORK_PREPOSITIONS}\s++(?:the\s++)?[`*_\"'\x1a]{{0,2}}+",
    re.IGNORECASE,
)


def _role_before_value(masked: str, start: int, hits: list[_Hit]) -> list[_Hit]:
    """The value of "<role> with|via <value>" without a verb ("Formatting via Prettier",
    "Unit tests with Vitest"), when the words before the preposition name the value's role;
    the rest may add details, but no clause of its own, negation or narrative."""
    lead = _ROLE_LEAD.match(masked, start)
    if lead is None:
        return []
    first = next((h for h in hits if h.start >= lead.end()), None)
    code = _code_span(masked, first.start) if first is not None else None
    at = code[0] if code is not None else (first.start if first is not None else -1)
    if first is None or at != lead.end():
        return []
    role = lead.group("role").lower()
    if not any(first.dimension.label_pattern.search(p) for p in (role, role.split()[-1])):
        return []
    if not _plain_tail(masked, first, hits):
        return []
    return [first]


def _plain_tail(masked: str, first: _Hit, hits: list[_Hit]) -> bool:
    """Whether what follows the value of a rule without a verb only adds details: no clause
    of its own, no negation, no narrative, and no second value of its role ("PostgreSQL
    database in production, SQLite in tests" pairs values with places: no choice)."""
    tail = masked[first.end :]
    if _TAIL_VERB.search(tail) or cues.NEGATION.search(tail) or _NARRATIVE.search(tail):
        return False
    return not any(h.dimension is first.dimension and h.start >= first.end for h in hits)


#: the work a tool does, said of it as the subject in the present tense ("Prettier formats
#: every TS file", "Vite bundles the app"); not "runs", which says how or where it runs
#: ("Prettier runs with `printWidth: 110`", "`pnpm install` runs in CI")
_WORK_AFTER_VALUE = re.compile(
    r"[\s`*_\x1a]*+(?:(?:also|alone|only)\s++)?(?:formats|lints|bundles|compiles|"
    r"transpiles|type-checks|typechecks|manages|handles|serves|hosts|stores|"
    r"sends|tracks|renders|generates|deploys|orchestrates|schedules|processes|caches|queues|"
    r"indexes|publishes|validates|parses|serializes|mocks|migrates|"
    r"collects|exports|drives|powers)\b"
    # a plural noun after the name is no verb: "Vite builds are cached", "Jest runs take long"
    r"(?!\s++(?:are|were|is|was|have|has|take|took|fail|failed|must|should|can|will|need)\b)",
    re.IGNORECASE,
)


#: the version right after a tool's name: "CMake 3.28+", "Gradle 8.7", "pnpm 9"
_VERSION_AFTER_VALUE = re.compile(r"[ \t]*+v?\d++(?:\.\d++)*+\+?(?![\w.])")


def _versioned_value_opens(masked: str, start: int, hits: list[_Hit]) -> list[_Hit]:
    """The tool that opens a line without a verb with its version ("CMake 3.28+ with the
    Ninja generator: `cmake --preset release`"): the line states the tool the project uses.
    The rest may add details and values used with it, but no clause of its own, negation,
    narrative, or another value of its role it is not used with."""
    first = next((h for h in hits if h.start >= start), None)
    if first is None or first.command or first.numeric or first.claim:
        return []
    if re.match(r"[\W_]*+$", masked[start : first.start]) is None:
        return []
    version = _VERSION_AFTER_VALUE.match(masked, first.end)
    if version is None:
        return []
    tail = masked[version.end() :]
    if not version.group(0).endswith("+") and CODE_MASK not in tail:
        return []  # "- Vitest 1.6" alone may be a changelog's item: a floor or a command says more
    if _TAIL_VERB.search(tail) or cues.NEGATION.search(tail) or _NARRATIVE.search(tail):
        return []
    if any(
        h.dimension is first.dimension
        and h.start >= first.end
        and h.value != first.value
        and not first.dimension.composes(first.value, h.value)
        for h in hits
    ):
        return []
    return [first]


def _value_does_work(masked: str, start: int, hits: list[_Hit]) -> list[_Hit]:
    """The value that opens a clause as the subject of the work its role does ("Prettier
    formats every TS/JS file", "Turborepo runs the builds"): a choice of it, stated as a fact.
    Only a proper name (not a command or a file), at the very start of the clause."""
    first = next((h for h in hits if h.start >= start), None)
    if first is None or first.command or first.numeric or first.claim:
        return []
    if re.match(r"[\W_]*+(?:the\s++)?[\W_]*+$", masked[start : first.start], re.I) is None:
        return []
    if _WORK_AFTER_VALUE.match(masked, first.end) is None:
        return []
    return [first]


def _value_before_role(masked: str, start: int, hits: list[_Hit]) -> list[_Hit]:
    """The value of a rule without a verb that names a value and then its role, and at most
    where it holds: "Two-space indentation in Swift files here", "Tab indentation in
    Makefiles", "Prettier formatting for all TypeScript". A tail that goes on as a clause
    ("… indentation is wrong here", "… in files that need it") or negates is no such rule."""
    first = next((h for h in hits if h.start >= start), None)
    if first is None or re.match(r"[\W_]*+$", masked[start : first.start]) is None:
        return _role_before_value(masked, start, hits)
    if _ONLY_TAIL.match(masked, first.end):
        return [first]  # "pnpm only.", "Vitest everywhere."
    noun = _ROLE_NOUN.match(masked, first.end)
    if noun is None:
        return []
    words = noun.group(1).split()
    for size in range(1, len(words) + 1):
        phrase = " ".join(words[:size])
        if not first.dimension.label_pattern.search(phrase.lower()):
            continue
        tail_start = noun.start(1) + len(phrase)
        tail = masked[tail_start:]
        if _ROLE_TAIL.match(tail) is None:
            continue
        return [first] if _plain_tail(masked, first, hits) else []
    return []


#: the nouns a naming case is stated for, and the role each one names ("" for a subject no
#: role covers: classes, types, components, tables …, whose case is left unread)
_NAMING_SUBJECT = re.compile(
    r"\b(?:(?P<identifiers>identifiers?|variables?|functions?|methods?|locals?|params|"
    r"parameters?|arguments?)|(?P<files>files?|file ?names?|modules?|director(?:y|ies)|"
    r"folders?)|(?P<fields>fields?|keys?|properties|attributes?|json)|(?P<other>classes|"
    r"types?|components?|tables?|columns?|constants?|enums?|urls?|routes?|env|"
    r"environment variables?|css))\b",
    re.IGNORECASE,
)
#: between a case and the subject it is for: "snake_case for Python functions"
_FOR_GAP = re.compile(r"[\s`*_'\"\x1a]*+for\s++(?:[\w.-]++\s++){0,3}", re.IGNORECASE)
_NAMING_ROLE = {"files": "naming-files", "fields": "naming-json-fields"}
_NAMING_SUFFIX = {"files": " files", "fields": " fields"}


def _by_naming_subject(text: str, hits: list[_Hit]) -> list[_Hit]:
    """Give each naming case found as an identifier case (camelCase, snake_case …) the role
    of the subject it is said to be for ("PascalCase for classes"), else of the subject
    nearest to it in the clause: "JSON fields are snake_case" speaks of fields,
    "React component files are PascalCase" of files; a case stated for a subject no role
    reads (classes, tables) is dropped, and one whose role already found the same words is
    kept once."""
    naming = [h for h in hits if h.dimension.name == "naming-identifiers"]
    if not naming:
        return hits
    subjects = list(_NAMING_SUBJECT.finditer(text))
    by_name = vocabulary.current().by_name
    taken = [(h.start, h.end) for h in hits if h.dimension.name != "naming-identifiers"]
    out: list[_Hit] = []
    for hit in hits:
        if hit.dimension.name != "naming-identifiers":
            out.append(hit)
            continue
        near = next(
            (
                m
                for m in subjects
                if m.start() >= hit.end and _FOR_GAP.fullmatch(text, hit.end, m.start())
            ),
            None,
        ) or min(
            subjects,
            key=lambda m: hit.start - m.end() if m.end() <= hit.start else m.start() - hit.end,
            default=None,
        )
        kind = near.lastgroup if near is not None else "identifiers"
        if kind == "identifiers":
            out.append(hit)
            continue
        role = _NAMING_ROLE.get(kind or "", "")
        dimension = by_name.get(role)
        value = hit.value + _NAMING_SUFFIX.get(kind or "", "")
        if dimension is None or value not in {v.name for v in dimension.values}:
            continue
        if any(s < hit.end and hit.start < e for s, e in taken):
            continue
        out.append(_Hit(dimension, value, hit.start, hit.end, hit.group, hit.command, hit.numeric))
    return out


#: The character that stands for inline code in a clause's masked text.
CODE_MASK = "\x1a"

#: What may come before a tool name inside inline code for the code to still be that tool's
#: command (`uv run pytest`, `CI=1 pnpm test`, `python -m pytest`).
#: the runners that run another tool (`uv run pytest`, `bundle exec rspec`): the tool after
#: them is the command's too (also read by :mod:`.fences`)
RUNNERS = (
    r"(?:uv run|uvx|npx|bunx|pnpm(?: exec| dlx)?|yarn(?: dlx)?|npm exec|pipx run|poetry run|"
    r"hatch run|pdm run|python3? -m|bundle exec|just)"
)
_COMMAND_PREFIX = re.compile(rf"^(?:\w+=\S*\s+)*(?:{RUNNERS}\s+)?$", re.IGNORECASE)
#: a clause that ends on a place it only refers to ("… there", "… in that folder"): its choices
#: hold in a part of the project named earlier, not everywhere
_PLACE_REFERRED = re.compile(
    r"\b(?:there|in it|in that (?:folder|directory|package|engine|app|module|service|crate))"
    r"[\s.;:!)\]]*+$",
    re.IGNORECASE,
)
_SCOPED = re.compile(
    r"^[^\w\x1a]*(?:for|in|inside|within|under|when|if|unless|while|on|outside)\s+"
    r"(?!this\s+(?:package|directory|folder|repo|repository|project|subproject|workspace|module)"
    r"\b|all\b|every\b|general\b|any\b|short\b|doubt\b|particular\b|addition\b|"
    r"this (?:codebase|monorepo)\b)",
    re.IGNORECASE,
)
_RUN_VERB = re.compile(r"\b(?:run|running|rerun|execute|executing|invoke|invoking|call)\b", re.I)
_POSITIVE_TURN = re.compile(
    r"\b(?:instead|but|rather)\b|[,:;]\s*(?:just\s+|always\s+)?(?:use|run|prefer)\b", re.I
)
_SUBORDINATE = re.compile(
    r"\b(?:without|unless|until|before|after|except|other than|when|if)\b", re.IGNORECASE
)


def _code_span(masked: str, start: int) -> tuple[int, int] | None:
    """The inline code run around offset ``start`` of ``masked``, if any."""
    if start >= len(masked) or masked[start] != CODE_MASK:
        return None
    begin = start
    while begin > 0 and masked[begin - 1] == CODE_MASK:
        begin -= 1
    end = start
    while end < len(masked) and masked[end] == CODE_MASK:
        end += 1
    return begin, end


#: characters before and after a value that its stance is read from
_CUE_WINDOW = 160

#: a rejecting cue that replaces the value: under a negation it keeps it instead
_REPLACING = re.compile(r"(?:replac\w*|in place of)\b", re.IGNORECASE)
#: a move away from a value, said as an instruction: "switch from npm to pnpm", "migrate the
#: tests from Jest to Vitest", "move off Heroku"
_LEAVING_BEFORE = re.compile(
    r"\b(?:switch|migrate|move|port|convert)\s++(?:[\w-]++\s++){0,3}?(?:from|off|off\s++of|"
    r"away\s++from)\s++(?:the\s++)?[`*_\"'\x1a]{0,2}$",
    re.IGNORECASE,
)

#: a rule that ends on a colon right before a code span: the code shows how to follow it
#: ("Stick to the standard library: `logger = logging.getLogger(__name__)`")
_SHOWN_AFTER_COLON = re.compile(r":[\s*_]*+$")
#: a dotted name of a module's function ("logging.getLogger", "structlog.get_logger")
_API_CALL = re.compile(r"[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++")


def _shown_call(hit: _Hit, clause: str, neutral: str, code: tuple[int, int]) -> bool:
    """Whether a value inside code is a call of its own API that the code span shows as the
    way to follow the rule before the colon: a dotted name called ("logging.getLogger(…)",
    "structlog.get_logger()"), in a span that comes right after the rule's colon."""
    if (
        _API_CALL.fullmatch(clause, hit.start, hit.end) is None
        or clause[hit.end : hit.end + 1] != "("
    ):
        return False  # a file name (`kebab-case.test.ts`) or a bare name shows no call
    return _SHOWN_AFTER_COLON.search(neutral, max(0, code[0] - 8), code[0]) is not None


#: what may follow a tool that a negated "run" / "call" names by itself ("never run fastlane
#: for iOS", "do not run gofumpt on this module"): the clause's end, "here", "at all",
#: "anymore", or a phrase of what it is for or what it works on. Not a word of the command
#: ("never run npm publish"), not how it is run ("directly", "by hand": another way runs it)
#: and not where ("in CI": it still runs elsewhere)
_ALONE_AFTER = re.compile(
    r"[`*_\x1a]*+\s*+(?:$|[.;,:!?)\u2014\u2013]|--?\s|(?:here|at all|anymore|any more|ever|"
    r"again)\b[^\w]*+(?:$|[.;,:!?)\u2014\u2013])|"
    r"(?:on|against|over|in)\s++(?:this|the|our)\s++(?:whole\s++|entire\s++)?(?:module|package|"
    r"repo|repository|codebase|project|crate|workspace|library|tree)\b|"
    # "for iOS", "for Android": a platform written as a name, not a condition or a subset
    # ("for docs-only changes", "for forks", "for this package alone")
    r"for\s++(?-i:[a-z][a-z.-]*+[A-Z][\w.-]*+|[A-Z][\w.-]*+)\s*+(?:$|[.;,:!?)\u2014\u2013]))",
    re.IGNORECASE,
)


def _names_tool_alone(hit: _Hit, clause: str, neutral: str, code: tuple[int, int] | None) -> bool:
    """Whether a value after a negated verb of running is the tool by itself, not one of its
    commands: its bare name, outside code or as a code span that holds nothing after it
    (`` `gofumpt` ``, `` `uv run pyright` ``), followed by what :data:`_ALONE_AFTER` allows."""
    if hit.command or hit.claim or hit.numeric:
        return False
    end = hit.end
    if code is not None:
        if clause[hit.end : code[1]].strip():
            return False  # `prettier --write`: a command of the tool
        end = code[1]
    elif neutral[hit.end : hit.end + 1] in ("'", "\u2019"):
        return False  # "the Helm chart's hooks": something of the tool
    return _ALONE_AFTER.match(neutral, end) is not None


def _stance(
    hit: _Hit, clause: str, neutral: str, prefer_context: bool, negated: bool
) -> Stance | None:
    """How the clause treats one value; ``None`` when it makes no choice about it."""
    start = hit.start
    code = _code_span(neutral, hit.start)
    if code is not None and not hit.claim:
        if not _COMMAND_PREFIX.match(clause[code[0] : hit.start]) and not _shown_call(
            hit, clause, neutral, code
        ):
            return None  # a tool name inside a code snippet: `import { x } from "vitest"`
        start = code[0]
    # the cues are read near the value only: the text before and after is cut to a window,
    # so a clause naming many values costs each value the same (a 32 KB sentence of
    # "use pnpm, " took seconds when every value copied and searched all the text before it)
    before = neutral[max(0, start - _CUE_WINDOW) : start]
    end = code[1] if code else hit.end
    after = neutral[end : end + _CUE_WINDOW]
    if not hit.numeric and _MODIFIER_BEFORE.search(before) and _MODIFIER_AFTER.match(after):
        return None  # "the Vite plugin" names a plugin, it does not choose Vite
    if hit.numeric and numbers.negated_bound(clause, hit.start, hit.end, hit.dimension.kind):
        return "prefer"  # "no task may run longer than 30 minutes" sets the maximum
    if hit.dimension.name == "semicolons" and _OMIT_BEFORE.search(before):
        return "reject"
    if _LEAVING_BEFORE.search(before):
        # "switch from npm to pnpm": the value is left behind; "don't switch from pnpm"
        # keeps it
        return None if negated else "reject"
    cue = _REJECT_BEFORE.search(before)
    if cue is not None:
        is_contrast = _CONTRAST.match(cue.group(0)) is not None
        if negated and _REPLACING.match(cue.group(0)):
            return None  # "don't replace Jest with Vitest" keeps Jest
        if not is_contrast and _RUN_VERB.search(cue.group(0)):
            # "never run `npm publish`" forbids an action, not the tool; "never run fastlane
            # for iOS" names the tool alone, and forbids it
            return "reject" if _names_tool_alone(hit, clause, neutral, code) else None
        return "reject"
    if _WITHOUT_BEFORE.search(before) and _WAIVED_AFTER.match(after):
        return None  # "no changeset file is needed here" waives a step, it bans no tool
    if _WITHOUT_BEFORE.search(before) or (
        prefer_context and (_OVER_BEFORE.search(before) or _PREFER_TO_BEFORE.search(before))
    ):
        return "reject"
    if _REJECT_AFTER.match(after):
        return "reject"
    if _ONLY_UNDER_CONDITION.match(after):
        return None
    if negated and not _POSITIVE_TURN.search(before):
        return "prefer" if _SUBORDINATE.search(before) else None
    return "prefer"


def read_choices(
    clause: str, masked: str | None = None, folder: str = "", context: str = ""
) -> list[Choice]:
    """The choices one clause makes: those of the catalogue reading
    (:func:`_catalogue_choices`, which documents the arguments) and those that conventions
    and process rules make by their shape (:mod:`.conventions`: "we write them in the past
    tense", "`tsconfig.json` sets `"strict": false`", "Antworte auf Deutsch")."""
    masked = clause if masked is None else masked
    choices = _catalogue_choices(clause, masked, folder, context)
    return _with_conventions(choices, clause, masked, context)


def _with_conventions(
    choices: list[Choice], clause: str, masked: str, context: str = ""
) -> list[Choice]:
    """``choices`` and the convention shapes' choices of the same clause, where it is a rule:
    not a question, narrative, a hedge, or a clause opened by a scope. ``context`` is the
    titles of the section the clause is in (see :func:`.conventions.read_conventions`)."""
    unruled = (
        masked.rstrip().endswith("?")
        or _SCOPED.match(masked)
        or _PLACE_REFERRED.search(masked)
        or _NARRATIVE.search(masked)
    )
    hedged = _HEDGE.search(masked) is not None or _HEDGE_ANYWHERE.search(masked) is not None
    ruled = not (unruled or hedged)
    if any(conventions.off_topic(c.dimension, masked) for c in choices):
        choices = [c for c in choices if not conventions.off_topic(c.dimension, masked)]
    stated = conventions.read_conventions(clause, masked, ruled, context)
    if hedged and not unruled:
        # a permission the hedge states is a reading of its own ("replies may use emoji",
        # "feel free to be chatty in your replies")
        stated += conventions.permitted(clause, masked)
    if not stated:
        return choices
    known = {(c.dimension, c.value) for c in choices}
    added = [
        Choice(s.dimension, s.value, s.stance, s.start, s.end, s.group)
        for s in stated
        if (s.dimension, s.value) not in known and not _ONLY_UNDER_CONDITION.match(masked, s.end)
    ]
    return _drop_ambiguous(choices + added)


def _catalogue_choices(
    clause: str, masked: str | None = None, folder: str = "", context: str = ""
) -> list[Choice]:
    """The choices one clause makes by the catalogue reading.

    ``clause`` is plain text (Markdown removed, inline code kept as its content); ``masked``
    is the same text with every character of inline code replaced by :data:`CODE_MASK`, so
    that words inside code never count as negations ("npm run build --no-lint") and tool
    names inside code count only as the command itself (`pnpm test`, `uv run pytest`).
    Offsets in the result index ``clause``. ``folder`` is the folder of the file the clause
    is in: a subject naming it is no partial subject. ``context`` is the titles of the
    section the clause is in, where a role's context word may stand instead of the clause.
    """
    masked = clause if masked is None else masked
    hits = _hits(clause, masked, context) or _value_named_before_role(clause, masked)
    if not hits or _SCOPED.match(masked) or masked.rstrip().endswith("?"):
        return []
    if _PLACE_REFERRED.search(masked):
        return []  # "don't add RSpec files there": the place is one named before
    if _HEDGE_ANYWHERE.search(masked):
        return []
    found = hits
    label = _LABEL.match(clause)
    if label is not None and _head_is_rule(clause, masked, label, folder):
        label = None
    directive = _imperative(masked)
    body_start = label.start(2) if label else 0
    opener = _TIME_OPENER.match(masked) if label is None and not directive else None
    if opener is not None and _imperative(masked[opener.end() :]):
        # "After changing dependencies, run `pod install`": the step says when, the rest
        # what; the values of the step are not chosen
        directive, body_start = True, opener.end()
        hits = [h for h in hits if h.start >= body_start]
    if label and not directive:
        directive = _imperative(masked[body_start:])
    #: values before this offset are the subject of a stated convention, not its choice
    after_verb = 0
    value_by: int | None = None
    by_preposition = False
    if not directive and (
        _TOOL_DIRECTIVE.match(masked, body_start) or _BARE_PARTICIPLE.match(masked, body_start)
    ):
        directive = by_preposition = True
    if not directive:
        entry = _command_entry(clause, masked, hits)
        if entry:
            directive, hits, label = True, entry, None
    if not directive:
        named = _value_is_role(masked, body_start, hits)
        if named:
            directive = True
            hits = named
    if not directive:
        working = _value_does_work(masked, body_start, hits)
        if working:
            directive, hits = True, working
    if not directive:
        versioned = _versioned_value_opens(masked, body_start, hits)
        if versioned:
            directive, hits = True, versioned
    if not directive:
        disused = _disused(masked, body_start, hits)
        if disused:
            return [
                Choice(h.dimension.name, h.value, "reject", h.start, h.end, h.group)
                for h in disused
            ]
    if not directive:
        statement = _statement(
            masked[body_start:],
            folder,
            True,
            lambda subject: _names_a_role(subject, hits),
            clause[body_start:],
        )
        if statement is not None:
            directive = True
            if "required" not in statement.group(0).lower():  # "Node 20 is required"
                after_verb = body_start + statement.end()
            if statement.re is _STATEMENT and statement.group("copula") is not None:
                # "our formatter is Prettier" names its value right after the verb; "this is
                # an npm monorepo" describes, it does not set
                value_by = after_verb
    if not directive:
        directive = _case_for_subject(masked[body_start:], hits, body_start)
    if not directive:
        named = _value_before_role(masked, body_start, hits)
        if named:
            directive, hits = True, named
    prefer_context = re.search(r"\b(?:prefer|favou?r)", masked, re.IGNORECASE) is not None
    neutral = _REVERSE_NEGATION.sub(lambda m: " " * len(m.group(0)), masked)
    negated = cues.NEGATED_START.match(neutral) is not None
    cut = _cut(neutral, hits, negated)
    # a numeric hit, or one that spans the verb, holds its own subject ("the maximum upload
    # size is 10 MB", "the minimum Go version for X is 1.23"): it may start before the verb,
    # and the copula's value is its number
    hits = [
        h
        for h in hits
        if h.start < cut
        and (h.start >= after_verb or _holds_subject(h, after_verb) or _labelled(h, label))
    ]
    if value_by is not None:
        hits = [
            h
            for h in hits
            if _holds_subject(h, value_by) or _COPULA_FILL.fullmatch(masked, value_by, h.start)
        ]
    if by_preposition:
        hits = [
            h
            for h in hits
            if h.claim
            or h.numeric
            or _by_preposition(h, masked)
            or _sent_to(h, masked)
            or _names_the_object(h, masked)
            or _CONTRASTED.search(masked, max(0, h.start - 32), h.start) is not None
        ]

    choices: list[Choice] = []
    previous: _Hit | None = None
    previous_stance: Stance | None = None
    for hit in hits:
        labelled = _labelled(hit, label)
        if not (directive or labelled or hit.dimension.setting or hit.claim):
            previous = None
            continue
        joined = (
            previous is not None
            and previous_stance is not None
            and previous.dimension is hit.dimension
            and _JOIN.match(clause[previous.end : hit.start])
        )
        stance = (
            previous_stance if joined else _stance(hit, clause, neutral, prefer_context, negated)
        )
        if stance == "reject" and hit.command:
            stance = None  # "avoid `make test`" rejects an action, not the tool
        previous, previous_stance = hit, stance
        if stance is not None:
            choices.append(
                Choice(hit.dimension.name, hit.value, stance, hit.start, hit.end, hit.group)
            )
    answers = _label_answers(clause, label, hits)
    if answers:
        answered = {(c.dimension, c.value) for c in answers}
        choices = [c for c in choices if (c.dimension, c.value) not in answered] + answers
    chosen = {c.dimension for c in choices}
    unread = [h for h in found if h.dimension.name not in chosen]
    if unread:
        choices.extend(_mentions(clause, masked, neutral, unread))
    return _drop_ambiguous(choices)


#: what makes a description no account of how the project works today: history, plans,
#: comparisons, alternatives, coexistence, conditions, negation, examples
_NOT_A_DESCRIPTION = re.compile(
    r"\b(?:not|no|never|without|avoid|instead|rather|or|nor|vs|versus|either|whether|if|"
    r"unless|except|like|such as|e\.g|etc|for example|for instance|compared?|similar|"
    r"alternatives?|in addition|also|alongside|as well|besides|apart from|both|"
    r"will|would|should|plan(?:ned|s)?|eventually|someday|todo|later|soon|future|"
    r"deprecated|legacy|old|older|until|since|before|after|once|no longer|anymore|"
    r"internal(?:ly)?|slow|fast|flaky|painful|broken|buggy|expensive|nice|great|better|"
    r"worse)\b|"
    r"n[\'\u2019]t\b",
    re.IGNORECASE,
)
#: a description says what the project does with the tool, by a verb: a copula or a verb
#: of use; a bare list of names ("React 18, Vite, TanStack Query") or a title ("Bottom tabs
#: with Expo Router") has none
_DESCRIBES_USE = re.compile(
    r"\b(?:is|are|uses?|using|go(?:es)?|runs? (?:on|in|through|via|with)|lives? (?:in|on)|"
    r"handled|powered|backed|built|written|sent|sends?|hosted|deployed|managed|tracked|"
    r"indexed|served|rendered|compiled|bundled|talks? to|happens?)\b",
    re.IGNORECASE,
)
#: one to three words and a comma opening the clause: an opener that sets a place, a time or
#: a tone ("Locally, tests use Jest"), unless "and" closes them as a list of subjects
_COMMA_OPENER = re.compile(r"[^\w\x1a]*+(?:[\w\'\u2019-]++\s++){0,2}+[\w\'\u2019-]++,\s")
_LIST_CLOSE = re.compile(r"\band\b", re.IGNORECASE)
#: a pronoun subject: the clause speaks of something named before it ("Refunds are not
#: handled here; they go back through Stripe"), a part of the project, not all of it
_PRONOUN_SUBJECT = re.compile(r"[^\w\x1a]*+(?:they|these|those|it|this|that)\b", re.IGNORECASE)
#: a possessive: what follows belongs to someone or something ("the bank's SDK", "the
#: SDK's browser matrix"), so a tool named after it is theirs, not the project's choice
_POSSESSIVE = re.compile(r"\w[\'\u2019]s\b")


def _proper_name(clause: str, hit: _Hit) -> bool:
    """Whether the value is written as a proper name: capitalised, and not merely as the
    first word of the clause (where any word is capitalised) unless it is capitalised
    inside too ("GitHub") or carries a mark no English word has ("Fly.io")."""
    surface = clause[hit.start : hit.end]
    if not any(ch.isupper() for ch in surface):
        return False
    if clause[: hit.start].strip(" \t*_\"'([-—–:"):
        return True
    return any(ch.isupper() or not (ch.isalpha() or ch.isspace()) for ch in surface[1:])


def _mentions(clause: str, masked: str, neutral: str, hits: list[_Hit]) -> list[Choice]:
    """Weak choices: the tools a plain description of the project names ("sign-in uses
    Clerk", "each source is an Airflow DAG"). Only proper names of exclusive roles with more
    than one value that the clause does not choose otherwise, outside code, in a
    present-tense clause that says how a tool is used, with a subject that is the project's
    own (no pronoun, part, third party or comma opener) and no negation, hedge, condition,
    comparison, coexistence or history."""
    if (
        _NARRATIVE.search(masked)
        or _HEDGE.search(masked)
        or _NOT_A_DESCRIPTION.search(masked)
        or not _DESCRIBES_USE.search(masked)
        or _PARTIAL_SUBJECT.match(masked)
        or _PRONOUN_SUBJECT.match(masked)
    ):
        return []
    out = []
    for hit in hits:
        if not hit.literal or hit.command or hit.claim or hit.numeric:
            continue
        dimension = hit.dimension
        if dimension.kind != "choice" or dimension.setting or len(dimension.values) < 2:
            continue
        if _code_span(neutral, hit.start) is not None or not _proper_name(clause, hit):
            continue
        if _POSSESSIVE.search(clause, 0, hit.end + 2):
            continue  # "the bank's SDK … with Jackson", "Vitest's pipeline"
        subject = masked[: hit.start]
        if _COMMA_OPENER.match(subject) and not _LIST_CLOSE.search(subject):
            continue  # "Locally, tests use Jest", "Today, tests use Jest"
        if (
            "/" in subject
            or CODE_MASK in subject
            or _SCOPED_SUBJECT.search(subject)
            or _EXTERNAL_SUBJECT.search(subject)
            or _QUALIFYING_ASIDE.search(subject)
        ):
            continue  # "the vendored SDK uses Guzzle", "upstream specs are written with Jest"
        if _stance(hit, clause, neutral, False, False) != "prefer":
            continue
        out.append(Choice(dimension.name, hit.value, "prefer", hit.start, hit.end, hit.group, True))
    return out


#: what may follow the command that opens a command entry: nothing, a dash or a colon and
#: what the command does, or what it is for ("`./mvnw verify` — compiles and runs the tests",
#: "`pnpm test` for unit tests", "`make lint` before pushing")
_ENTRY_REST = re.compile(
    r"[\s.!]*+$|\s*+(?:[:\u2014\u2013]|--?)\s|\s++(?:for|to|before|after|on|in|from)\s", re.I
)


def _command_entry(clause: str, masked: str, hits: list[_Hit]) -> list[_Hit]:
    """The tools a command entry names: a clause that opens with a code span holding a
    command (a step "1. `./mvnw -pl payments verify` — compiles, runs the tests", a list of
    commands "`pnpm test` for unit tests") chooses the tools at the command's head (as
    :func:`_stance` reads them); one whose explanation negates, hedges, narrates or sets a
    condition chooses nothing ("`npm install` — don't, use pnpm", "`docker compose up` — if
    you have Docker"), and nor does a value elsewhere in it."""
    start = len(masked) - len(masked.lstrip(" \t*_>-+([\"'"))
    code = _code_span(masked, start)
    if code is None or not _ENTRY_REST.match(masked, code[1]):
        return []
    rest = masked[code[1] :]
    if (
        cues.NEGATION.search(rest)
        or _TAIL_SUBORDINATE.search(rest)
        or _HEDGE.search(rest)
        or _HEDGE_ANYWHERE.search(rest)
        or _NARRATIVE.search(rest)
    ):
        return []
    return [
        hit
        for hit in hits
        if code[0] <= hit.start < code[1] and _COMMAND_PREFIX.match(clause[code[0] : hit.start])
    ]


def _head_is_rule(clause: str, masked: str, label: re.Match[str], folder: str) -> bool:
    """Whether what stands before a ``Label: value`` line's colon or dash is a rule of its
    own that names a value ("Tests are Minitest: `bin/rails test` …", "Log via structlog:
    `log = …`", "Manifests are rendered with Kustomize: each app …"): the colon then opens
    an elaboration, not a label's value. A head that states a setting by its form alone
    ("Node 20: …") is still a label."""
    end = label.end(1)
    head = _catalogue_choices(clause[:end], masked[:end], folder)
    if not head:
        return False
    settings = {(h.start, h.end) for h in _hits(clause[:end], masked[:end]) if h.claim or h.numeric}
    return any((c.start, c.end) not in settings for c in head if not c.weak)


#: a statement that the project does without a tool: "<subject> is / are not used", "… is
#: not a dependency", and where it holds, if anywhere: the project's code as a whole, or a
#: package, image or service of it ("structlog is not a dependency of the ingest image"). A
#: narrower place or purpose ("Terraform is not used for DNS") keeps the tool elsewhere
_DISUSED = re.compile(
    r"\b(?:(?:(?:is|are)\s++(?:not|never|no\s++longer)|isn['\u2019]t|aren['\u2019]t)\s++"
    r"(?:used|an?\s++dependency|dependencies)|(?:is|are)\s++(?:deprecated|banned))\b"
    r"(?:\s++(?:in|by)\s++(?:product|production|application|app|library|our|this|"
    r"the)\s++(?:code|codebase|repo|repository|project|package)\b|\s++(?:here|anywhere)\b|"
    r"\s++(?:of|for)\s++(?:this|the|our)\s++(?:[\w-]++\s++){0,2}?(?:image|package|service|"
    r"app|module|crate|project|repo|repository|codebase)\b|"
    r"\s++in\s++(?:this|our)\s++(?:image|package|service|app|module|crate|project|repo|"
    r"repository|codebase)\b)?[\s)]*+(?:$|[.;:!,\u2014\u2013])",
    re.IGNORECASE,
)
#: what may stand between a disused value and the verb: marks, the rest of a list of values,
#: the end of an aside ("Utility-class frameworks (Tailwind, UnoCSS) are not used")
#: a part of the project that does without a tool, where a deprecation or a ban would reject
#: it ("Redux is deprecated here" does)
_NOT_USED_HERE = re.compile(r"(?:not|n['\u2019]t)\s++used\s++here\b", re.IGNORECASE)
_DISUSED_GAP = re.compile(r"[\s`*_\"'\x1a]*+(?:(?:,|/|\bor\b|\band\b)[^().;:]{1,60}?)?\)?\s*+$")
#: a subject that may name disused values: at most eight words and one aside
_DISUSED_SUBJECT = re.compile(
    r"[^\w\x1a(]*+(?:[\w`'\u2019@./+\x1a-]++\s*+){0,8}?(?:\([^()\n]{1,80}+\)\s*+)?$"
)


def _disused(masked: str, start: int, hits: list[_Hit]) -> list[_Hit]:
    """The values a statement says the project does without (:data:`_DISUSED`): those that
    are the subject, or its listed aside, right before the verb."""
    verb = _DISUSED.search(masked, start)
    if verb is None or _DISUSED_SUBJECT.fullmatch(masked, start, verb.start()) is None:
        return []
    if _NOT_USED_HERE.search(verb.group(0)):
        return []  # "Terraform is not used here": this part does without it, it bans nothing
    subject = masked[start : verb.start()]
    if _PARTIAL_SUBJECT.match(subject) or _NARRATIVE.search(subject) or _HEDGE.search(subject):
        return []
    return [
        h
        for h in hits
        if start <= h.start
        and h.end <= verb.start()
        and not h.command
        and not h.numeric
        and _DISUSED_GAP.match(masked, h.end, verb.start()) is not None
    ]


#: "<value> is our <role>" / "<value> is the <role>" ("Docker is our container runtime",
#: "Redis is the cache"): the value comes first, the words after the article name its role
_VALUE_IS_ROLE = re.compile(
    r"[^\w\x1a]*+(?:[\w`'\u2019@./+\x1a-]++\s++){1,3}?(?:is|are)\s++(?:our|the)\s++"
    r"(?P<role>[\w-]++(?:\s++[\w-]++){0,3})",
    re.IGNORECASE,
)


def _value_is_role(masked: str, start: int, hits: list[_Hit]) -> list[_Hit]:
    """The values a "<value> is our <role>" clause chooses: those before the verb whose role
    the words after it name (the first one to four of them)."""
    match = _VALUE_IS_ROLE.match(masked, start)
    if match is None:
        return []
    verb = match.start("role")
    return [
        hit
        for hit in hits
        if hit.end <= verb and _role_named(hit.dimension, match.group("role"), masked, match.end())
    ]


def _role_named(dimension: Dimension, role: str, masked: str, end: int) -> bool:
    """Whether the words after "<value> is the" (``role``, then the clause from ``end``) name
    ``dimension``'s role for the project: the shortest run of them that names the role, not
    followed by a clause with a subject of its own ("Black is the formatter our dependency
    uses" says what another project uses)."""
    words = role.split()
    for n in range(1, len(words) + 1):
        if dimension.label_pattern.search(" ".join(words[:n]).lower()):
            tail = " ".join(words[n:]) if n < len(words) else masked[end:].lstrip()
            return _CONTACT_CLAUSE.match(tail) is None or _PROJECT_CLAUSE.match(tail) is not None
    return False


#: the name before "is the <role>", without its marks
_NAMED_SUBJECT = re.compile(r"[^\w]*+([\w.-]++)[`*_\"']*+\s++(?:is|are)\s")


def _value_named_before_role(clause: str, masked: str) -> list[_Hit]:
    """A value named by its bare name before "is the <role>" ("`main` is the base branch for
    all pull requests"), where the catalogue finds it only with words around it ("against
    main"): the role named after the verb says which value the name is."""
    match = _VALUE_IS_ROLE.match(masked)
    if match is None:
        return []
    subject = _NAMED_SUBJECT.match(clause, 0, match.start("role"))
    if subject is None or not subject.group(1):
        return []
    name = subject.group(1).lower()
    for dimension in vocabulary.current().dimensions:
        value = next((v for v in dimension.values if v.name.lower() == name), None)
        if value is not None and _role_named(dimension, match.group("role"), masked, match.end()):
            start, end = subject.span(1)
            return [_Hit(dimension, value.name, start, end, value.group)]
    return []


def _names_a_role(subject: str, hits: list[_Hit]) -> bool:
    """Whether a statement's subject names the role of one of the clause's values ("our CI"
    for a CI system, "the database" for PostgreSQL)."""
    words = subject.lower().strip(" \t-*#>_`").split()
    while words and words[0] in ("our", "the", "all", "every", "any", "this", "its"):
        words = words[1:]
    if not 0 < len(words) <= 4:
        return False
    named = " ".join(words)
    return any(hit.dimension.label_pattern.search(named) for hit in hits)


def _holds_subject(hit: _Hit, verb_end: int) -> bool:
    """Whether ``hit`` was found together with its subject: a number with its unit, or a
    value whose pattern runs from the subject across the verb to the value."""
    return hit.numeric or hit.claim or hit.start < verb_end < hit.end


#: the whole body of a ``Label: value`` line that answers a yes/no label ("Trailing commas:
#: none", "Semicolons: always")
_LABEL_NO = re.compile(
    r"\W*+(?:none|no|never|off|false|disallowed|forbidden|not allowed)\b(?!\s++\w)", re.I
)
_LABEL_YES = re.compile(r"\W*+(?:always|yes|on|true|required|mandatory)\b(?!\s++\w)", re.IGNORECASE)


def _label_answers(clause: str, label: re.Match[str] | None, hits: list[_Hit]) -> list[Choice]:
    """The choice of a label that names a value and a body that only says yes or no to it
    ("Trailing commas: none" rejects trailing commas, "Semicolons: always" prefers them).
    Words after the answer (an explanation) must not go on as a sentence. The answer decides
    the stance of those values, whatever the rest of the clause reads as."""
    if label is None:
        return []
    body = clause[label.start(2) :]
    stance: Stance | None = None
    if _LABEL_NO.match(body):
        stance = "reject"
    elif _LABEL_YES.match(body):
        stance = "prefer"
    if stance is None:
        return []
    return [
        Choice(h.dimension.name, h.value, stance, h.start, h.end, h.group)
        for h in hits
        if h.end <= label.end(1)
    ]


def _by_preposition(hit: _Hit, masked: str) -> bool:
    """Whether a preposition that introduces a tool stands right before ``hit``: "with
    zod", "from Vault", "in `Redis`"; inside inline code, before the code span."""
    code = _code_span(masked, hit.start)
    start = code[0] if code is not None else hit.start
    end = code[1] if code is not None else hit.end
    if _DOCUMENT_AFTER.match(masked, end):
        return False
    if code is not None and _AS_BEFORE_CODE.search(masked, max(0, start - 8), start):
        return True  # "expose uploads as `POST /api/uploads`"
    return _TOOL_PREPOSITION.search(masked, max(0, start - _PREPOSITION_REACH), start) is not None


#: a verb that makes a thing and an article right before a value that names what kind of
#: thing it makes ("declare a Retrofit interface", "define a Zod schema", "write a Playwright
#: test"): the thing is made with that tool. Not a verb that looks at a thing ("check the
#: Buildkite build", "read the Sentry issue"): that one may belong to anything
_OBJECT_OF_WORK = re.compile(
    _LEAD
    + r"(?:declare|define|write|create|add|implement|scaffold|generate|model)\s++"
    + r"(?:a|an|one|new)\s++(?:new\s++)?$",
    re.IGNORECASE,
)
#: the object's noun after the value: a plain lowercase word, not a possessive
_OBJECT_NOUN = re.compile(r"\s++[a-z][a-z-]*+\b(?![\'\u2019])")


def _names_the_object(hit: _Hit, masked: str) -> bool:
    """Whether ``hit`` is the modifier of the object of the work verb that opens the clause
    ("declare a Retrofit interface in `data/api/`"): a proper name outside code, between
    the verb's article and the object's noun."""
    if hit.command or CODE_MASK in masked[hit.start : hit.end]:
        return False
    if not any(ch.isupper() for ch in masked[hit.start : hit.end]):
        return False
    if _OBJECT_OF_WORK.match(masked, 0, hit.start) is None:
        return False
    return _OBJECT_NOUN.match(masked, hit.end) is not None and not _DOCUMENT_AFTER.match(
        masked, hit.end
    )


#: a verb that moves the work somewhere, and "to" / "on" before the place ("deploy to Fly.io",
#: "ship the worker to AWS ECS", "log every run to W&B", "send errors to Sentry"): the place
#: is the tool chosen
_SENT_TO = re.compile(
    r"^\W*+(?:(?:please|always|only|just|we|you|must|should)\s++)*+"
    r"(?:deploy|ship|host|log|send|report|stream|emit|forward|export|upload|push|publish|"
    r"release|track|run)\b",
    re.IGNORECASE,
)
_TO_BEFORE = re.compile(r"\b(?:to|on|onto)\s++(?:the\s++|an?\s++)?[`*_\"'\x1a]{0,2}$", re.I)


def _sent_to(hit: _Hit, masked: str) -> bool:
    """Whether a work verb that moves the work somewhere opens the clause and "to" / "on"
    stands right before ``hit`` ("We ship to Fly.io", "Log each run to W&B")."""
    if _SENT_TO.match(masked) is None:
        return False
    code = _code_span(masked, hit.start)
    start = code[0] if code is not None else hit.start
    end = code[1] if code is not None else hit.end
    if _DOCUMENT_AFTER.match(masked, end):
        return False
    return _TO_BEFORE.search(masked, max(0, start - 24), start) is not None


def _labelled(hit: _Hit, label: re.Match[str] | None) -> bool:
    """Whether ``hit`` is the value of a ``Label: value`` line whose label names its
    dimension."""
    return bool(
        label
        and hit.start >= label.start(2)
        and hit.dimension.label_pattern.search(label.group(1).strip())
    )


def _cut(neutral: str, hits: list[_Hit], negated: bool) -> int:
    """Where the part of a clause that makes choices ends: at a hedge before a value ("you
    may use …"), or, after the first value, at a subordinate clause or past-tense narrative
    ("use pnpm, even when a README says npm"). In a negated clause the subordinate clause
    holds what is wanted ("never commit without running `pnpm test`"), so it stays."""
    cut = len(neutral)
    prohibiting = _PROHIBITING_MAY.match(neutral)
    hedge = _HEDGE.search(neutral, prohibiting.end() if prohibiting else 0)
    if hedge is not None:
        cut = hedge.start()
    if negated or not hits:
        return cut
    first = hits[0].end
    for pattern in (_TAIL_SUBORDINATE, _NARRATIVE):
        found = pattern.search(neutral, first)
        if found is not None:
            cut = min(cut, found.start())
    return cut


def _drop_ambiguous(choices: list[Choice]) -> list[Choice]:
    """Remove preferences for two values of one dimension (alternatives, scoped pairs),
    unless the values are used together ("Spotless + ktfmt", "Meson and Ninja")."""
    preferred: dict[str, set[str]] = {}
    for choice in choices:
        if choice.stance == "prefer":
            preferred.setdefault(choice.dimension, set()).add(choice.value)
    ambiguous = {
        d
        for d, values in preferred.items()
        if len(values) > 1
        and not all(values_compose(d, a, b) for a, b in combinations(sorted(values), 2))
    }
    return [c for c in choices if not (c.stance == "prefer" and c.dimension in ambiguous)]


def versions_exclude(a: Choice, b: Choice) -> bool:
    """Whether two preferences of one version role, a floor and a pin, exclude each other:
    the pin is below the floor ("Node 20+" against "Node 18")."""
    dimension = vocabulary.current().by_name.get(a.dimension)
    if dimension is None or dimension.kind != "floor":
        return False
    groups = {a.group, b.group}
    if groups != {versions.FLOOR_GROUP, ""}:
        return False
    floor, pin = (a, b) if a.group == versions.FLOOR_GROUP else (b, a)
    return versions.excludes(floor.value, pin.value)


def bounds_exclude(a: Choice, b: Choice) -> bool:
    """Whether a default and a bound of one numeric role exclude each other: the default
    breaks the bound (a 60 s default against a 30 s maximum), see :mod:`.numbers`."""
    dimension = vocabulary.current().by_name.get(a.dimension)
    if dimension is None:
        return False
    return numbers.bound_excludes(dimension.kind, (a.value, a.group), (b.value, b.group))


def values_compose(dimension: str, a: str, b: str) -> bool:
    """Whether two values of one dimension are used together rather than instead of each
    other (the catalogue's ``composes``: Meson and the Ninja backend it drives)."""
    known = vocabulary.current().by_name.get(dimension)
    return known is not None and known.composes(a, b)


def contradicts(a: Choice, b: Choice) -> bool:
    """Whether two choices on one dimension cannot both be followed."""
    if a.dimension != b.dimension:
        return False
    if a.stance == "prefer" and b.stance == "prefer" and a.group != b.group:
        return versions_exclude(a, b) or bounds_exclude(a, b)
    if a.stance == "prefer" and b.stance == "prefer":
        return (
            a.value != b.value
            and a.group == b.group
            and not values_compose(a.dimension, a.value, b.value)
        )
    if a.stance != b.stance:
        return a.value == b.value
    return False
