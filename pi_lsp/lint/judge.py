"""Tier 2: a model judges the pairs of instructions that words alone cannot settle.

Off by default; ``pi-lsp check --judge`` and the server setting ``judge`` turn it on. For one
chain (the context files one working directory loads, in prompt order) :func:`judge_chain`

1. takes the candidate pairs (:func:`~pi_lsp.lint.judge_candidates.candidate_pairs`, less the
   pairs tier 1 already reported, plus any ``extra`` candidates), at most :data:`MAX_PAIRS`;
2. looks each pair up in the :class:`VerdictCache` (keyed by a hash of :data:`JUDGE_VERSION`,
   the model, both files' paths, and both texts with their headings and roles), so a steady
   state asks nothing
   and an edit asks only about pairs that touch changed text;
3. sends the rest in **one** request (:func:`request_text`) through an injected
   ``ask(system, user) -> text`` — the lint never talks to a provider itself. What looks
   like a credential in a sentence or heading is masked first (:func:`sent_text`), so a key
   pasted into a context file never leaves the machine;
4. reads the JSON answer (:func:`parse_verdicts`): one verdict per pair, ``conflict`` /
   ``override`` / ``scoped`` / ``compatible``, quoting both sentences and giving a one-line
   reason. A verdict whose quotes are not in the sentences it names (as they were sent,
   masked) is discarded;
5. turns ``conflict`` (warning) and ``override`` (information) into ``judged-conflict``
   findings on the later sentence, naming the earlier one and the model's reason.

``ask`` raising any exception other than cancellation makes :class:`JudgeRun` carry the
error, and only the verdicts the cache held become findings. :func:`judge_workspace` judges
every chain of a workspace this way, for the CLI and the server alike: a failed request
costs its own chain only, and the face says once that it fell back to the word rules
(:meth:`WorkspaceJudgement.fallback`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_lsp.lint.conflicts import (
    ACKNOWLEDGED_OVERRIDE,
    CONFLICT,
    CONFLICT_IN_FILE,
    clipped,
    find_conflicts,
    instructions_of,
    number_pairs,
    polarity_candidates,
    scoped_pairs,
)
from pi_lsp.lint.engine import user_vocabulary
from pi_lsp.lint.instructions import Instruction
from pi_lsp.lint.judge_candidates import Candidate, candidate_pairs
from pi_lsp.lint.vocabulary import Vocabulary, using
from pi_lsp.prompt.credentials import MASK, mask_credentials
from pi_lsp.resources.loader import Resources
from pi_lsp.resources.model import Finding, RelatedLocation
from pi_lsp.resources.shown_paths import reference_from, shown_path

__all__ = [
    "JUDGED",
    "JUDGE_VERSION",
    "MAX_PAIRS",
    "SYSTEM_PROMPT",
    "Ask",
    "Chain",
    "ChainJudged",
    "JudgeRun",
    "Verdict",
    "VerdictCache",
    "WorkspaceChain",
    "WorkspaceJudgement",
    "chain_candidates",
    "default_cache_path",
    "judge_chain",
    "judge_workspace",
    "pair_key",
    "parse_verdicts",
    "request_text",
    "sent_text",
    "workspace_chains",
]

JUDGED = "judged-conflict"
#: part of every cache key: a change of prompt or reading makes every verdict stale
JUDGE_VERSION = "2"
#: pairs in one request; the rest wait for the next run (the cache keeps what was judged)
MAX_PAIRS = 40
#: characters of one sentence sent to the model
MAX_TEXT = 400
#: verdicts kept in the cache file (the oldest are dropped)
MAX_CACHED = 5000

Kind = Literal["conflict", "override", "scoped", "compatible"]
KINDS: tuple[Kind, ...] = ("conflict", "override", "scoped", "compatible")
Ask = Callable[[str, str], Awaitable[str]]

SYSTEM_PROMPT = (
    """\
