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

* modality: what the instruction says of the action, beyond always/never: *require* (the
  positive markers above, "X is required"), *permit* ("you may", "can", "feel free to", "it's
  fine to", "OK to", "go ahead and", "the agent is allowed to", "X is OK", "you have network
  access"), *prohibit* (the negative markers, "under no circumstances", "X is off-limits",
  "hands off X", "X is read-only", "leave X(-ing) to the human / the DBA team", "X is the
  maintainers' job", "X is not your job", "work offline") or *gated*, allowed once approved
  ("ask / wait for approval / talk to the team before …", "check with the team before …", "X
  requires sign-off", "… only with approval", "never … without approval", "… unless asked",
  "until I approve", "only when I ask"); a permission or requirement that says it needs no
  approval ("feel free", "without asking", "whenever you like") is ``unasked``. A deverbal
  subject reads as its verb ("Pushing is off-limits" is "push", "No new dependencies" is "add
  dependency"); a thing kept off-limits is not to be edited, a thing required is to be added;
  the words after a stated rule say where it holds ("… is disabled in CI");
* what the agent itself may do, named many ways, is one action through data tables
  (:data:`_ACTIONS`: "install packages", "introduce a new library" and "use third-party
  packages" are "add dependency"; "run the migrations" and "alter the schema" are "migrate
  schema"; "make HTTP requests", "fetch from the internet", "download X" and "look X up
  online" are "access network"; :data:`_COMMANDS`: `git push --force`, `--no-verify`,
  `git commit -n`, `alembic upgrade head`, `kubectl apply`, `npm install x` …): a command
  names its action as the object, as the instrument ("update the PR with `git push
  --force-with-lease`") or as a line of a procedure's shell fence (:func:`command_frames`);
  `--force-with-lease` is a force push of its own kind, a `--dry-run` none;
* one clause may hold several: coordinated verb phrases ("generate the migration and run
  it", "don't create X and don't run Y"), what "including X" adds, and "them" / "it" for the
  subject of the sentence ("these hooks are required: don't skip them"); a dash-enclosed
  aside ("— npm or crate —") is skipped; "in this package" and "here" say where the file
  applies, and name no narrower place.

What the agent itself may do, said otherwise on the two sides: "whole", "complete", "full"
and "entire" are one modifier and a test suite is a suite; "whatever packages you need", "any
library you want", "as you see fit" and "no sign-off required" need no approval; a command
used as a verb ("`pnpm add` it") names its action, and what it does in a "which" clause after
it ("run `npm run test:live`, which calls the staging API") is done too; what "never goes into
git" is not to be committed, and "commit notebooks with their outputs" commits the outputs; a
file named by its extension is of its kind ("`NOTES.md`" is a Markdown file); a gate that
waits for a request ("unless asked", "after the user asks") meets a standing requirement, one
on approval ("ask before …") does not; a prohibition on the agent's machine ("on your
machine", "locally") meets a requirement that names no other place (CI, staging, a container).

Text that is not a rule makes no frame: a question, a description ("we never had to …", "CI
never pushes …": the verb after the marker must be in its base form), a clause with no verb
or no object. A frame read under a condition ("if …", "when …", "unless …", "while …") is
marked ``conditional``; when the condition names no place, language, kind of work, request or
approval ("once the checks pass", "when it saves real work") it is a ``precondition`` too.

Comparing (:func:`frame_pairs`): a prohibition meets a permission or requirement of the same
action and object, and a gate a permission given without asking; an unconditional
prohibition of a whole action ("never commit", "leave committing to me") covers it on any
object or branch ("commit to your feature branch") and under the other side's precondition.
Qualifiers of the prohibition must all be on the other side (local against CI, production
against staging stay apart), except the names of the folders the deeper file sits in
("never mock the database in claims tests" in ``services/claims/``). A gate against a
prohibition, "ask first" against "never without asking", read against write, different
branches: compatible.

Lemmas come from the Snowball English stemmer (PyStemmer: a 0.7 MB wheel with no data
files, about 1 ms to load) with a table of irregular verb forms, applied alike to the text and
to the synonym tables, so both sides of a comparison meet on the same stem. Everything here is
a walk over a token list with bounded look-ahead: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from pi_lsp.lint.scopes import heading_languages
from pi_lsp.lint.stems import IRREGULAR as _IRREGULAR
from pi_lsp.lint.stems import lemma

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
    #: :data:`REQUIRE`, :data:`PERMIT`, :data:`PROHIBIT` or :data:`GATED`; by default
    #: REQUIRE when ``positive``, else PROHIBIT
    modality: str = ""
    #: a permission or requirement that says it needs no approval ("feel free to …",
    #: "… without asking")
    unasked: bool = False
    #: for a frame of the *land* class, the verb that lands ("commit", "push", "merge"):
    #: "leave committing to the human" forbids committing to any branch
    via: str = ""
    #: ``conditional``, and the condition names no place, request or approval ("once the
    #: checks pass", "when it saves real work"): an unconditional prohibition forbids the
    #: action under it too
    precondition: bool = False
    #: a gate that waits for someone to ask for the action ("unless asked", "only when I ask
    #: for it"), not for approval the agent may ask for: a requirement to do it routinely
    #: contradicts it
    requested: bool = False

    def __post_init__(self) -> None:
        if not self.modality:
            object.__setattr__(self, "modality", REQUIRE if self.positive else PROHIBIT)

    @property
    def polarity(self) -> str:
        return _POLARITY_WORDS[self.modality]


#: the modalities of a frame: it asks for the action, allows it, forbids it, or allows it only
#: with someone's approval
REQUIRE, PERMIT, PROHIBIT, GATED = "require", "permit", "prohibit", "gated"
_POLARITY_WORDS = {
    REQUIRE: "always",
    PERMIT: "allowed",
    PROHIBIT: "never",
    GATED: "only with approval",
}


# --- lemmas ---------------------------------------------------------------------------------

#: forms that are past tense or participles although their stem looks like a base form
_PAST = frozenset(k for k, v in _IRREGULAR.items() if v not in ("be", "datum", "do", "go"))
#: base forms of verbs that end in "ed"
_ED_BASE = frozenset({"need", "embed", "feed", "seed", "shred", "speed", "proceed", "exceed"})


# --- synonym tables -------------------------------------------------------------------------

#: verb class -> members (phrasal verbs as several words)
_VERB_CLASSES: dict[str, tuple[str, ...]] = {
    "commit": ("commit", "check in"),
    "push": ("push",),
    "merge": ("merge", "squash-merge", "rebase-merge"),
    "force-push": ("force-push", "force push", "force"),
    "add": ("add", "write", "include", "insert", "put", "introduce"),
    "remove": ("remove", "delete", "drop", "strip", "erase"),
    "mock": ("mock", "stub", "fake", "monkeypatch", "monkey-patch"),
    "use": ("use", "rely on", "employ", "utilize", "utilise", "depend on", "leverage"),
    "run": ("run", "execute", "invoke", "launch", "apply"),
    "edit": ("edit", "modify", "change", "touch", "alter", "hand-edit", "tweak", "patch"),
    "hard-code": ("hard-code", "hardcode"),
    "create": ("create", "make", "generate", "produce"),
    "skip": ("skip", "bypass", "disable", "circumvent"),
    "comment": ("comment",),
    "install": ("install", "pull in", "bring in"),
    "update": ("update", "upgrade", "bump"),
    "rewrite": ("rewrite", "rebase"),
    "regenerate": ("regenerate", "re-generate"),
    "access": (
        "access",
        "reach",
        "hit",
        "contact",
        "call",
        "fetch",
        "look up",
        "browse",
    ),
    #: verbs that always reach the network
    "download": ("download", "curl", "wget"),
    "migrate": ("migrate",),
    "open": ("open", "submit", "raise"),
    "deploy": ("deploy", "roll out", "redeploy"),
    "send": ("send",),
}
#: verbs of these classes that name a branch they land on form one class, "land"
_LANDING = frozenset({"commit", "push", "merge"})
#: noun class -> members
_NOUN_CLASSES: dict[str, tuple[str, ...]] = {
    "database": ("db", "database", "dbs"),
    "repository": ("repo", "repository"),
    "pr": ("pr", "prs", "pull request", "merge request", "mr"),
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
    "dependency": ("dependency", "dep", "deps"),
    #: "install packages" adds one; "install the dependencies" may restore the lockfile's
    "package": (
        "package",
        "library",
        "lib",
        "third-party package",
        "third-party library",
        "crate",
        "gem",
    ),
    "code": ("code", "file", "source", "source code", "source file", "code file"),
    "comment": ("comment", "code comment", "inline comment"),
    "docs": ("doc", "docs", "documentation"),
    "secret": ("secret", "credential", "api key"),
    "lockfile": (
        "lockfile",
        "lock file",
        "lockfiles",
        "`pnpm-lock.yaml`",
        "`package-lock.json`",
        "`yarn.lock`",
        "`poetry.lock`",
        "`uv.lock`",
        "`cargo.lock`",
        "`gemfile.lock`",
        "`composer.lock`",
        "`bun.lockb`",
        "`go.sum`",
    ),
    "hook": (
        "hook",
        "git hook",
        "pre-commit hook",
        "commit hook",
        "pre-push hook",
        "husky hook",
        "pre-commit",
        "`pre-commit`",
        "husky",
        "husky hooks",
        "lefthook",
        "`husky`",
        "`lefthook`",
        "commit-msg hook",
        "`lint-staged`",
        "lint-staged",
    ),
    "network": (
        "network",
        "internet",
        "network access",
        "external api",
        "external service",
        "third-party api",
        "remote api",
        "network request",
        "network call",
        "http request",
        "http call",
        "outbound request",
        "external request",
        "api call",
        "web",
        "online resource",
    ),
    "migration": (
        "migration",
        "database migration",
        "db migration",
        "schema migration",
        "migration file",
        "migration script",
    ),
    "schema": ("schema", "database schema", "db schema"),
    "remote": ("remote", "origin", "upstream", "remote repository"),
    #: a suite of tests is the suite: "the whole suite" is "the complete test suite"
    "suite": ("suite", "test suite", "testsuite"),
    #: modifiers that say all of a thing: "the whole suite", "the full test suite"
    "whole": ("whole", "complete", "full", "entire"),
    "env-var": ("env var", "environment variable"),
    "flag": ("flag", "feature flag", "feature toggle", "toggle", "flag value"),
}
#: verbs whose object takes what it has along ("commit notebooks with their outputs")
_CARRYING = frozenset({"commit", "push", "add", "remove"})
#: payload nouns of a landing verb ("push your commits to main" lands on main)
_PAYLOAD = frozenset({"commit", "change", "code", "work", "it", "them", "branch"})
#: modifiers of a dependency that say it is one more ("new dependencies", "extra packages")
#: (an ecosystem, "npm", "pip", stays a modifier: "npm packages" are not all packages)
_NEW = ("new", "additional", "extra", "more", "external", "other", "third-party", "outside")
#: verbs that name a whole action without an object ("Do not push", "Leave committing to the
#: human"): a frame of their own, object "", when the only object is a payload
_OBJECTLESS = frozenset({"commit", "push", "merge", "force-push", "migrate", "deploy"})


@lru_cache(maxsize=1)
def _payloads() -> frozenset[str]:
    return frozenset(lemma(w) for w in _PAYLOAD) | {"code"}


# --- what the agent itself may do: actions named many ways, as data ------------------------

#: (verb classes, object classes, the action's verb and object, modifiers that never narrow
#: it, modifiers of which one must be there or ()): "install a package", "introduce a new
#: dependency", "install new dependencies" are one action, "add dependency" ("install the
#: dependencies" may only restore what the lockfile names, and "use packages" uses what is
#: there); "run the migrations", "alter the database schema" another. Verbs and objects are
#: the class names of the tables above; "" is "no object".
_ACTIONS: tuple[
    tuple[tuple[str, ...], tuple[str, ...], str, str, tuple[str, ...], tuple[str, ...]], ...
] = (
    (("add",), ("dependency", "package"), "add", "dependency", _NEW, ()),
    (("install",), ("package",), "add", "dependency", _NEW, ()),
    (("install",), ("dependency",), "add", "dependency", _NEW, _NEW),
    (
        ("access", "use", "create", "send"),
        ("network",),
        "access",
        "network",
        ("external", "outbound", "public", "network"),
        (),
    ),
    (("run", "migrate"), ("migration",), "migrate", "schema", ("database", "pending"), ()),
    (("migrate", "edit", "update"), ("schema",), "migrate", "schema", ("database",), ()),
    (("migrate",), ("database", ""), "migrate", "schema", (), ()),
    (("edit", "update", "regenerate", "create"), ("lockfile",), "update", "lockfile", (), ()),
    (("skip",), ("hook",), "skip", "hook", ("git", "commit", "pre-commit"), ()),
    (("open", "create", "submit", "send"), ("pr",), "open", "pr", ("new",), ()),
    (("land",), ("remote",), "push", "", (), ()),
)
#: nouns that stand for their action on their own ("No new dependencies", "No network
#: access"): the action's verb
_IMPLIED = {"dependency": "add", "package": "add", "network": "access", "migration": "migrate"}
#: one platform's deploy commands: asked for or allowed, each is a deploy ("run `cdk deploy`"
#: under "never deploy"); forbidden, each names its platform only ("do not run `vercel
#: deploy`: the project is archived" says nothing of deploying with `fly deploy`)
_TOOL_DEPLOYS = (
    ("flyctl deploy",),
    ("cdk deploy",),
    ("sam deploy",),
    ("pulumi up",),
    ("tofu apply",),
    ("serverless deploy",),
    ("sls deploy",),
    ("firebase deploy",),
    ("wrangler deploy",),
    ("wrangler publish",),
    ("vercel deploy",),
    ("netlify deploy",),
    ("gcloud app deploy",),
    ("gcloud run deploy",),
    ("kamal deploy",),
    ("eb deploy",),
)
#: inline commands that name an action, tested as substrings of the verb and the command
#: together ("push `--force`", "run `git commit --no-verify`"); the first match wins; the
#: third item is a kind of the action that narrows it (the safer force push is not a plain
#: force push) and an action "" keeps the command as it is
_COMMANDS: tuple[tuple[tuple[str, ...], str, str, str], ...] = (
    (("--dry-run",), "", "", ""),
    (("--dryrun",), "", "", ""),
    (("--no-verify",), "skip", "hook", ""),
    (("husky=0",), "skip", "hook", ""),
    (("skip=",), "skip", "hook", ""),
    (("git commit", " -n"), "skip", "hook", ""),
    (("--force-with-lease",), "force-push", "", "lease"),
    (("--force-if-includes",), "force-push", "", "lease"),
    (("push", "--force"), "force-push", "", ""),
    (("push", " -f"), "force-push", "", ""),
    (("git push",), "push", "", ""),
    (("git commit",), "commit", "", ""),
    (("migrate",), "migrate", "schema", ""),
    (("alembic upgrade",), "migrate", "schema", ""),
    (("alembic downgrade",), "migrate", "schema", ""),
    (("goose up",), "migrate", "schema", ""),
    (("dbmate up",), "migrate", "schema", ""),
    (("db:rollback",), "migrate", "schema", ""),
    (("flyway migrate",), "migrate", "schema", ""),
    (("liquibase update",), "migrate", "schema", ""),
    (("prisma db push",), "migrate", "schema", ""),
    (("db:schema:load",), "migrate", "schema", ""),
    (("pnpm add ",), "add", "dependency", ""),
    (("yarn add ",), "add", "dependency", ""),
    (("bun add ",), "add", "dependency", ""),
    (("npm install ",), "add", "dependency", ""),
    (("npm i ",), "add", "dependency", ""),
    (("uv add ",), "add", "dependency", ""),
    (("poetry add ",), "add", "dependency", ""),
    (("pdm add ",), "add", "dependency", ""),
    (("cargo add ",), "add", "dependency", ""),
    (("pip install ",), "add", "dependency", ""),
    (("go get ",), "add", "dependency", ""),
    (("bundle add ",), "add", "dependency", ""),
    (("composer require ",), "add", "dependency", ""),
    (("dotnet add ",), "add", "dependency", ""),
    (("kubectl apply",), "deploy", "", ""),
    (("kubectl rollout",), "deploy", "", ""),
    (("helm upgrade",), "deploy", "", ""),
    (("helm install",), "deploy", "", ""),
    (("terraform apply",), "deploy", "", ""),
    (("fly deploy",), "deploy", "", ""),
    *((key, "deploy", "", "") for key in _TOOL_DEPLOYS),
)


_Action = tuple[str, str, frozenset[str], frozenset[str]]


@lru_cache(maxsize=1)
def _action_table() -> dict[tuple[str, str], _Action]:
    table: dict[tuple[str, str], _Action] = {}
    for verbs, objects, verb, obj, neutral, needed in _ACTIONS:
        dropped = frozenset(lemma(w) for w in neutral) | set(objects)
        for v in verbs:
            for o in objects:
                table[(v, o)] = (verb, obj, dropped, frozenset(lemma(w) for w in needed))
    return table


#: files that list a project's dependencies: "add a gem to the `Gemfile`" adds a gem
_MANIFESTS = frozenset(
    {
        "package.json",
        "cargo.toml",
        "pyproject.toml",
        "requirements.txt",
        "requirements-dev.txt",
        "setup.py",
        "setup.cfg",
        "pipfile",
        "gemfile",
        "go.mod",
        "build.gradle",
        "build.gradle.kts",
        "pom.xml",
        "composer.json",
        "package.swift",
        "podfile",
        "mix.exs",
        "pubspec.yaml",
        "deno.json",
        "libs.versions.toml",
        "directory.packages.props",
    }
)
_MANIFEST_WORDS = ("manifest", "gemfile", "podfile", "pipfile")


@lru_cache(maxsize=1)
def _action_neutrals() -> dict[tuple[str, str], frozenset[str]]:
    """(action, object) -> the qualifier words that never narrow it (its table's modifiers
    that never narrow it, and for "add dependency" the manifests it is added to)."""
    out: dict[tuple[str, str], frozenset[str]] = {}
    for _, _, verb, obj, neutral, _ in _ACTIONS:
        out[(verb, obj)] = out.get((verb, obj), frozenset()) | {lemma(w) for w in neutral}
    manifests = {lemma(w) for w in _MANIFEST_WORDS}
    out[("add", "dependency")] = out.get(("add", "dependency"), frozenset()) | manifests
    return out


def _neutral(action: str, obj: str, word: str) -> bool:
    """Whether a qualifier ``word`` never narrows the action ("`apps/web/package.json`" for
    adding a dependency, "external" for network access)."""
    if word.startswith("`"):
        return (action, obj) == ("add", "dependency") and (
            word.strip("`").rsplit("/", 1)[-1] in _MANIFESTS
        )
    return word in _action_neutrals().get((action, obj), frozenset())


def _command(verb: str, code: str) -> tuple[str, str, frozenset[str]] | None:
    """The action an inline command names (with the verb that runs it) and its kind, if
    any."""
    text = f"{verb} {code.strip('`')}"
    for keys, action, obj, kind in _COMMANDS:
        if all(_has(text, key) for key in keys):
            return (action, obj, frozenset({kind} - {""})) if action else None
    return None


def _tool_deploy(verb: str, code: str) -> bool:
    """Whether an inline command is one platform's deploy command (:data:`_TOOL_DEPLOYS`)."""
    if not code.startswith("`"):
        return False
    text = f"{verb} {code.strip('`')}"
    return any(all(_has(text, key) for key in keys) for keys in _TOOL_DEPLOYS)


def _has(text: str, key: str) -> bool:
    """Whether ``key`` is in ``text``; a key ending in a space needs an argument after it that
    is not an option ("`npm install lodash`", not "`npm install`" or "`pip install -e .`")."""
    at = text.find(key)
    if at < 0:
        return False
    if not key.endswith(" "):
        return True
    after = text[at + len(key) : at + len(key) + 1]
    return bool(after.strip()) and after != "-"


def _action(verb: str, head: str, kinds: frozenset[str]) -> tuple[str, str, frozenset[str]]:
    """The agent action a verb and object name, with the modifiers that still narrow it."""
    if head.startswith("`"):
        named = _command(verb, head)
        if named is not None:
            return named[0], named[1], kinds | named[2]
    found = _action_table().get((verb, head))
    if found is None or (found[3] and not found[3] & kinds):
        return verb, head, kinds
    action, obj, dropped, _ = found
    return action, obj, kinds - dropped


#: what a context file may sit in: "to this service" or "in this app" names its own place
_CONTAINER_WORDS = (
    "package",
    "service",
    "app",
    "application",
    "folder",
    "directory",
    "dir",
    "module",
    "repository",
    "project",
    "crate",
    "workspace",
    "codebase",
    "subproject",
    "engine",
    "site",
    "plugin",
    "library",
)


@lru_cache(maxsize=1)
def _containers() -> frozenset[str]:
    _, nouns = _tables()
    return frozenset(nouns.get((lemma(w),), lemma(w)) for w in _CONTAINER_WORDS)


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
    whatever whichever
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
    "including": "incl",
}
#: preposition classes whose phrase says where a rule applies
_PLACES = frozenset({"in", "for"})
#: heads of "in …" phrases that say how, not where ("in place", "in parallel")
_MANNER = (
    "place",
    "parallel",
    "general",
    "order",
    "bulk",
    "batch",
    "full",
    "advance",
    "isolation",
    "review",
    "commit",
)


@lru_cache(maxsize=1)
def _not_places() -> frozenset[str]:
    return frozenset(lemma(w) for w in _MANNER)


def _by_work(phrase: _Phrase) -> bool:
    """Whether a place is named by the work done in it ("the touched context folder")."""
    return any(m in _work_places() for m in phrase.modifiers)


@lru_cache(maxsize=1)
def _work_places() -> frozenset[str]:
    return frozenset(lemma(w) for w in _WORK_PLACES)


#: words that open a relative clause after a noun ("the code you just wrote")
_RELATIVE = frozenset(
    {"you", "we", "they", "i", "he", "she", "it", "that", "which", "who", "whose", "where"}
)
#: adverbs that are not "-ly" words; "-ly" words that are not adverbs
_ADVERB_WORDS = frozenset(
    {
        "only",
        "anywhere",
        "everywhere",
        "here",
        "there",
        "elsewhere",
        "locally",
        "first",
        "too",
        "often",
        "later",
        "afterwards",
        "afterward",
        "now",
        "sometimes",
        "together",
        "online",
        "offline",
    }
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
#: words after a participle that open its own object ("describing what changed")
_OPENS = frozenset(
    {"what", "why", "how", "which", "the", "a", "an", "each", "every", "all", "your", "its"}
)
#: modifiers of a place that name it by the work, not where it is ("in the touched folder",
#: "in the affected package"): no place a rule is scoped to
_WORK_PLACES = ("touched", "changed", "affected", "relevant", "same", "current", "modified")
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
_FORBIDDEN = frozenset(
    {"forbidden", "prohibited", "banned", "disallowed", "discouraged", "off-limits", "taboo"}
    | {"disabled"}
)


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
    "you're": ("you", "are"),
    "we're": ("we", "are"),
    "they're": ("they", "are"),
    "it's": ("it", "is"),
    "that's": ("that", "is"),
}
#: markers that can stand as a label before a colon ("Never: …", "Do not: …")
_LABEL_MARKERS = frozenset(
    {("never",), ("always",), ("do", "not"), ("must",), ("must", "not"), ("avoid",)}
)
#: clause ends: a new clause starts after these
_CLAUSE_END = frozenset({";", ":", "\u2014", "\u2013", "?", "!", "."})


_DASHES = frozenset({"\u2014", "\u2013"})
#: words a dash-enclosed aside may hold ("— npm or crate —")
_ASIDE_WORDS = 5


def _aside_end(tokens: list[str], at: int) -> int | None:
    """Where a short aside opened by the dash at ``tokens[at]`` closes with a second dash,
    if it is one: a few words, no clause end, no verb of the tables in its base form."""
    for k in range(at + 1, min(len(tokens), at + 2 + _ASIDE_WORDS)):
        token = tokens[k]
        if token in _DASHES:
            return k if k > at + 1 else None
        if token in _CLAUSE_END or token in _LEAD_FIRST or _next_verb(tokens, k):
            return None
    return None


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


#: words a parenthesised list of examples may hold besides its code spans ("or", "etc.")
_EXAMPLE_WORDS = frozenset({",", "or", "and", "etc", "."})
#: words before an object that forbid what follows ("never run …", "do not edit …"): the
#: list after a forbidden object names what is forbidden, where the list after an object asked
#: for ("use pnpm (`pnpm install`, `pnpm -r build`)") only illustrates it
_EXAMPLE_LEADS = frozenset({"never", "not", "avoid"})
#: code spans read from one parenthesised list of examples
_MAX_EXAMPLES = 6


def _examples(tokens: list[str], at: int) -> tuple[list[str], int] | None:
    """The code spans of a parenthesised list of examples opening at ``tokens[at]`` ("(`git
    reset --hard`, `git clean -fdx`)") and where it closes, when it holds nothing else."""
    codes: list[str] = []
    for k in range(at + 1, min(len(tokens), at + 2 + 2 * _MAX_EXAMPLES)):
        token = tokens[k]
        if token == ")":
            return (codes, k) if codes else None
        if token.startswith("`"):
            codes.append(token)
        elif token not in _EXAMPLE_WORDS:
            return None
    return None


def _clauses(tokens: list[str]) -> list[tuple[list[str], bool]]:
    """Clauses, each with whether it was a question; parentheses are dropped, except a list
    of code spans after a forbidden object, read as what the object includes ("never run
    destructive commands (`git reset --hard`, `git clean -fdx`)": each is forbidden too)."""
    clauses: list[tuple[list[str], bool]] = []
    current: list[str] = []
    depth = 0
    skip_to = -1
    #: whether the current clause has a negative marker yet: a list after a subject ("Files
    #: that change often (`a`, `b`) …") or an object asked for is no list of what is forbidden
    forbidding = False
    for at, token in enumerate(tokens):
        if at < skip_to:
            continue
        if token in _DASHES and not depth and current:
            close = _aside_end(tokens, at)
            if close is not None:
                skip_to = close + 1  # "Adding a package — npm or crate — requires sign-off"
                continue
        if token == "(" and not depth and forbidding and current and current[-1][0].isalpha():
            listed = _examples(tokens, at)
            if listed is not None:
                codes, close = listed
                current.append("including")
                for k, code in enumerate(codes):
                    current += [",", code] if k else [code]
                current.append(",")
                skip_to = close + 1
                continue
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
            forbidding = False
        else:
            current.append(token)
            forbidding = forbidding or token in _EXAMPLE_LEADS
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


#: verbs outside the tables that open a purpose ("commit with `--no-verify` to save time")
_PURPOSE = frozenset(
    {"save", "avoid", "keep", "speed", "check", "see", "ensure", "verify", "confirm", "fix"}
    | {"help", "allow", "prevent", "reduce", "get", "bring", "catch", "trigger", "start"}
)


def _purpose(words: Sequence[str], at: int) -> bool:
    """Whether ``words[at]``, after "to", is a verb: "to" opens a purpose, not a target."""
    word = words[at]
    if word.startswith("`") or not _is_base(word):
        return False
    return word in _PURPOSE or _verb_class(words, at) is not None


def _next_verb(words: Sequence[str], at: int) -> bool:
    """Whether ``words[at]`` is a verb of the tables in its base form (a new verb phrase)."""
    if at >= len(words) or words[at].startswith("`") or not _is_base(words[at]):
        return False
    known = _verb_class(words, at)
    following = words[at + 1] if at + 1 < len(words) else ""
    return known is not None and (lemma(words[at]), lemma(following)) not in _COMPOUNDS


def _gerund(word: str) -> bool:
    return word.endswith("ing") and _verb_class((word,), 0) is not None


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
    #: named with "this" / "these" ("to this service", "in this package"): the place the
    #: context file itself applies to
    here: bool = False
    #: named with "their" / "its" after a direct object ("commit notebooks with their
    #: outputs"): a part of that object
    owned: bool = False


def _noun_phrases(words: Sequence[str]) -> list[tuple[str, _Phrase]]:
    """The noun phrases of ``words`` (the part after the verb), each with the preposition
    class that opens it ("" for the direct object); coordination ("X or Y") splits phrases."""
    phrases: list[tuple[str, _Phrase]] = []
    role = ""
    current: list[str] = []
    here = owned = False
    k = 0

    def close() -> None:
        nonlocal here, owned
        if current:
            phrases.append((role, _Phrase(current[-1], current[:-1], here, owned)))
        current.clear()
        here = owned = False

    while k < len(words):
        word = words[k]
        if word in _RELATIVE and current:
            break  # "code you just wrote": a relative clause ends the phrases read
        if word == "to" and k + 1 < len(words) and _purpose(words, k + 1):
            break  # "commit with `--no-verify` to save time": a purpose, not a target
        if word in ("and", "then") and (current or phrases) and _next_verb(words, k + 1):
            break  # "push your branch and open a PR": another action, not an object
        if current and word.endswith("ing") and words[k + 1 : k + 2] and words[k + 1] in _OPENS:
            break  # "a `NOTES.md` describing what changed": a participle's own clause
        if word == "not" and k > 0 and words[k - 1] == "," and (current or phrases):
            break  # "run the full suite, not only the tests you touched": what it is not
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
        if word == "included" and current:
            current.clear()  # "…, docs included": what the rule covers too, not a narrowing
            k += 1
            continue
        if word in _NEUTRAL or word == "not":
            here = here or (word in ("this", "these") and not current)
            owned = owned or (word in ("their", "its") and not current)
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
    #: the frame's modality when it is not the plain always/never of ``positive``
    modality: str = ""
    unasked: bool = False
    #: where the action's words end ("Leave committing to the human": before "to")
    stop: int | None = None
    #: the verb of a rule on a thing, when its words name none: "edit" for what is kept
    #: off-limits ("the schema is off-limits", "hands off `src/gen/`"), "add" for what is
    #: required ("docstrings are required")
    implied: str = ""
    #: a passive reading whose verb is in its base form ("Migrations are mine to run": the
    #: subject is what is not to be run)
    infinitive: bool = False


#: adjectives that allow what they describe ("it is fine to …", "X is OK")
_ALLOWED = (
    "allowed",
    "permitted",
    "ok",
    "okay",
    "fine",
    "acceptable",
    "welcome",
    "available",
    "enabled",
)
#: leads that give a modality other than a plain always/never, checked before them:
#: (words, modality, the verb after them is a gerund, says no approval is needed)
_MODAL_LEADS: tuple[tuple[tuple[str, ...], str, bool, bool], ...] = (
    (("feel", "free", "to"), PERMIT, False, True),
    (("are", "free", "to"), PERMIT, False, True),
    (("are", "welcome", "to"), PERMIT, False, True),
    (("go", "ahead", "and"), PERMIT, False, True),
    (("do", "not", "need", "to", "ask", "before"), PERMIT, True, True),
    (("do", "not", "need", "permission", "to"), PERMIT, False, True),
    (("do", "not", "need", "approval", "to"), PERMIT, False, True),
    (("no", "need", "to", "ask", "before"), PERMIT, True, True),
    (("are", "allowed", "to"), PERMIT, False, False),
    (("ok", "to"), PERMIT, False, False),
    (("okay", "to"), PERMIT, False, False),
    (("fine", "to"), PERMIT, False, False),
    (("allowed", "to"), PERMIT, False, False),
    (("are", "permitted", "to"), PERMIT, False, False),
    (("are", "not", "allowed", "to"), PROHIBIT, False, False),
    (("are", "not", "permitted", "to"), PROHIBIT, False, False),
    *((("it", "is", word, "to"), PERMIT, False, False) for word in _ALLOWED),
    *((("it", "is", "not", word, "to"), PROHIBIT, False, False) for word in _ALLOWED),
    *((("it", "is", word, "to"), PROHIBIT, False, False) for word in sorted(_FORBIDDEN)),
)
#: verbs that ask for approval before an action ("Ask the user before pushing", "Check with
#: the platform team before adding dependencies"), and how far their "before" may sit
_GATE_LEADS = frozenset(
    {"ask", "check", "confirm", "consult", "get", "seek", "obtain", "wait", "talk", "speak"}
)
_GATE_REACH = 6
#: words that name approval ("without sign-off", "requires explicit approval")
_APPROVAL = frozenset(
    {
        "approval",
        "approvals",
        "permission",
        "permissions",
        "sign-off",
        "signoff",
        "consent",
        "confirmation",
        "go-ahead",
        "asking",
        "review",
        "authorization",
        "authorisation",
    }
)
#: words between a gating word and the approval it names ("without explicit written approval")
_APPROVAL_FILLER = frozenset(
    {"a", "an", "the", "explicit", "prior", "written", "human", "maintainer", "their", "your"}
    | {"my", "our"}
)
#: participles after "unless" / "if" / "when" that make an action wait for a request
_REQUESTED = frozenset(
    {"asked", "told", "instructed", "requested", "approved", "authorized", "authorised", "prompted"}
)
#: who an action may be left to ("Leave committing to the human")
_PEOPLE = frozenset(
    {
        "human",
        "humans",
        "user",
        "users",
        "maintainer",
        "maintainers",
        "me",
        "us",
        "reviewer",
        "reviewers",
        "owner",
        "owners",
        "team",
        "people",
        "operator",
        "operators",
        "developer",
        "developers",
        "author",
        "authors",
        "dba",
        "dbas",
        "sre",
        "sres",
        "ops",
        "admin",
        "admins",
        "lead",
        "leads",
        "engineer",
        "engineers",
        "i",
        "someone",
        "somebody",
    }
)
#: subjects that make "may" / "can" a permission for the agent ("The agent may push")
_AGENT_SUBJECT = frozenset(
    {"the", "a", "an", "coding", "ai", "agent", "agents", "assistant", "claude", "codex", "pi"}
)
#: words after "may" / "can" that make no permission ("you may want to …")
_NOT_PERMISSION = frozenset({"be", "want", "need", "have", "see", "find", "notice"})


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
    (("under", "no", "circumstances", "should", "you"), False),
    (("under", "no", "circumstances", "may", "you"), False),
    (("under", "no", "circumstances"), False),
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
        if at >= len(words):
            break
        modal = _modal_lead(words, at)
        if modal is not None:
            return modal
        if words[at] not in _LEAD_FIRST:
            break
        if words[at] == "no" and at + 1 < len(words) and words[at + 1] in _NO_IDIOMS:
            return None  # "no need to run …", "no longer …"
        for lead in _REVERSED:
            if _starts(words, at, lead):  # "don't forget to run the tests" asks to run them
                after = at + len(lead)
                if lead[-1] == "skip" and not (after < len(words) and _gerund(words[after])):
                    return _Reading(False, after - 1)  # "don't skip the hooks" forbids a skip
                return _Reading(True, after)
        for negative, gerund in _NEGATIVE_LEADS:
            if _starts(words, at, negative):
                after = at + len(negative)
                while after < len(words) and words[after] in ("ever", "always"):
                    after += 1
                return _Reading(False, after, gerund=gerund)
        if words[at] in ("may", "can"):
            # "You may commit to feature branches", "you can push": a permission
            following = words[at + 1] if at + 1 < len(words) else ""
            if not following or following in _NOT_PERMISSION:
                return None
            return _Reading(True, at + 1, modality=PERMIT)
        marker = next((p for p in _POSITIVE_LEADS if _starts(words, at, p)), None)
        if marker is None:
            break
        positive = True
        at += len(marker)
    if positive:
        return _Reading(True, at)
    known = _verb_class(words, at) if at == start and at < len(words) else None
    if known is not None and _is_base(words[at]):
        following = words[at + 1] if at + 1 < len(words) else ""
        beyond = words[at + known[1]] if at + known[1] < len(words) else ""
        # "Force pushes are forbidden": a subject before its verb, not an imperative
        if (lemma(words[at]), lemma(following)) not in _COMPOUNDS and beyond not in _MODALS:
            return _Reading(True, at)
    return None


_MODAL_FIRST = frozenset(lead[0] for lead, _, _, _ in _MODAL_LEADS)


def _modal_lead(words: Sequence[str], at: int) -> _Reading | None:
    """A permission ("feel free to …", "it's fine to …"), a gate ("ask before …", "check with
    the team before …") or a hand-off ("leave committing to the human") at ``words[at]``."""
    first = words[at]
    if first in _MODAL_FIRST:
        for lead, modality, gerund, unasked in _MODAL_LEADS:
            if _starts(words, at, lead):
                positive = modality in (REQUIRE, PERMIT)
                return _Reading(positive, at + len(lead), gerund, False, modality, unasked)
    end = min(len(words), at + 1 + _GATE_REACH)
    if first in _GATE_LEADS:
        middle = list(words[at + 1 : end])
        if "before" not in middle:
            return None
        between = middle[: middle.index("before")]
        if first in ("check", "confirm") and between[:1] != ["with"]:
            return None  # "check the logs before pushing" asks to check, not for approval
        if first in ("talk", "speak") and between[:1] not in (["to"], ["with"]):
            return None  # "talk to the platform team before adding a dependency"
        if first in ("get", "seek", "obtain", "wait") and not any(w in _APPROVAL for w in between):
            return None
        return _Reading(False, at + 2 + len(between), gerund=True, modality=GATED)
    if first == "hands" and words[at + 1 : at + 2] == ["off"]:
        # "Hands off the schema": keep off it (a verb after it names the action)
        return _Reading(False, at + 2, gerund=True, modality=PROHIBIT, implied="edit")
    if words[at : at + 4] in (["keep", "your", "hands", "off"], ["keep", "hands", "off"]):
        return _Reading(False, at + len(words[at : at + 4]), True, False, PROHIBIT, implied="edit")
    if first == "leave":
        for j in range(at + 2, end):
            if words[j] != "to":
                continue
            after = words[j + 1 : j + 4]
            if words[at + 1].endswith("ing") or any(w.removesuffix("'s") in _PEOPLE for w in after):
                return _Reading(False, at + 1, gerund=True, modality=PROHIBIT, stop=j)
            return None
    return None


_MODALS = frozenset(
    {"must", "should", "shall", "may", "can", "are", "is", "need", "needs", "require", "requires"}
)
_REQUIRED = frozenset({"required", "mandatory"})
#: subjects that name something said before ("It must never push, open or edit a PR")
_PRONOUNS = frozenset({"it", "they", "he", "she", "this", "that", "which"})
_PERMITTED = frozenset(_ALLOWED) | _REQUIRED
#: participles of "X must be approved": the action waits for someone's approval
_APPROVED = frozenset({"approved", "reviewed", "signed", "discussed", "cleared"})
#: how far into a clause its modal may sit ("Generated files in `src/gen` must not …")
_SUBJECT_WORDS = 8


def _subject_form(words: Sequence[str]) -> tuple[_Reading, list[str]] | None:
    """The reading of "X must not be edited", "X is forbidden", "Tests should mock the DB",
    "Adding a package requires sign-off", "The agent may push", and the subject's words."""
    if words and words[0] in ("no", "nobody", "none", "nothing", "neither", "nor"):
        return None  # "No one should …", "No need to …": not read
    for k in range(1, min(len(words), _SUBJECT_WORDS + 1)):
        word = words[k]
        if word in ("not", "never", "always", ","):
            return None
        if word not in _MODALS:
            continue
        subject = list(words[:k])
        if len(subject) == 1 and subject[0] in _PRONOUNS:
            return None  # "It must never push": a rule for what "it" names, not the agent
        rest = k + 1
        negative = False
        if rest < len(words) and words[rest] in ("not", "never"):
            negative = True
            rest += 1
        while rest < len(words) and words[rest] == "only":
            rest += 1  # "X is only allowed with approval": the approval is read elsewhere
        following = words[rest] if rest < len(words) else ""
        agent = all(w in _AGENT_SUBJECT for w in subject)
        if word in ("is", "are"):
            return _state(words, subject, rest, negative, agent)
        if word in ("requires", "require", "needs", "need") and not negative:
            at = rest
            while at < len(words) and at - rest < 3 and words[at] in _APPROVAL_FILLER:
                at += 1
            if at < len(words) and words[at] in _APPROVAL:
                # "Adding a package requires sign-off from the platform team"
                return _Reading(False, 0, gerund=True, modality=GATED), subject
        if word in ("may", "can") and not negative:
            if not agent or not following or following in _NOT_PERMISSION:
                return None
            return _Reading(True, rest, modality=PERMIT), subject
        if word in ("need", "needs"):
            if following != "to":
                return None
            rest += 1
        if word in ("requires", "require"):
            return None
        while rest < len(words) and words[rest] in ("always", "ever", "only"):
            rest += 1
        if rest < len(words) and words[rest] == "be":
            if not negative and rest + 1 < len(words) and words[rest + 1] in _APPROVED:
                # "Dependency changes must be approved by the platform team"
                return _Reading(False, 0, gerund=True, modality=GATED), subject
            return _Reading(not negative, rest + 1, passive=True), subject
        return _Reading(not negative, rest), subject
    return None


#: nouns of "X is the human's job"
_DUTIES = frozenset({"job", "responsibility", "task", "call", "decision", "domain"})


def _someone_elses(words: Sequence[str], at: int) -> bool:
    """Whether ``words[at:]`` says an action belongs to someone else ("the human's job", "up
    to the maintainers", "the maintainers' call")."""
    piece = [w for w in words[at : at + 4] if w not in ("the", "a", "an")]
    if piece[:2] == ["up", "to"]:
        return len(piece) > 2 and piece[2] in _PEOPLE
    if len(piece) < 2 or piece[1] not in _DUTIES:
        return False
    owner = piece[0].removesuffix("'s")
    return owner in _PEOPLE


#: possessive pronouns of someone other than the agent ("mine to run", "ours to decide")
_OWNERS = frozenset({"mine", "ours", "theirs"})


def _owned(word: str) -> bool:
    """Whether ``word`` names an owner other than the agent: "mine", "ours", "the human's",
    "the maintainers'"."""
    if word in _OWNERS:
        return True
    owner = word.removesuffix("'s").removesuffix("'")
    return owner != word and owner in _PEOPLE


def _state(
    words: Sequence[str], subject: list[str], rest: int, negative: bool, agent: bool
) -> tuple[_Reading, list[str]] | None:
    """The reading of "X is forbidden / off-limits / fine / required", of "the agent is
    allowed to push", and of their negations."""
    following = words[rest] if rest < len(words) else ""
    tail = rest + 1
    if following == "off" and rest + 1 < len(words) and words[rest + 1] == "limits":
        following, tail = "off-limits", rest + 2
    # the words after the state say where it holds ("Network access is disabled in CI",
    # "Pushing is off-limits on Fridays"): read with the action's own words
    action = subject + list(words[tail:])
    if not negative and _someone_elses(words, rest):
        # "Committing is the human's job", "Merging is up to the maintainers"
        return _Reading(False, 0, gerund=True, modality=PROHIBIT), subject
    duty = words[rest + 1] if rest + 1 < len(words) else ""
    owner = rest + 1 if following == "the" else rest
    if not negative and words[owner + 1 : owner + 2] == ["to"] and _owned(words[owner]):
        # "Database migrations are mine to run", "Releases are the maintainers' to cut": the
        # subject is not for the agent to act on
        return _Reading(False, owner + 2, passive=True, infinitive=True), subject
    if negative and words[rest : rest + 1] == ["your"] and duty in _DUTIES:
        # "Running migrations is not your job"
        return _Reading(False, 0, gerund=True, modality=PROHIBIT), subject
    if following == "read-only" and not negative:
        # "`src/gen/` is read-only": editing it is forbidden
        return _Reading(False, 0, gerund=True, modality=PROHIBIT, implied="edit"), action
    if following in _FORBIDDEN:
        modality = REQUIRE if negative else PROHIBIT
        # "the schema is off-limits" keeps a thing from being edited; "`any` is forbidden"
        # bans its use, which no verb here names
        implied = "edit" if following == "off-limits" and not negative else ""
        return _Reading(negative, 0, True, False, modality, implied=implied), action
    if following not in _PERMITTED:
        return None
    if rest + 1 < len(words) and words[rest + 1] == "to":
        if not agent:
            return None
        # "the agent is allowed to push", "you are not permitted to run migrations"
        modality = PROHIBIT if negative else REQUIRE if following in _REQUIRED else PERMIT
        return _Reading(not negative, rest + 2, modality=modality), subject
    if negative:
        return _Reading(False, 0, gerund=True, modality=PROHIBIT), action
    if following in _REQUIRED:
        # "Docstrings are required": writing them is asked for
        return _Reading(True, 0, gerund=True, modality=REQUIRE, implied="add"), action
    return _Reading(True, 0, gerund=True, modality=PERMIT), action


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
        if word in ("unless", "if", "when", "whenever", "except", "until", "once", "while"):
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
        if word in (",", "but") and k + 1 < len(words) and words[k + 1] in _NEW_CLAUSE and closed:
            pieces.append([])  # "…, always open a PR instead", "commit freely but never push"
            continue
        if word == "," and piece[:1] == ["no"] and words[k + 1 : k + 2] == ["no"]:
            pieces.append([])  # "no `curl`, no calls to the staging API": one rule each
            continue
        if word == "and" and piece and _marked(words, k + 1):
            pieces.append([])  # "don't create migration files and don't run `db:migrate`"
            continue
        piece.append(word)
    return pieces


def _marked(words: Sequence[str], at: int) -> bool:
    """Whether an always/never marker opens ``words[at:]`` ("and never …", "and don't …")."""
    following = words[at : at + 2]
    return following[:1] in (["never"], ["always"], ["must"]) or following == ["do", "not"]


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


def _clause_frames(words: list[str], antecedent: _Phrase | None = None) -> list[Frame]:
    frames: list[Frame] = []
    for piece in _comma_clauses(words):
        start = 0
        while start < len(piece) and piece[start] in (",", "and", "then"):
            start += 1
        if start < len(piece) and _freely(piece, start):
            # "run `git reset --hard`, no need to ask": what the clause asked for or allowed
            # before needs no approval
            frames = [_unasked(f) for f in frames]
        kept, gate = _gating(piece[start:])
        main, outer, conditional = _condition(kept)
        pre = conditional and _precondition(outer)
        made = [
            _gated(frame, gate)
            for frame in _main_frames(main, outer, conditional, antecedent=antecedent)
        ]
        made += _command_does(made, kept)
        frames += [replace(frame, precondition=True) if pre else frame for frame in made]
    return frames


def _command_does(made: list[Frame], words: list[str]) -> list[Frame]:
    """What a command asked for or allowed does, said in a "which" clause after it ("run `npm
    run test:live`, which calls the staging API"): the agent does it by running the command,
    with the same modality."""
    runs = [f for f in made if f.positive and f.verb == "run" and f.object.startswith("`")]
    if not runs or "which" not in words:
        return []
    at = words.index("which") + 1
    before = at - 3 if at >= 3 and words[at - 2] == "," else at - 2
    if before < 0 or not words[before].startswith("`"):
        return []  # "run `git log` to see which commits …": no relative clause of the command
    verb = words[at] if at < len(words) else ""
    base = next(
        (v for v in (verb[:-2], verb[:-1]) if verb.endswith("s") and _verb_class((v,), 0)), ""
    )
    if not base or verb.endswith("ss"):
        return []
    mode_of = runs[0]
    done = _main_frames([base, *words[at + 1 :]], [], mode_of.conditional)
    return [
        replace(f, positive=True, modality=mode_of.modality, unasked=mode_of.unasked)
        for f in done
        if f.positive
    ]


#: words of a condition that make it more than a precondition of the action: a place ("when
#: working in `docs/`", "for the docs site"), a request or an approval ("if the user asks")
_NOT_PRECONDITION = frozenset(
    {"in", "inside", "within", "under", "for", "on", "across", "at", "during", "outside"}
    | {"ask", "asks", "asked", "request", "requests", "requested", "tell", "tells", "told"}
    | {"say", "says", "said", "want", "wants", "instruct", "instructs", "instructed"}
    | {"approve", "approves", "approved", "prompt", "prompted", "agree", "agrees", "agreed"}
    | {"okay", "ok", "otherwise", "explicitly", "permitted", "allowed"}
)
#: gerunds that open a condition naming a kind of work, a scope of its own ("while editing
#: Makefiles", "when you are writing tests"; not "when it saves you writing code")
_WORK = frozenset({"working", "editing", "writing", "touching"})


def _precondition(words: Sequence[str]) -> bool:
    """Whether a condition's ``words`` only say when the action is due ("once `pnpm check`
    passes", "if the schema changes", "when it saves real work"), not where it applies nor
    that someone must ask for it: no place word, no path, no request, no approval."""
    condition: list[str] = []
    for word in words:
        if word == ",":
            break  # "when it saves work, just pin it in the Gemfile": the condition ended
        condition.append(word)
        if word in _NOT_PRECONDITION or word in _APPROVAL or word in _REQUEST_VERBS:
            return False
        if word.startswith("`") and ("/" in word or _FILE_NAME.search(word) is not None):
            return False
    opening = [w for w in condition[:3] if w not in ("you", "are", "we")][:1]
    if opening and opening[0] in _WORK:
        return False
    # "once the Python build passes": a language is a scope of its own
    return bool(condition) and not heading_languages(" ".join(condition))


def is_precondition(condition: str) -> bool:
    """Whether the text of a condition ("when a feature needs a new column") only says when
    an action is due (:func:`_precondition`), not where it applies or who asks for it."""
    return _precondition(condition.lower().split())


#: a file name's extension at the end of a code span ("`setup.cfg`", "`src/app.ts`")
_FILE_NAME = re.compile(r"\.[a-z][a-z0-9]{0,7}+`$")


#: words that open an approval phrase: "without" says none is needed, the others that one is
_GATE_OPENERS = frozenset({"without", "with", "after", "unless", "if", "when", "until", "once"})
#: words between "unless" / "if" / "when" and the request it waits for ("unless the user
#: explicitly asks")
_REQUEST_FILLER = frozenset(
    {"explicitly", "specifically", "you", "are", "were", "the", "a", "user", "maintainer"}
)
_REQUEST_VERBS = frozenset(
    {"asks", "requests", "approves", "says", "tells", "confirms", "wants"}
    | {"ask", "request", "approve", "say", "tell", "confirm", "want"}
)
#: words an approval phrase may span after its opener
_GATE_SPAN = 4


def _gating(words: list[str]) -> tuple[list[str], str]:
    """``words`` without their approval phrases ("without sign-off from the platform team",
    "only with explicit approval", "unless asked"), and what those say: "gate" (the action
    needs approval), "request" (it waits for someone to ask for it: "unless asked", "once I
    ask"), "unasked" (it needs none), "chosen" (the agent picks what it needs: "whatever
    packages you need"; never a gate on a prohibition) or ""."""
    out: list[str] = []
    gate = ""
    k = 0
    while k < len(words):
        word = words[k]
        if word == "on" and words[k + 2 : k + 3] == ["own"] and words[k + 1] in _POSSESSIVES:
            k += 3  # "never commit on your own": who acts, not where
            continue
        free = _freely(words, k)
        if free:
            # "install them freely", "push whenever you like", "no need to ask"
            gate = gate or "unasked"
            k += free
            continue
        chosen = _chosen(words, k)
        if chosen:
            # "add whatever packages you need": allowed, never a gate on a prohibition
            gate = gate or "chosen"
            k += chosen
            continue
        if word not in _GATE_OPENERS:
            out.append(word)
            k += 1
            continue
        asked = _asked_after(words, k) if word in ("after", "once") else 0
        if asked:
            # "add dependencies after the user asks", "once I ask you to": on request
            gate = gate if gate == "gate" else "request"
            k += asked
            continue
        request = word in ("unless", "if", "when", "until")
        filler = _REQUEST_FILLER | _PEOPLE if request else _APPROVAL_FILLER
        j = k + 1
        while (
            j < len(words) and j - k <= _GATE_SPAN and (words[j] in filler or words[j] == "being")
        ):
            j += 1
        target = words[j] if j < len(words) else ""
        if (
            word == "without"
            and target in _CONSULTING
            and words[j + 1 : j + 2] in (["with"], ["to"])
        ):
            target = "asking"  # "without checking with me first"
            j += 1
            while j + 1 < len(words) and (words[j + 1] in _PEOPLE or words[j + 1] in filler):
                j += 1
        named = target in _APPROVAL or (
            request and (target in _REQUESTED or target in _REQUEST_VERBS)
        )
        if request and named and not _ends_request(words, j + 1):
            named = False  # "unless a user asks to run the full suite": a request for more
        # "if asked", "until I approve", "when the user asks": a request by someone named
        personal = j > k + 1 and words[j - 1] in _PEOPLE
        if not named or (
            word in ("if", "when", "until") and target not in _REQUESTED and not personal
        ):
            out.append(word)
            k += 1
            continue
        if word == "without" and gate != "gate":
            gate = "unasked"
        elif request and target not in _APPROVING | _APPROVAL and gate != "gate":
            gate = "request"  # "unless asked", "only when I ask": not the agent's to start
        else:
            gate = "gate"
        if word != "without" and out[-1:] == ["only"]:
            out.pop()  # "only with approval"
        j += 1
        while j < len(words) and words[j] in ("to", "first", "so", "it"):
            j += 1
        if j + 1 < len(words) and words[j] == "for":
            # "without asking for (explicit) approval"
            end = j + 1
            while end < len(words) and end - j <= 3 and words[end] in _APPROVAL_FILLER:
                end += 1
            if end < len(words) and words[end] in _APPROVAL:
                j = end + 1
        if j < len(words) and words[j] in ("from", "by", "of"):
            # "sign-off from the platform team": who approves does not narrow the action
            while j < len(words) and words[j] != ",":
                j += 1
        k = j
    return out, gate


#: verbs of "without checking with …": the action waits for the one consulted
_CONSULTING = frozenset({"checking", "consulting", "talking", "confirming"})
#: what "unless …" / "until …" may name that is approval, not a request for the action
_APPROVING = frozenset(
    {"approved", "authorized", "authorised", "approves", "approve", "confirms", "confirm"}
)
#: what follows "whenever you …" / "as often as you …" when it says no one need be asked
_WISHES = frozenset({"want", "like", "wish", "need", "see"})
#: words before "… you need" that leave the choice to the agent ("whatever packages you need")
_CHOSEN = frozenset({"whatever", "whichever", "any"})


def _asked_after(words: list[str], at: int) -> int:
    """How many words at ``words[at]`` ("after" / "once") say the action waits for someone's
    request ("after the user asks", "once asked", "once I ask you to"), or 0."""
    j = at + 1
    while j < len(words) and j - at <= _GATE_SPAN and words[j] in _REQUEST_FILLER | _PEOPLE:
        j += 1
    target = words[j] if j < len(words) else ""
    personal = j > at + 1 and words[j - 1] in _PEOPLE
    if target in _APPROVING or not (
        target in _REQUESTED or (personal and target in _REQUEST_VERBS)
    ):
        return 0
    if not _ends_request(words, j + 1):
        return 0
    end = j + 1
    while end < len(words) and end - j <= 3 and words[end] in ("you", "me", "to", "do", "so"):
        end += 1
    return end - at


def _ends_request(words: list[str], at: int) -> bool:
    """Whether a request ("unless asked", "if the user asks") ends at ``words[at]``: the
    clause ends, or only "to do so" / "by the user" / "for it" / "first" follows (not "asks to
    run the full suite", not "when the requested work is done")."""
    if words[at : at + 1] in (["you"], ["me"]):
        at += 1  # "when I ask you to"
    rest = words[at : at + 3]
    if not rest or rest[0] in (",", "first", "explicitly", "otherwise"):
        return True
    if rest[0] == "to":
        return rest[1:] in ([], ["do", "so"], ["do"])
    return rest[0] in ("by", "for") or rest == ["so"]


_POSSESSIVES = frozenset({"your", "its", "their", "my", "our"})


def _freely(words: list[str], at: int) -> int:
    """How many words at ``words[at]`` say an action needs no one's approval ("freely",
    "whenever you like", "as often as you want", "no need to ask"), or 0."""
    word = words[at]
    if word == "freely":
        return 1
    if word == "whenever" and words[at + 1 : at + 2] == ["you"]:
        return 3 if words[at + 2 : at + 3] and words[at + 2] in _WISHES else 0
    if word == "as" and words[at : at + 4] == ["as", "often", "as", "you"]:
        return 5 if words[at + 4 : at + 5] and words[at + 4] in _WISHES else 0
    lead = 0
    if words[at : at + 3] == ["no", "need", "to"] and words[at + 3 : at + 4] in _ASK_WORDS:
        lead = 4
    elif word == "no":
        # "no sign-off required", "no approval is needed"
        end = at + 1
        while end < len(words) and end - at < 4 and words[end] in _APPROVAL_FILLER:
            end += 1
        if end < len(words) and words[end] in _APPROVAL and words[end] != "asking":
            end += 1 + (words[end + 1 : end + 2] == ["is"])
            if words[end : end + 1] and words[end] in _NEEDED:
                lead = end + 1 - at
    elif words[at : at + 3] == ["do", "not", "bother"]:
        # "don't bother asking", "do not bother to ask first"
        if words[at + 3 : at + 4] in _ASKING_WORDS:
            lead = 4
        elif words[at + 3 : at + 4] == ["to"] and words[at + 4 : at + 5] in _ASK_WORDS:
            lead = 5
    if lead:
        end = at + lead
        while end < len(words) and end - at < 8 and words[end] in _ASKED_TAIL:
            end += 1
        return end - at
    return 0


#: what "no sign-off …" ends on when it says none is needed
_NEEDED = frozenset({"required", "needed", "necessary"})


def _chosen(words: list[str], at: int) -> int:
    """How many words at ``words[at]`` leave an action to the agent's own choice ("whatever
    packages you need", "any library you want", "as you see fit"), or 0."""
    word = words[at]
    wish = at + 2 if words[at : at + 2] == ["as", "you"] else at + 1 if word == "you" else 0
    chosen = word == "as" or any(w in _CHOSEN for w in words[max(0, at - 4) : at])
    if not (wish and chosen and words[wish : wish + 1] and words[wish] in _WISHES):
        return 0
    end = wish + 1
    while end < len(words) and end - wish <= 2 and words[end] in ("them", "it", "fit"):
        end += 1
    return end - at


_ASK_WORDS = (["ask"], ["check"], ["wait"])
_ASKING_WORDS = (["asking"], ["checking"], ["waiting"])


#: words after "no need to ask" that still belong to it ("first", "for approval")
_ASKED_TAIL = frozenset({"first", "for", "anyone", "anybody"}) | _APPROVAL


def _unasked(frame: Frame) -> Frame:
    """``frame`` said to need no approval, when it asks for or allows its action."""
    return replace(frame, unasked=True) if frame.modality in (REQUIRE, PERMIT) else frame


def _gated(frame: Frame, gate: str) -> Frame:
    """``frame`` under what its clause says of approval (:func:`_gating`)."""
    if gate in ("gate", "request") or (gate == "unasked" and frame.modality == PROHIBIT):
        # "never push without approval", "push only with approval": allowed once approved
        requested = gate == "request"
        return replace(frame, positive=False, modality=GATED, unasked=False, requested=requested)
    if gate in ("unasked", "chosen") and frame.modality in (REQUIRE, PERMIT):
        return replace(frame, unasked=True)
    return frame


#: verb phrases read from one clause joined by "and" / "then" ("generate the migration and
#: run it")
_MAX_PHRASES = 3


def _main_frames(
    words: list[str],
    outer: list[str],
    conditional: bool,
    depth: int = 0,
    antecedent: _Phrase | None = None,
) -> list[Frame]:
    if not words:
        return []
    stated = _access_statement(words, outer, conditional) or _versioned_statement(
        words, outer, conditional
    )
    if stated:
        return stated
    reading = _lead(words, 0)
    subject: list[str] = []
    if reading is None:
        found = _subject_form(words)
        if found is None:
            return []
        reading, subject = found
    nominal = reading.gerund and reading.verb_at == 0
    rest = subject if nominal else words[reading.verb_at : reading.stop]
    if nominal:
        subject = []
    qualifiers = list(outer)
    mode = (reading.positive, reading.modality, reading.unasked)
    scope = frozenset(_canonical(outer)) if outer and not conditional else frozenset()
    k = 0
    while k < len(rest) and rest[k] in _ADVERBS:
        qualifiers.append(rest[k])
        k += 1
    #: the words a deverbal noun is read past ("network" in "network access is allowed")
    compound: list[str] = []
    if reading.gerund:
        # "avoid mocking …", "no direct commits to main", "force pushes are forbidden"
        reach = k + _GERUND_REACH
        first = k
        while k < len(rest) and k < reach and not _deverbal(rest, k):
            compound.append(rest[k])
            k += 1
        if k >= len(rest) or not _deverbal(rest, k):
            # "No new dependencies": a noun that stands for its action
            implied = reading.implied
            return _implied_frames(mode, rest[first:], qualifiers, conditional, scope, implied)
        qualifiers += compound
    if k >= len(rest):
        return []
    verb_word = rest[k]
    if reading.passive and reading.infinitive:
        if not _is_base(verb_word):
            return []
    elif reading.passive:
        if not (verb_word.endswith(("ed", "en")) or verb_word in _PAST):
            return []
    elif not reading.gerund and not _is_base(verb_word):
        return []
    if verb_word in _NOT_VERBS or verb_word in _PREPOSITIONS or verb_word in _NEUTRAL:
        return []
    if verb_word.startswith("`") and not reading.passive:
        return _command_verb_frames(mode, verb_word, rest[k + 1 :], qualifiers, conditional, scope)
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
    more: list[Frame] = []
    cut = _next_phrase(after) if reading.positive and depth < _MAX_PHRASES else None
    if cut is not None:
        # "generate the migration and run `db:migrate`": the second verb phrase is asked for
        # (or allowed) as the first one is
        tail = _main_frames(after[cut:], outer, conditional, depth + 1, antecedent)
        more = [replace(f, modality=reading.modality or f.modality) for f in tail]
        more = [replace(f, unasked=reading.unasked) if reading.unasked else f for f in more]
        after = after[: cut - 1]
    if reading.passive:
        head, modifiers = _head(subject)
        if not head:
            return []
        phrases = [("", _Phrase(head, modifiers)), *_noun_phrases(after)]
    else:
        phrases = _noun_phrases(after)
        if antecedent is not None and after[:1] in (["them"], ["it"]):
            phrases.insert(0, ("", antecedent))  # "These hooks are required: don't skip them"
        qualifiers += subject
        named = _compound_object(compound)
        if named is not None and not any(r == "" for r, _ in phrases):
            # "network access is allowed", "dependency upgrades are off-limits": the noun
            # before the deverbal one is its object
            phrases.insert(0, ("", named))
            qualifiers = qualifiers[: len(qualifiers) - len(compound)]
    quals = [q for q in _canonical(qualifiers) if q not in _dropped()]
    return [
        frame
        for verb in list(dict.fromkeys(verbs))[:_MAX_EACH]
        for frame in _frames(mode, verb, phrases, quals, conditional, scope)
    ] + more


def _command_verb_frames(
    mode: tuple[bool, str, bool],
    code: str,
    after: list[str],
    qualifiers: list[str],
    conditional: bool,
    scope: frozenset[str],
) -> list[Frame]:
    """The frames of a command used as the verb of its argument ("`pnpm add` it", "`cargo
    add` the crate"): running the command on it, when that names an agent action
    (:data:`_COMMANDS`)."""
    if not after or after[0] in _PREPOSITIONS or not after[0][0].isalpha():
        return []
    argument = f"{code[:-1]} {after[0]}`"
    if _command("run", argument) is None:
        return []
    phrases = [("", _Phrase(argument, [])), *_noun_phrases(after[1:])]
    quals = [q for q in _canonical(qualifiers) if q not in _dropped()]
    return _frames(mode, "run", phrases, quals, conditional, scope)


#: verbs of "work offline", "stay offline": the agent is to reach no network
_OFFLINE_VERBS = frozenset({"work", "stay", "remain", "operate", "are", "be", "run"})
#: words of "you have (full) network access" before "access"
_ACCESS_FILLER = frozenset({"full", "unrestricted", "open", "complete", "direct", "any"})


def _access_statement(words: list[str], outer: list[str], conditional: bool) -> list[Frame]:
    """The frames of what the agent is told it can reach: "You have network access" and
    "you have access to the internet" allow it, "you have no internet access" and "you don't
    have network access" forbid it, "work offline" and "you are offline" forbid reaching the
    network."""
    k = 0
    while k < len(words) and words[k] in ("please", "always", "you", "we"):
        k += 1
    agent = k > 0 and words[k - 1] in ("you", "we")
    if words[k : k + 1] and words[k] in _OFFLINE_VERBS and words[k + 1 : k + 2] == ["offline"]:
        if words[k] in ("are", "be") and not agent:
            return []  # "the docs are offline": not the agent
        mode = (False, PROHIBIT, False)
        return _frames(mode, "access", [("", _Phrase("network", []))], [], conditional)
    if not agent:
        return []
    negative = False
    if words[k : k + 2] == ["do", "not"]:
        negative, k = True, k + 2
    if words[k : k + 1] not in (["have"], ["has"]):
        return []
    k += 1
    if words[k : k + 1] == ["no"]:
        negative, k = True, k + 1
    start = k
    while k < len(words) and k - start < 3 and words[k] != "access":
        k += 1
    if words[k : k + 1] != ["access"]:
        return []
    named = [w for w in words[start:k] if w not in _ACCESS_FILLER]
    phrases = _noun_phrases(named) if named else []
    if words[k + 1 : k + 2] == ["to"]:
        phrases = [(r if r != "to" else "", p) for r, p in _noun_phrases(words[k + 1 :])]
    if not phrases:
        return []
    mode = (False, PROHIBIT, False) if negative else (True, PERMIT, False)
    quals = [q for q in _canonical(outer) if q not in _dropped()]
    return _frames(mode, "access", phrases[:1], quals, conditional)


#: verbs of "X never goes into git", "X must not end up in the repo": X is committed
_ENTERING = frozenset({"go", "goes", "get", "gets", "end", "ends", "land", "lands", "make"})
#: what X goes into when it is committed
_VERSIONED = frozenset({"git", "repo", "repository", "vcs", "history"})
_VCS, _SCM = ["version", "control"], ["source", "control"]


def _versioned_statement(words: list[str], outer: list[str], conditional: bool) -> list[Frame]:
    """The frames of what is said to go, or never to go, into version control ("outputs
    never go into git", "secrets must not end up in the repo"): committing it."""
    k = 1
    while k < len(words) and k <= _SUBJECT_WORDS and words[k] not in _ENTERING:
        if words[k] in _MODALS or words[k] in ("never", "not", "always"):
            break
        k += 1
    subject = words[:k]
    markers: list[str] = []
    while k < len(words) and words[k] in _MODALS | {"never", "not", "always", "ever"}:
        markers.append(words[k])
        k += 1
    if not (subject and words[k : k + 1] and words[k] in _ENTERING):
        return []
    k += 1
    if words[k : k + 1] in (["up"], ["it"]):
        k += 1  # "end up in git", "make it into the repo"
    if words[k : k + 1] not in (["into"], ["in"], ["to"]):
        return []
    k += 1
    while k < len(words) and words[k] in ("the", "our", "your", "this"):
        k += 1
    place = words[k : k + 2]
    if not ((place[:1] and place[0] in _VERSIONED) or place in (_VCS, _SCM)):
        return []
    negative = "never" in markers or "not" in markers
    if not negative and not set(markers) & {"must", "should", "always"}:
        return []  # "outputs go into git": a description
    head, modifiers = _head(subject)
    if not head or head in _NEUTRAL:
        return []
    mode = (False, PROHIBIT, False) if negative else (True, REQUIRE, False)
    quals = [q for q in _canonical(outer) if q not in _dropped()]
    return _frames(mode, "commit", [("", _Phrase(head, modifiers))], quals, conditional)


def _next_phrase(words: Sequence[str]) -> int | None:
    """Where a second verb phrase starts in the words after a verb ("the migration and run
    it", "your branch, then open a PR"), as :func:`_noun_phrases` ends the first one."""
    for k, word in enumerate(words):
        if k and word in _RELATIVE:
            return None
        if word == "to" and k + 1 < len(words) and _purpose(words, k + 1):
            return None
        if k and word in ("and", "then") and _next_verb(words, k + 1):
            return k + 1
    return None


def _deverbal(words: Sequence[str], at: int) -> bool:
    """Whether ``words[at]`` is a verb of the tables as a gerund or a noun ("pushing",
    "commits"), not a participle that modifies a noun ("generated files")."""
    word = words[at]
    participle = word.endswith("ed") and word not in _ED_BASE
    return not participle and _verb_class(words, at) is not None


def _compound_object(words: list[str]) -> _Phrase | None:
    """The object named by the nouns before a deverbal noun, when it is one of the tables'
    classes ("network" access, "dependency" upgrades, "lockfile" changes)."""
    phrases = _noun_phrases(words)
    if not phrases or phrases[-1][0] != "":
        return None
    phrase = phrases[-1][1]
    return phrase if phrase.head in _NOUN_CLASSES else None


def _implied_frames(
    mode: tuple[bool, str, bool],
    words: list[str],
    qualifiers: list[str],
    conditional: bool,
    scope: frozenset[str],
    implied: str = "",
) -> list[Frame]:
    """Frames of a noun that stands for its action ("No new dependencies", "No network
    access without approval"): :data:`_IMPLIED`; else, with ``implied``, of that verb on the
    noun ("the schema is off-limits": editing it)."""
    phrases = _noun_phrases(words)
    if not phrases or phrases[0][0] != "":
        return []
    head = phrases[0][1].head
    if head.startswith("`") and _command("run", head) is not None:
        verb = "run"  # "`git push --force` is off-limits"
    elif head in _IMPLIED:
        verb = _IMPLIED[head]
    elif implied and head and head not in _NEUTRAL:
        verb = implied
    else:
        return []
    quals = [q for q in _canonical(qualifiers) if q not in _dropped()]
    return _frames(mode, verb, phrases, quals, conditional, scope)


#: words at the verb's place that make no action frame
_NOT_VERBS = frozenset(
    {"need", "have", "be", "get", "do", "let", "go", "not", "no", "and", "or", "a", "the"}
)
#: qualifier words that do not narrow a rule
_DROPPED_WORDS = (
    "directly",
    "direct",
    "straight",
    "ever",
    "just",
    "also",
    "really",
    "simply",
    "here",  # where the file applies, said again
    "together",
)


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
    mode: tuple[bool, str, bool],
    verb: str,
    phrases: list[tuple[str, _Phrase]],
    qualifiers: Iterable[str],
    conditional: bool,
    scope: frozenset[str] = frozenset(),
) -> list[Frame]:
    positive, modality, unasked = mode
    via = ""
    # "don't force-push, including `--force-with-lease`": what the rule names besides its
    # object, a frame of its own, never a narrowing
    included = [p for r, p in phrases if r == "incl"]
    phrases = [(r, p) for r, p in phrases if r != "incl"]
    quals = set(qualifiers)
    places = set(scope)
    if verb == "add" and phrases and phrases[0][0] == "" and phrases[0][1].head == "comment":
        # "add comments to generated code" reads as "comment generated code"
        verb = "comment"
        phrases = [("", p) if k == 0 else (r, p) for k, (r, p) in enumerate(phrases[1:])]
    objects: list[_Phrase] = []
    others: list[tuple[str, _Phrase]] = []
    network = [p for r, p in phrases if r != "" and p.head == "network"]
    online = [p for r, p in phrases if r == "adv" and p.head == lemma("online")]
    if verb == "download":
        # "download the dataset from S3": what is reached is the network, whatever comes
        verb, online = "access", online or [_Phrase("", [])]
    if verb == "access" and online and not network:
        # "look up the docs online": what is reached is the network
        network = [_Phrase("network", [])]
        phrases = [("from", network[0]), *((r, p) for r, p in phrases if p is not online[0])]
    if verb == "access" and network:
        # "download packages from the internet": what is reached is the network; "calls to
        # the staging API or any other service": each thing called too
        called = [p for r, p in phrases if r == "to" and p is not network[0]]
        called = called if any(r == "to" and p is network[0] for r, p in phrases) else []
        objects = network[:1] + called
        others = [(r, p) for r, p in phrases if all(p is not o for o in objects)]
    elif verb in _LANDING:
        targets = [p for r, p in phrases if r in ("to", "on")]
        if targets:
            # "push your commits to main" lands on main: the payload does not narrow it
            via, verb = verb, "land"
            objects = targets[:1]
            others = [(r, p) for r, p in phrases if p is not targets[0] and p.head not in _PAYLOAD]
    if not objects:
        direct = [p for r, p in phrases if r == ""]
        if verb == "create" and [p.head for p in direct] == [lemma("commit")]:
            verb, direct = "commit", []  # "create a commit", "make a commit"
        if verb in _OBJECTLESS:
            # "push your changes", "commit your work": the payload does not narrow it
            direct = [p for p in direct if p.modifiers or p.head not in _payloads()]
        first = phrases[0] if phrases else None
        if direct:
            # coordinated direct objects ("edit X or Y") make one frame each
            objects = direct
            others = [(r, p) for r, p in phrases if r != ""]
            if verb in _CARRYING:
                # "commit notebooks with their outputs": the outputs are committed too
                objects += [p for r, p in others if r == "with" and p.owned]
        elif first and (
            first[0] in ("to", "on")
            or (first[0] in ("with", "in") and verb not in _OBJECTLESS)
            or (first[0] == "from" and verb == "access")
            or (first[0] == "with" and first[1].head.startswith("`"))
        ):
            # "write to the cache", "fetch from the internet", "commit with `--no-verify`"
            objects = [first[1]]
            others = phrases[1:]
        elif verb in _OBJECTLESS:
            # "Do not push", "Leave committing to the human": the action as a whole
            objects = [_Phrase("", [])]
            others = [(r, p) for r, p in phrases if r != ""]
    for role, phrase in others:
        if phrase.here and phrase.head in _containers():
            continue  # "in this package": where the file applies, said again
        quals.update(_flat(phrase))
        if role in _PLACES and phrase.head not in _not_places() and not _by_work(phrase):
            places.update(_flat(phrase))
    quals -= _dropped()
    if objects:
        objects += included
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
        if positive or not _tool_deploy(verb, head):
            action, obj, kinds = _action(verb, head, kinds)
        else:
            action, obj = verb, head  # "never run `vercel deploy`": that platform only
        extra = {q for q in extra if not _neutral(action, obj, q)}
        out.append(
            Frame(
                positive,
                action,
                obj,
                frozenset(extra),
                conditional,
                kinds,
                where,
                modality,
                unasked,
                via,
            )
        )
    return out + _instrument_frames(out, others, mode, quals, conditional)


def _instrument_frames(
    made: list[Frame],
    others: list[tuple[str, _Phrase]],
    mode: tuple[bool, str, bool],
    quals: set[str],
    conditional: bool,
) -> list[Frame]:
    """Frames of a command the action is done with ("update the PR with `git push
    --force-with-lease`", "commit with `git commit -n`"): the command's own action, with the
    modality of the clause."""
    out: list[Frame] = []
    for role, phrase in others:
        if role != "with" or not phrase.head.startswith("`"):
            continue
        named = _command("run", phrase.head)
        if named is None or any((f.verb, f.object) == named[:2] for f in made + out):
            continue
        if not mode[0] and _tool_deploy("run", phrase.head):
            continue  # "never update the preview with `vercel deploy`": that platform only
        action, obj, kinds = named
        extra = frozenset(q for q in quals if q != phrase.head and not _neutral(action, obj, q))
        positive, modality, unasked = mode
        out.append(
            Frame(positive, action, obj, extra, conditional, kinds, frozenset(), modality, unasked)
        )
    return out


def frames_of(readable: str, masked: str | None = None) -> tuple[Frame, ...]:
    """The action frames of one sentence: ``readable`` is its plain text, ``masked`` the same
    text with inline code replaced by :data:`~pi_lsp.lint.choices.CODE_MASK` (each code span
    becomes one object token)."""
    if masked is None or len(masked) != len(readable):
        masked = readable
    frames: dict[Frame, None] = {}
    antecedent: _Phrase | None = None
    for clause, question in _clauses(_tokens(readable, masked)):
        if clause and _freely(clause, 0):
            # "run `git clean -fdx` — don't bother asking": what the sentence asked for or
            # allowed before needs no approval
            frames = {_unasked(f): None for f in frames}
        if not question:
            frames.update(dict.fromkeys(_clause_frames(clause, antecedent)))
        antecedent = _subject(clause) or antecedent
    return tuple(frames)


def _subject(words: list[str]) -> _Phrase | None:
    """The subject of a clause when it is a noun of the tables ("These hooks are not
    optional"): what a later "them" or "it" of the sentence names ("don't skip them")."""
    for k in range(1, min(len(words), _SUBJECT_WORDS + 1)):
        if words[k] in _MODALS:
            phrases = _noun_phrases(words[:k])
            if len(phrases) == 1 and phrases[0][0] == "" and phrases[0][1].head in _NOUN_CLASSES:
                return phrases[0][1]
            return None
    return None


def command_frames(commands: Iterable[str]) -> tuple[Frame, ...]:
    """The frames of the commands of a procedure's shell fence (one command a line, prompts
    and comments removed): each command that names an agent action (:data:`_COMMANDS`:
    `git push --force`, `alembic upgrade head`, `kubectl apply -f …`) asks for it."""
    frames: dict[Frame, None] = {}
    for command in commands:
        named = _command("run", command.strip().lower())
        if named is not None:
            action, obj, kinds = named
            frames[Frame(True, action, obj, modifiers=kinds)] = None
    return tuple(frames)


# --- comparing frames -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FramePair:
    """Two instructions whose action frames have opposite polarity on one object.

    Modalities are opposed when one prohibits what the other requires or permits, or one
    gates what the other permits (or requires) without asking. A ``confident`` pair shares
    the verb class and the object with its modifiers, neither side under a condition, and
    every qualifier of the *never* side (the prohibition or gate) is also on the *always*
    side; a gate meets a permission confidently only when the permission says it needs no
    approval: tier 1 reports it. The others are candidates for a judge (tier 2); ``reason``
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


def _reason(a: Frame, b: Frame, here: frozenset[str] = frozenset()) -> str | None:
    """None for a confident match, else why not. The positive side may be narrower than the
    negative one ("never push to main" / "always push to main on Fridays": what it asks for
    is still forbidden), not wider ("never edit generated files by hand" / "always edit
    generated files": they can be edited another way)."""
    reasons: list[str] = []
    negative, positive = (b, a) if a.positive else (a, b)
    covered = _covers(negative, positive)
    if a.object != b.object and not covered:
        reasons.append(f"different objects: \u201c{a.object}\u201d / \u201c{b.object}\u201d")
    if a.verb != b.verb and not covered:
        reasons.append(f"different actions on \u201c{a.object}\u201d: {a.verb} / {b.verb}")
    if a.modifiers != b.modifiers and not covered:
        only = sorted(a.modifiers ^ b.modifiers)
        reasons.append(f"different kinds of \u201c{a.object}\u201d: " + ", ".join(only[:6]))
    if negative.conditional or (positive.conditional and not positive.precondition):
        # an unconditional prohibition holds under the other side's precondition too ("never
        # commit" / "commit once the checks pass"), not at a place or on request it names
        reasons.append("one side holds under a condition")
    if lemma("only") in positive.qualifiers:
        # "push to main only through the merge queue" restricts how, it does not ask to
        reasons.append("the always side says only")
    scoped = sorted((positive.qualifiers - negative.qualifiers) & positive.scope - here)
    if scoped:
        # "never use tabs" / "use tabs in Makefiles": an exception for one place, maybe meant
        reasons.append("the always side is scoped: " + ", ".join(scoped[:6]))
    here = here | _agent_place(negative, positive)
    if not negative.qualifiers - here <= positive.qualifiers:
        only = sorted(negative.qualifiers - here - positive.qualifiers)
        reasons.append("the never side is narrower: " + ", ".join(only[:6]))
    modal = _modal_reason(a, b)
    if modal is not None:
        reasons.append(modal)
    return "; ".join(reasons) or None


#: words of the place the agent itself works ("on your machine", "locally"), and of places
#: that are not it ("in CI", "on the build server")
_AGENT_PLACES = ("machine", "laptop", "workstation", "computer", "locally", "local")
_ELSEWHERE = (
    *("ci", "pipeline", "server", "runner", "cloud", "remote", "remotely", "cluster"),
    *("staging", "production", "prod", "container", "docker", "vm", "sandbox", "devcontainer"),
)


@lru_cache(maxsize=1)
def _place_words() -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(lemma(w) for w in _AGENT_PLACES), frozenset(lemma(w) for w in _ELSEWHERE)


def _agent_place(negative: Frame, positive: Frame) -> frozenset[str]:
    """The words of the prohibition that name where the agent works ("do not run the whole
    suite on your machine"): a requirement that names no other place is done there too
    ("run the complete suite before every commit"), one that does is not ("… in CI")."""
    own, elsewhere = _place_words()
    if positive.qualifiers & elsewhere or positive.modifiers & elsewhere:
        return frozenset()
    return negative.qualifiers & own


def _covers(negative: Frame, positive: Frame) -> bool:
    """Whether a prohibition of a whole action ("never commit", "leave committing to the
    human") forbids what ``positive`` does: the same verb on any object ("commit the
    lockfile"), or landing by it on any branch ("commit to your feature branch"); not another
    kind of the action ("`--force-with-lease`" is not a plain force push)."""
    if _of_kind(negative, positive):
        return True
    if negative.object and not negative.modifiers and negative.verb == positive.verb:
        return negative.object != positive.object and (
            command_base(positive.object) == negative.object
            or negative.object in folders_of(positive.object)
        )
    if negative.object or negative.modifiers or negative.verb not in _OBJECTLESS:
        return False
    if positive.verb == "land":
        return positive.via == negative.verb
    return positive.verb == negative.verb and positive.object != ""


#: file extensions -> the kind of file they name ("`NOTES.md`" is a Markdown file)
_FILE_KINDS = {
    "md": "markdown",
    "mdx": "markdown",
    "markdown": "markdown",
    "py": "python",
    "ts": "typescript",
    "tsx": "typescript",
    "js": "javascript",
    "sh": "shell",
    "sql": "sql",
    "ipynb": "notebook",
    "yaml": "yaml",
    "yml": "yaml",
    "json": "json",
    "toml": "toml",
}
#: verbs that make a file: "write `NOTES.md`" creates one
_MAKING = frozenset({"create", "add"})


def _named_file_kind(code: str) -> str:
    """The kind of file an inline-code file name is by its extension ("`docs/NOTES.md`":
    "markdown"), or ""."""
    if len(code) < 3 or not (code.startswith("`") and code.endswith("`")) or " " in code:
        return ""
    name = code[1:-1].rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem or stem.startswith("*"):
        return ""
    return _FILE_KINDS.get(extension, "")


def _of_kind(negative: Frame, positive: Frame) -> bool:
    """Whether a prohibition on a kind of files ("don't create new Markdown files") forbids
    what ``positive`` does to one file of that kind ("write a `NOTES.md`"): the same verb, or
    both make a file; "new" says no more than making does."""
    kind = _named_file_kind(positive.object)
    if not kind or negative.object != "code" or lemma(kind) not in negative.modifiers:
        return False
    making = negative.verb in _MAKING and positive.verb in _MAKING
    if negative.verb != positive.verb and not making:
        return False
    rest = negative.modifiers - {lemma(kind)}
    return rest <= ({lemma("new")} if making else frozenset())


def command_base(code: str) -> str:
    """The command of an inline-code object without the flags that end it (`pnpm update
    --latest` is `pnpm update` with a flag): a prohibition of the plain command forbids it
    with any flags ("don't run `pnpm update`" / "run `pnpm update --latest`"). "" when the
    object is no code or ends on no flag."""
    if len(code) < 3 or not (code.startswith("`") and code.endswith("`")):
        return ""
    words = code[1:-1].split()
    first_flag = next((at for at, word in enumerate(words) if word.startswith("-")), len(words))
    if first_flag == 0 or first_flag == len(words):
        return ""
    if not all(word.startswith("-") for word in words[first_flag:]):
        return ""
    return "`" + " ".join(words[:first_flag]) + "`"


#: folders of a path kept for filing a frame under them: deeper ones name no rule's place
_FOLDER_DEPTH = 6


def folders_of(code: str) -> tuple[str, ...]:
    """The folders an inline-code path sits in, each as a code span with and without its
    final slash (`a/b/c.cs`: `a/`, `a`, `a/b/`, `a/b`): a prohibition on a folder ("do not
    modify anything under `Assets/Plugins/`") covers each file below it ("patch
    `Assets/Plugins/FMOD/src/RuntimeManager.cs`"). () for code that is no path (a command, a
    word, a URL)."""
    if len(code) < 3 or not (code.startswith("`") and code.endswith("`")):
        return ()
    path = code[1:-1]
    if path.startswith("./"):
        path = path[2:]
    if not path or any(c in path for c in " :*?\\") or path.startswith(("/", "-", "~")):
        return ()
    parts = path.rstrip("/").split("/")
    out: list[str] = []
    for depth in range(1, min(len(parts), _FOLDER_DEPTH + 1)):
        folder = "/".join(parts[:depth])
        if parts[depth - 1] in ("", ".", ".."):
            break
        out += [f"`{folder}/`", f"`{folder}`"]
    return tuple(out)


def _same_place(a: Frame, b: Frame) -> bool:
    """Whether two opposed frames are on one object, or one forbids the whole action."""
    if a.object == b.object:
        return True
    negative, positive = (b, a) if a.positive else (a, b)
    return _covers(negative, positive)


def _places(frame: Frame) -> tuple[str, ...]:
    """Where ``frame`` is filed for candidates: its object, and for an action that stands
    without one ("commit", "push") that action, so "never commit" meets "commit to a
    branch"."""
    return _places_of(frame.object, frame.via or frame.verb)


@lru_cache(maxsize=16384)
def _places_of(obj: str, action: str) -> tuple[str, ...]:
    """:func:`_places` by the frame's object and action, cached: every frame of the chain is
    filed again on every edit, and most are unchanged."""
    base = command_base(obj)
    command = ((base,) if base else ()) + folders_of(obj)
    if _named_file_kind(obj):
        command += ("code",)  # "write `NOTES.md`" meets "never create Markdown files"
    if action in _OBJECTLESS:
        return (obj, f"@{action}", *command)
    return (obj, *command)


#: modality -> the modalities that may contradict it: a prohibition meets what asks for or
#: allows the action; a gate (allowed with approval) meets what allows it without asking
_OPPOSED = {
    PROHIBIT: (REQUIRE, PERMIT),
    REQUIRE: (PROHIBIT, GATED),
    PERMIT: (PROHIBIT, GATED),
    GATED: (PERMIT, REQUIRE),
}


def _opposed(a: Frame, b: Frame) -> bool:
    """Whether two frames' modalities may contradict: never "always X" against "ask before
    X" (do it, with approval); a requirement meets a gate only when it says it needs no
    approval, or when the gate waits for a request ("X unless asked": the agent may not
    start it, which a standing "always X" asks it to)."""
    if {a.modality, b.modality} == {GATED, REQUIRE}:
        gate, other = (a, b) if a.modality == GATED else (b, a)
        return other.unasked or gate.requested
    return b.modality in _OPPOSED[a.modality]


def _modal_reason(a: Frame, b: Frame) -> str | None:
    """Why a pair of opposed modalities is not confident, if it is not: a gate against a
    permission that does not say it needs no approval ("you may add dependencies" / "ask
    before adding dependencies": may, once asked). A requirement against a gate that waits
    for a request is confident (see :func:`_opposed`)."""
    if GATED in (a.modality, b.modality):
        gate, other = (a, b) if a.modality == GATED else (b, a)
        if not other.unasked and not (gate.requested and other.modality == REQUIRE):
            return "one side needs approval, the other does not say it needs none"
    return None


@lru_cache(maxsize=1024)
def _folder_words(a: str, b: str) -> frozenset[str]:
    """The words of the folders one of two files sits in below the other's folder
    ("services/claims/AGENTS.md" below "AGENTS.md": "service", "claims"): a rule of the
    deeper file that names them ("never mock the database in claims tests") says where it
    applies, which its place already says."""
    first, second = a.rpartition("/")[0], b.rpartition("/")[0]
    deeper, shallower = (first, second) if len(first) > len(second) else (second, first)
    if not deeper.startswith(shallower + "/"):
        return frozenset()
    words = deeper[len(shallower) + 1 :].lower().replace("-", "/").replace("_", "/").split("/")
    return frozenset(_noun((w,), 0)[0] for w in words if w.isalpha())


_Key = tuple[str, str, frozenset[str], frozenset[str], str, bool]


def _key(frame: Frame, modality: str, unasked: bool) -> _Key:
    return frame.verb, frame.object, frame.modifiers, frame.qualifiers, modality, unasked


def frame_pairs(instructions: Sequence[Instruction]) -> list[FramePair]:
    """Later instructions against earlier ones (``instructions`` in prompt order) whose
    frames share an object with opposite polarity, in the later instruction's order: one pair
    per (later, earlier), confident when any of their frames match confidently. Each later
    frame meets the earliest frame with the same verb, object and qualifiers by key, and at
    most :data:`_PER_KEY` earlier instructions per object and polarity otherwise."""
    confident: dict[_Key, tuple[int, Frame]] = {}
    seen: dict[tuple[str, str], list[tuple[int, Frame]]] = {}
    pairs: list[FramePair] = []
    for position, later in enumerate(instructions):
        if not later.frames:
            continue  # most sentences: nothing to pair and nothing to file
        best: dict[int, FramePair] = {}
        for frame in later.frames:
            for other in _OPPOSED[frame.modality]:
                for unasked in (False, True):
                    key = _key(frame, other, unasked)
                    match = None if frame.conditional else confident.get(key)
                    if match is None:
                        continue
                    at, old = match
                    if _opposed(frame, old) and _modal_reason(frame, old) is None:
                        best[at] = FramePair(
                            later, instructions[at], frame, old, True, "same action", position, at
                        )
                for at, old in (
                    found for place in _places(frame) for found in seen.get((place, other), ())
                ):
                    if not _opposed(frame, old) or not _same_place(frame, old):
                        continue
                    here = _folder_words(later.path, instructions[at].path)
                    reason = _reason(frame, old, here)
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
                key = _key(frame, frame.modality, frame.unasked)
                confident.setdefault(key, (position, frame))
            for place in _places(frame):
                bucket = seen.setdefault((place, frame.modality), [])
                if len(bucket) < _PER_KEY and all(at != position for at, _ in bucket):
                    bucket.append((position, frame))
    return pairs