You review instructions that a coding agent reads together: context files (AGENTS.md, \
CLAUDE.md) concatenated from a global file down to the working directory. Later text comes \
later in the prompt. For each numbered pair of sentences, decide:
- "conflict": an agent cannot follow both in the same situation;
- "override": they disagree, but the later one says or clearly means that it replaces the \
earlier rule for its part of the project;
- "scoped": they apply to different files, folders, languages or conditions, so both hold;
- "compatible": no disagreement (one refines, repeats or merely describes the other).
Answer with JSON only, no prose and no code fence: an object {"verdicts": [...]} with one \
item per pair: {"id": <pair id>, "verdict": "conflict"|"override"|"scoped"|"compatible", \
"earlier_quote": "<words copied exactly from the earlier sentence>", "later_quote": "<words \
copied exactly from the later sentence>", "reason": "<one line, at most 20 words>"}. Quote \
the words that decide the verdict. When unsure, answer "compatible". \
"""
    + f'Credentials in the sentences were replaced by "{MASK}" before they were sent.'
)


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: Kind
    reason: str


@dataclass(slots=True)
class JudgeRun:
    """What judging one chain did: its findings, the pairs asked about (0: all cached) and
    found in the cache, the verdicts discarded (quotes not found), the pairs left for a later
    run, the requests sent (0 or 1), and the error that made it fall back."""

    findings: list[Finding] = field(default_factory=list)
    asked: int = 0
    cached: int = 0
    discarded: int = 0
    #: pairs over :data:`MAX_PAIRS`, left for a later run
    left: int = 0
    requests: int = 0
    error: str | None = None


# --- the request ---------------------------------------------------------------------------------


def sent_text(instruction: Instruction) -> str:
    """The sentence as the model sees it: credentials masked
    (:func:`~pi_lsp.prompt.credentials.mask_credentials`). Quotes are checked against this
    text, not the file's: the model can only quote what it was sent, and a quote is never
    mapped back onto the secret it stands for."""
    return mask_credentials(instruction.text)


def _side(instruction: Instruction, role: str, root: str | None) -> dict[str, str]:
    return {
        "role": role,
        "file": instruction.path if root is None else shown_path(instruction.path, root),
        "heading": mask_credentials(" > ".join(instruction.heading)),
        "text": clipped(sent_text(instruction), MAX_TEXT),
    }


def request_text(candidates: Sequence[Candidate], root: str | None = None) -> str:
    """The user message for ``candidates``: the pairs as JSON, ids counting from 1."""
    pairs = [
        {
            "id": number,
            "earlier": _side(c.earlier, "earlier", root),
            "later": _side(c.later, "later", root),
        }
        for number, c in enumerate(candidates, 1)
    ]
    return (
        f"Judge these {len(pairs)} pairs. Files are relative to the repository root "
        "(~/ is the user's home: the global file).\n"
        + json.dumps({"pairs": pairs}, ensure_ascii=False, indent=1)
    )


# --- the answer ----------------------------------------------------------------------------------

_MARKUP = re.compile(r"[`*_~\[\]()>]++")


def _comparable(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).casefold().replace("\u2019", "'").split())


def _quoted(quote: object, sentence: str) -> bool:
    """Whether ``quote`` is a run of at least two words of ``sentence`` (or all of it),
    markup, case and spacing aside."""
    if not isinstance(quote, str):
        return False
    wanted = _comparable(quote).strip(" .,;:!?\"'\u201c\u201d")
    whole = _comparable(sentence)
    if not wanted or wanted not in whole:
        return False
    return " " in wanted or wanted == whole.strip(" .,;:!?\"'\u201c\u201d")


def _json_object(text: str) -> object:
    """The JSON object of an answer, tolerating a code fence or words around it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        return json.loads(text[start : end + 1])
    except ValueError:
        return None


def parse_verdicts(text: str, candidates: Sequence[Candidate]) -> tuple[dict[int, Verdict], int]:
    """The verdicts of an answer by pair index (0-based), and how many were discarded (an
    unknown id or verdict, a quote not found in its sentence). Pairs without an item are
    simply not judged."""
    answer = _json_object(text)
    items = answer.get("verdicts") if isinstance(answer, dict) else None
    if not isinstance(items, list):
        return {}, 0
    verdicts: dict[int, Verdict] = {}
    discarded = 0
    for item in items:
        if not isinstance(item, dict):
            discarded += 1
            continue
        number = item.get("id")
        kind = item.get("verdict")
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not 1 <= number <= len(candidates)
            or kind not in KINDS
        ):
            discarded += 1
            continue
        pair = candidates[number - 1]
        if not (
            _quoted(item.get("earlier_quote"), sent_text(pair.earlier))
            and _quoted(item.get("later_quote"), sent_text(pair.later))
        ):
            discarded += 1
            continue
        reason = item.get("reason")
        line = " ".join(reason.split())[:200] if isinstance(reason, str) else ""
        verdicts[number - 1] = Verdict(kind, line)
    return verdicts, discarded


# --- the cache -----------------------------------------------------------------------------------


def _key_path(path: str, root: str | None) -> str:
    return path if root is None else shown_path(path, root)


def pair_key(model: str, candidate: Candidate, root: str | None = None) -> str:
    """The cache key of one pair for one model: the judge version, the model, both files'
    paths (relative to the workspace ``root`` when given, so another checkout of the same
    repository shares its verdicts), and both sentences with their headings and roles.
    Positions are left out, so moving a sentence inside its file keeps its verdict; the paths
    are in, so the same two sentences in another pair of folders are judged again (a rule of
    ``docs/`` against the root is not a rule of ``web/`` against it)."""
    e, later = candidate.earlier, candidate.later
    same_file = e.path == later.path
    material = [
        JUDGE_VERSION,
        model,
        ["earlier", _key_path(e.path, root), list(e.heading), " ".join(e.text.split())],
        ["later", _key_path(later.path, root), list(later.heading), " ".join(later.text.split())],
        same_file,
    ]
    encoded = json.dumps(material, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()


def default_cache_path(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """``$XDG_CACHE_HOME/pi-lsp/judge.json``, else ``~/.cache/pi-lsp/judge.json``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(home or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pi-lsp", "judge.json")


class VerdictCache:
    """Verdicts by :func:`pair_key`, in one JSON file written atomically (temp file + rename).

    A missing, unreadable or corrupt file reads as empty and is rewritten on the next save;
    a save that fails (read-only folder) is ignored: the cache only saves calls."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._verdicts: dict[str, Verdict] = {}
        self._dirty = False
        if path is not None:
            self._verdicts = self._read(path)

    @staticmethod
    def _read(path: str) -> dict[str, Verdict]:
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        entries = data.get("verdicts") if isinstance(data, dict) else None
        if not isinstance(entries, dict) or data.get("version") != JUDGE_VERSION:
            return {}
        out: dict[str, Verdict] = {}
        for key, value in entries.items():
            if (
                isinstance(value, dict)
                and value.get("verdict") in KINDS
                and isinstance(value.get("reason"), str)
            ):
                out[key] = Verdict(value["verdict"], value["reason"])
        return out

    def get(self, key: str) -> Verdict | None:
        return self._verdicts.get(key)

    def put(self, key: str, verdict: Verdict) -> None:
        self._verdicts.pop(key, None)
        self._verdicts[key] = verdict
        self._dirty = True

    def __len__(self) -> int:
        return len(self._verdicts)

    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        merged = self._read(self.path)  # another process may have judged meanwhile
        merged.update(self._verdicts)
        kept = list(merged.items())[-MAX_CACHED:]
        data = {
            "version": JUDGE_VERSION,
            "verdicts": {k: {"verdict": v.kind, "reason": v.reason} for k, v in kept},
        }
        folder = os.path.dirname(self.path) or "."
        try:
            os.makedirs(folder, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=".judge-", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump(data, out, ensure_ascii=False)
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except OSError:
            return
        self._verdicts = dict(kept)
        self._dirty = False


# --- findings ------------------------------------------------------------------------------------


def _finding(candidate: Candidate, verdict: Verdict, model: str) -> Finding:
    earlier, later = candidate.earlier, candidate.later
    if earlier.path == later.path:
        where = f"line {earlier.where.start_line + 1}"
    else:
        where = reference_from(later.path, earlier.path)
    reason = verdict.reason or "no reason given"
    if verdict.kind == "override":
        message = f"Overrides {where}, as judged by {model}: {reason}"
    else:
        message = f"Conflicts with {where}, as judged by {model}: {reason}"
    return Finding(
        later.where,
        "information" if verdict.kind == "override" else "warning",
        JUDGED,
        message,
        related=(
            RelatedLocation(
                earlier.where, f"earlier instruction: {clipped(earlier.text, MAX_TEXT)}"
            ),
        ),
        data={"verdict": verdict.kind, "model": model, "candidate": candidate.reason},
    )


def _settled(findings: Sequence[Finding]) -> frozenset[tuple[object, object]]:
    pairs: set[tuple[object, object]] = set()
    for finding in findings:
        if finding.rule in (CONFLICT, CONFLICT_IN_FILE, ACKNOWLEDGED_OVERRIDE) and finding.related:
            pairs.add((finding.where, finding.related[0].where))
    return frozenset(pairs)


def chain_candidates(
    chain: Sequence[tuple[str, str]], words: Vocabulary | None = None
) -> list[Candidate]:
    """The declined pairs of one chain (``(path, text)`` in prompt order), read with the
    vocabulary ``words`` (``None``: the active one) as the tier-1 lint of the chain reads it."""
    if words is not None:
        with using(words):
            return chain_candidates(chain)
    instructions: list[Instruction] = []
    for path, text in chain:
        instructions.extend(instructions_of(path, text) or ())
    # the pairs tier 1 declined for their conditions, or as weak frame matches, come first
    first = (
        [
            Candidate(pair.earlier, pair.later, f"scope:{pair.reason}")
            for pair in scoped_pairs(chain)
        ]
        + [
            Candidate(pair.earlier, pair.later, f"frames:{pair.reason}")
            for pair in polarity_candidates(chain)
        ]
        + [Candidate(pair.earlier, pair.later, "number") for pair in number_pairs(chain)]
    )
    return candidate_pairs(instructions, _settled(find_conflicts(chain)), first)


async def judge_chain(
    chain: Sequence[tuple[str, str]],
    ask: Ask,
    model: str,
    cache: VerdictCache,
    *,
    extra: Sequence[Candidate] = (),
    root: str | None = None,
    save: bool = True,
    words: Vocabulary | None = None,
) -> JudgeRun:
    """Judge one chain's candidate pairs (see the module docstring), read with the vocabulary
    ``words`` (the settings' catalogue; ``None``: the active one). Cancelling the awaiting
    task cancels the request; what was judged before is kept in the cache."""
    # reading the chain takes as long as a lint of it: off the event loop
    candidates = [*(await asyncio.to_thread(chain_candidates, chain, words)), *extra]
    run = JudgeRun()
    judged: list[tuple[Candidate, Verdict]] = []
    todo: list[tuple[Candidate, str]] = []
    for candidate in candidates:
        key = pair_key(model, candidate, root)
        known = cache.get(key)
        if known is not None:
            run.cached += 1
            judged.append((candidate, known))
        elif len(todo) < MAX_PAIRS:
            todo.append((candidate, key))
        else:
            run.left += 1
    if todo:
        asking = [c for c, _ in todo]
        run.asked = len(asking)
        run.requests = 1
        try:
            answer = await ask(SYSTEM_PROMPT, request_text(asking, root))
        except Exception as error:
            # the verdicts from the cache still stand: offline, what was judged stays shown
            run.error = str(error) or type(error).__name__
        else:
            verdicts, run.discarded = parse_verdicts(answer, asking)
            for index, verdict in verdicts.items():
                candidate, key = todo[index]
                cache.put(key, verdict)
                judged.append((candidate, verdict))
            if save:
                cache.save()
    for candidate, verdict in judged:
        if verdict.kind in ("conflict", "override"):
            run.findings.append(_finding(candidate, verdict, model))
    run.findings.sort(key=lambda f: (f.where.path, f.where.start_line, f.where.start_column))
    return run


# --- a workspace: every chain ---------------------------------------------------------------------

Chain = tuple[tuple[str, str], ...]
#: called before each chain is judged: (chains done, chains in all)
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class WorkspaceChain:
    """One chain to judge: the ``(path, text)`` of its context files in prompt order, and the
    vocabulary its working directory's lint reads them with (the shipped catalogue extended
    by the settings' ``lint.catalogue``; ``None``: the shipped one)."""

    files: Chain
    vocabulary: Vocabulary | None = None


@dataclass(frozen=True, slots=True)
class ChainJudged:
    """One chain of a workspace and what judging it did (its own error, if its request
    failed; its findings from the cache stand even then)."""

    files: Chain
    run: JudgeRun


@dataclass(slots=True)
class WorkspaceJudgement:
    """What :func:`judge_workspace` did, chain by chain, with the totals and the one line a
    face shows when some chain fell back to the word rules."""

    model: str
    chains: list[ChainJudged] = field(default_factory=list)

    def total(self, name: Literal["asked", "cached", "discarded", "left", "requests"]) -> int:
        count: int = sum(getattr(c.run, name) for c in self.chains)
        return count

    @property
    def failed(self) -> list[ChainJudged]:
        return [c for c in self.chains if c.run.error is not None]

    @property
    def error(self) -> str | None:
        """The first failed request's error (``None``: every request that was sent worked)."""
        failed = self.failed
        return failed[0].run.error if failed else None

    @property
    def findings(self) -> list[Finding]:
        """Every chain's findings, once each (two chains share their earlier files)."""
        seen: set[tuple[object, ...]] = set()
        out: list[Finding] = []
        for chain in self.chains:
            for finding in chain.run.findings:
                key = (finding.where, finding.rule, finding.message)
                if key not in seen:
                    seen.add(key)
                    out.append(finding)
        return out

    def fallback(self) -> str | None:
        """What to say (once) when a request failed: which model, why, and for how many
        chains the word rules' findings stand alone; ``None`` when none failed."""
        failed = self.failed
        if not failed:
            return None
        sent = sum(1 for c in self.chains if c.run.requests)
        where = (
            ""
            if len(failed) == sent
            else f" for {len(failed)} of the {sent} chains asked about (the others were judged)"
        )
        return f"{self.model} failed ({failed[0].run.error}); the word rules' findings only{where}"

    def summary(self) -> str:
        left = self.total("left")
        return (
            f"{self.model}: {self.total('asked')} pairs asked in {self.total('requests')} "
            f"requests, {self.total('cached')} from the cache, {self.total('discarded')} "
            "verdicts discarded (quotes not found)"
            + (f", {left} pairs left for the next run" if left else "")
        )


def workspace_chains(snapshots: Iterable[Resources]) -> list[WorkspaceChain]:
    """The distinct chains of ``snapshots`` (one per working directory), first seen first;
    a working directory without context files has none."""
    chains: dict[WorkspaceChain, None] = {}
    for resources in snapshots:
        files = tuple((f.path, f.content) for f in resources.context_files.files)
        if files:
            words, _ = user_vocabulary(resources.settings)  # its problems are the lint's to say
            chains[WorkspaceChain(files, words)] = None
    return list(chains)


async def judge_workspace(
    chains: Sequence[WorkspaceChain],
    ask: Ask,
    model: str,
    cache: VerdictCache,
    *,
    root: str | None = None,
    progress: Progress | None = None,
) -> WorkspaceJudgement:
    """Judge every chain of a workspace, one request each (:func:`judge_chain`), for
    ``pi-lsp check --judge`` and the server alike. A failed request costs only its own chain
    the pairs it asked about: the other chains are still judged, and the verdicts from the
    cache stand for every chain. The cache is saved once, at the end (also when the run is
    cancelled: what was judged before is kept)."""
    judgement = WorkspaceJudgement(model)
    try:
        for number, chain in enumerate(chains):
            if progress is not None:
                progress(number, len(chains))
            run = await judge_chain(
                chain.files, ask, model, cache, root=root, save=False, words=chain.vocabulary
            )
            judgement.chains.append(ChainJudged(chain.files, run))
    finally:
        await asyncio.to_thread(cache.save)
    return judgement
