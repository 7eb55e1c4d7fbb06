"""Measure how the cost of regular expressions grows with their input, in a process of its own.

``tests/unit/test_linear_patterns.py`` runs this module as a script (``python -m
tests.unit.linear_probe``) so that a pattern that backtracks for ever is stopped by a CPU-time
alarm here, or killed with the process, instead of holding the test run.

Time is the thread's CPU time, not the wall clock: on a machine shared with other work a
preempted call does not look slower than it is. Each probe runs the same call on an input of
``SMALL`` characters (best of a few runs) and on one of ``LARGE``; a linear call costs about
the same per character at both sizes, a quadratic one ``LARGE / SMALL`` times more, an
exponential one never ends and meets the alarm.

The registry is every compiled pattern reachable from a module of ``pi_lsp`` (module globals,
and inside containers and dataclass objects held by them) and every pattern written in place in
a call (``re.sub(r"\\s+", ...)``), so a pattern added later is probed without anyone listing
it. How a module calls a pattern (``match``/``fullmatch`` anchored at
the start, ``search``/``finditer``/``sub``/``split`` from every position) is read from the
module's source; a pattern the module never calls by name is probed in every way.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import pkgutil
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from types import FrameType, ModuleType
from typing import Any

#: The screen: every pattern, every way it is applied, every unit, at two sizes 8x apart.
SCREEN = (500, 4_000)
#: The confirmation of a call the screen found suspicious: 10 KB against 1 MB.
CONFIRM = (10_000, 1_000_000)
#: per-character cost growth past which the screen asks for a confirmation (quadratic: 8)
SCREEN_LIMIT = 3.0
#: per-character cost growth from 10 KB to 1 MB past which a call is super-linear
#: (quadratic: 100; linear calls stay near 1 even on a loaded machine, since CPU time is used)
CONFIRM_LIMIT = 10.0
#: CPU seconds one call may take before it counts as runaway: at the screen's sizes, and at 1 MB
SCREEN_CEILING = 0.5
CEILING = 2.0

#: Repeated to the probe sizes: unclosed quotes, escapes, runs of blanks, dashes and stars,
#: repeated separators, nesting openers (a prompt template's placeholder openers among them),
#: Markdown list and quote prefixes, words a lint vocabulary starts on, and one long line
#: without a newline.
UNITS: tuple[str, ...] = (
    'x"a',
    "'a",
    "\\",
    '\\"',
    " ",
    "\t",
    "-",
    "*",
    "_",
    "`",
    "[",
    "(",
    "{",
    "<",
    "[a](",
    "> ",
    "- ",
    "1. ",
    ":",
    "a:",
    ": ",
    "/",
    ".",
    "!",
    ",",
    "; ",
    "-- ",
    "\n",
    " \n",
    "a\n",
    "x",
    "a ",
    "a1",
    "0",
    "1e",
    "L1",
    "$1",
    "${",
    "${1:-",
    "${@:-",
    "${ARGUMENTS:-",
    "${@:1",
    "${@:1:2",
    "$@",
    "e.g. ",
    "not ",
    "use ",
    "always ",
    "**/",
    "—",
    "a=",
    "#",
    "|",
    "%",
    "| a ",
    "| a | b |\n|---|---|\n\n",
    "we use ",
    "is ",
    "even when ",
    "can ",
    "\u201c",
    "\u2705 ",
    "\x1a",
    # numeric roles: a version floor, a labelled count, a value modifying a noun
    "python 3",
    "pool size ",
    "the ",
    # a verb and a value, many times in one sentence: every value's stance is read
    "use pnpm, ",
    "(use pnpm ",
    '"use npm" ',
    # credentials masked before text goes to a model: key prefixes, assignments, a PEM line,
    # a key's characters without an end
    "sk-",
    "ghp_",
    "xoxb-",
    "AKIA",
    "Bearer ",
    "password",
    "token=",
    "secret_key_",
    "api_key: ",
    '"token": "',
    "-----BEGIN PRIVATE KEY-----\n",
    "-----BEGIN RSA ",
    "a1B2/",
)
#: An opener once, then a filler that never closes it (an unclosed quote, code span, link, tag
#: or frontmatter block, the value of a key), and a last character that makes a pattern
#: anchored at the end fail only after trying the whole filler (a cue word, a long blank run,
#: then a word). Probed as ``opener + filler… + tail``.
OPENED: tuple[tuple[str, str, str], ...] = (
    ('"', "a ", ""),
    ('"', "a\\", ""),
    ("'", "a ", ""),
    ("`", "a ", ""),
    ("[", "a ", ""),
    ("](", "a ", ""),
    ("<", "a ", ""),
    ("---\n", "a: b\n", ""),
    ("a:", " ", "x"),
    ("", " ", "x"),
    ("", "\n", "x"),
    ("not", " ", "x"),
    ("over", " ", "x"),
    ("without", " ", "x"),
    ("e.g.", " ", "x"),
    ("\u201c", "a ", ""),
    ("| Setting | Value |\n|---|---|\n", "| Package manager | pnpm |\n", ""),
    ("| Package | Formatter |\n|---|---|\n", "| `a/b` | Prettier |\n", ""),
    ("Our formatter is", " ", "x"),
)
CORPUS: tuple[tuple[str, str, str], ...] = tuple(("", unit, "") for unit in UNITS) + OPENED

_SEARCH_METHODS = frozenset({"search", "finditer", "findall", "sub", "subn", "split"})
_ANCHORED_METHODS = frozenset({"match", "fullmatch"})
#: for a pattern whose callers are not known: a match at the start is the first step of a search
ALL_MODES = ("search", "fullmatch")


class Runaway(Exception):
    """A call went past the CPU ceiling."""


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise Runaway


def repeat_to(opener: str, filler: str, tail: str, size: int) -> str:
    """``opener``, ``filler`` repeated and ``tail``: ``size`` characters in all."""
    return (opener + filler * (size // len(filler) + 1))[: size - len(tail)] + tail


def run_mode(pattern: re.Pattern[Any], mode: str, subject: Any) -> None:
    if mode == "search":
        for _ in pattern.finditer(subject):
            pass
    elif mode == "match":
        pattern.match(subject)
    else:
        pattern.fullmatch(subject)


def cpu_cost(call: Callable[[], object], repeats: int, ceiling: float) -> float:
    """Best CPU time of ``repeats`` runs of ``call``; raises :class:`Runaway` past ``ceiling``."""
    best = float("inf")
    for _ in range(repeats):
        signal.setitimer(signal.ITIMER_VIRTUAL, ceiling)
        start = time.thread_time()
        try:
            call()
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        best = min(best, time.thread_time() - start)
        if best > 0.25:
            break  # long enough to be measured once; more runs would only take time
    return best


def growth(make: Callable[[int], Callable[[], object]], sizes: tuple[int, int]) -> float:
    """How many times more one character costs at the larger size than at the smaller.

    ``inf`` when a call goes past the CPU ceiling.
    """
    small, large = sizes
    small_call, large_call = make(small), make(large)
    screening = large <= SCREEN[1]
    ceiling = SCREEN_CEILING if screening else CEILING
    try:
        small_cost = cpu_cost(small_call, 2 if screening else 3, ceiling)
        large_cost = cpu_cost(large_call, 2 if screening else 1, ceiling)
    except Runaway:
        return float("inf")
    # a floor of 20 ns per character keeps timer noise on a tiny input from looking like growth
    floor = 20e-9 * small
    return (large_cost / large) / (max(small_cost, floor) / small)


def screened_growth(make: Callable[[int], Callable[[], object]]) -> dict[str, float]:
    """The screen's growth and, if it looks super-linear, the 10 KB / 1 MB confirmation."""
    screen = growth(make, SCREEN)
    if screen <= SCREEN_LIMIT:
        return {"screen": screen}
    if screen == float("inf"):
        return {"screen": screen, "confirm": screen}
    return {"screen": screen, "confirm": growth(make, CONFIRM)}


# --- the registry --------------------------------------------------------------------------------


def package_modules(package: str = "pi_lsp") -> Iterator[ModuleType]:
    root = importlib.import_module(package)
    yield root
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # runs the command line when imported
        yield importlib.import_module(info.name)


def _held_patterns(value: object, depth: int = 0) -> Iterator[re.Pattern[Any]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth >= 4:
        return
    elif isinstance(value, dict):
        for item in value.values():
            yield from _held_patterns(item, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _held_patterns(item, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from _held_patterns(getattr(value, item.name, None), depth + 1)


def _call_modes(module: ModuleType) -> dict[str, set[str]]:
    """For each name the module calls a pattern method on, the ways it calls it."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return {}
    modes: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        target = node.func.value
        if not isinstance(target, ast.Name):
            continue
        method = node.func.attr
        if method in _SEARCH_METHODS:
            modes.setdefault(target.id, set()).add("search")
        elif method in _ANCHORED_METHODS:
            modes.setdefault(target.id, set()).add(method)
    return modes


def _flags(node: ast.expr | None) -> int | None:
    """The value of a flags argument written as ``re.I | re.S``; ``None`` if not that form."""
    if node is None:
        return 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        value = getattr(re, node.attr, None) if node.value.id == "re" else None
        return int(value) if isinstance(value, re.RegexFlag) else None
    return None


_FLAGS_POSITION = {"compile": 1, "match": 2, "fullmatch": 2, "search": 2, "findall": 2}
_FLAGS_POSITION.update({"finditer": 2, "split": 3, "sub": 4, "subn": 4})


def inline_patterns(module: ModuleType) -> Iterator[tuple[str, re.Pattern[Any], tuple[str, ...]]]:
    """Patterns written in place (``re.sub(r"\\s+", " ", text)``), with how they are used."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        func = node.func
        if not (isinstance(func.value, ast.Name) and func.value.id == "re"):
            continue
        position = _FLAGS_POSITION.get(func.attr)
        if position is None or not node.args or not isinstance(node.args[0], ast.Constant):
            continue
        source = node.args[0].value
        if not isinstance(source, str | bytes):
            continue
        flag_node = node.args[position] if len(node.args) > position else None
        for keyword in node.keywords:
            if keyword.arg == "flags":
                flag_node = keyword.value
        flags = _flags(flag_node)
        if flags is None:
            continue
        if func.attr == "compile":
            modes = ALL_MODES
        elif func.attr in _ANCHORED_METHODS:
            modes = (func.attr,)
        else:
            modes = ("search",)
        yield f"{module.__name__}:{node.lineno}", re.compile(source, flags), modes


def pattern_registry() -> dict[str, tuple[re.Pattern[Any], tuple[str, ...]]]:
    """``module.NAME`` of every reachable pattern, with the ways it is applied."""
    found: dict[str, tuple[re.Pattern[Any], tuple[str, ...]]] = {}
    seen: set[int] = set()
    modules = list(package_modules())
    # a name's calls in every module: a pattern imported elsewhere is probed the ways it is
    # used there too (two modules' patterns of the same name are both probed both ways)
    calls: dict[str, set[str]] = {}
    for module in modules:
        for name, modes in _call_modes(module).items():
            calls.setdefault(name, set()).update(modes)
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, ModuleType | type) or callable(value):
                continue
            for index, pattern in enumerate(_held_patterns(value)):
                if id(pattern) in seen:
                    continue
                seen.add(id(pattern))
                direct = isinstance(value, re.Pattern)
                label = f"{module.__name__}.{name}" + ("" if direct else f"[{index}]")
                used = calls.get(name) if direct else None
                found[label] = (pattern, tuple(sorted(used)) if used else ALL_MODES)
        for label, pattern, modes in inline_patterns(module):
            if not any(pattern is known for known, _ in found.values()):
                found.setdefault(label, (pattern, modes))
    return found


# --- the functions that apply patterns to what a user writes ----------------------------------


def _quietly(call: Callable[[str], object]) -> Callable[[str], object]:
    """``call``, with the errors bad input is meant to raise counted as a normal answer."""

    def run(text: str) -> object:
        try:
            return call(text)
        except (ValueError, RecursionError):  # FrontmatterError, JsonSyntaxError, ...
            return None

    return run


def function_registry() -> dict[str, Callable[[str], object]]:
    """Public functions that read user text, each taking the adversarial text somewhere a user
    could put it: a frontmatter value, a template body, a settings file, a path, a rule file."""
    from pi_lsp.js.json_document import parse_json_document
    from pi_lsp.lint.blocks import split_blocks
    from pi_lsp.lint.fences import fence_choices, leads_commands
    from pi_lsp.lint.instructions import BlockMemo, extract_instructions
    from pi_lsp.lint.judge import parse_verdicts
    from pi_lsp.lint.judge_candidates import Candidate
    from pi_lsp.lint.open_numbers import open_settings
    from pi_lsp.lint.scopes import heading_languages, languages_of, opening_scope
    from pi_lsp.lint.vocabulary import CODE_MASK, current
    from pi_lsp.prompt.credentials import mask_credentials
    from pi_lsp.resources.frontmatter import parse_frontmatter
    from pi_lsp.resources.path_refs import find_path_refs
    from pi_lsp.resources.templates import parse_command_args, substitute_args
    from pi_lsp.tools.find import fd_pattern
    from pi_lsp.tools.ignore_rules import IgnoreFile, parse_rule

    globs = [fd_pattern(glob)[0] for glob in ("*a*a*a*a*b", "**/**/**/x", "a/**/**/**/b")]
    rules = [parse_rule(line) for line in ("*a*a*a*b", "**/**/x", "!a*/**/b*", "/a/**/**/b")]
    ignore = IgnoreFile(b"/root", [rule for rule in rules if rule is not None])

    first, second = extract_instructions("/x/AGENTS.md", "- Use npm.\n- Use pnpm.\n")

    def judge_answer(text: str) -> object:
        """A model's answer quoting ``text``, checked against a sentence that is ``text``."""
        sentence = dataclasses.replace(second, text=text)
        item = {"id": 1, "verdict": "conflict", "earlier_quote": "npm", "later_quote": text}
        answer = text + json.dumps({"verdicts": [item]}) + text
        return parse_verdicts(answer, [Candidate(first, sentence, "probe")])

    def read_after_edit(text: str) -> object:
        # read once, then again with a line put in the middle: the chunks before and after
        # are taken over, the one between is read again
        memo = BlockMemo(1 << 16)
        extract_instructions("/x/AGENTS.md", text, memo=memo)
        middle = len(text) // 2
        edited = text[:middle] + "\n- Use pnpm.\n" + text[middle:]
        return extract_instructions("/x/AGENTS.md", edited, memo=memo)

    def match_globs(text: str) -> object:
        path = text.encode("utf-8", "surrogatepass")
        return [glob is not None and glob.fullmatch(path) for glob in globs]

    return {
        "frontmatter": _quietly(
            lambda text: parse_frontmatter(f"---\nname: x\ndescription: {text}\n---\nbody")
        ),
        "frontmatter value continued on the next line": _quietly(
            lambda text: parse_frontmatter(f'---\ndescription: "{text}\n  grouped."\n---\n')
        ),
        "frontmatter single-quoted value continued": _quietly(
            lambda text: parse_frontmatter(f"---\ndescription: '{text}\n  grouped.'\n---\n")
        ),
        "template arguments": lambda text: substitute_args(text, ["one", "two"]),
        "command arguments": parse_command_args,
        "settings": _quietly(parse_json_document),
        "settings string": _quietly(lambda text: parse_json_document(json.dumps({"a": text}))),
        "path references": lambda text: find_path_refs(text, "/nonexistent/AGENTS.md"),
        "instructions of a context file": lambda text: extract_instructions("/x/AGENTS.md", text),
        "scope of a clause": lambda text: (
            opening_scope(text),
            opening_scope(f"When {text}, use npm"),
            languages_of(text),
            heading_languages(text),
        ),
        "model judge answer": judge_answer,
        "credentials masked before a model request": mask_credentials,
        "catalogue values of a clause": lambda text: current().find(text),
        "catalogue values of a clause in code": lambda text: current().find(
            text, CODE_MASK * len(text)
        ),
        # unwrapped: the cache would keep every megabyte probe
        "open settings of a sentence": lambda text: open_settings.__wrapped__(text, True),
        "chunks of a context file": split_blocks,
        "commands of a shell fence": fence_choices,
        "lead of a shell fence": leads_commands,
        "a shell fence after its lead": lambda text: extract_instructions(
            "/x/AGENTS.md", f"Install it with:\n\n```sh\n{text}\n```\n"
        ),
        "instructions of a context file read again after an edit": read_after_edit,
        "glob matching a long path": match_globs,
        "ignore rules matching a long path": lambda text: ignore.match(
            text.encode("utf-8", "surrogatepass"), False
        ),
    }


def probe_function(call: Callable[[str], object]) -> Iterator[dict[str, Any]]:
    worst: dict[str, Any] = {"screen": 0.0}
    for opener, filler, tail in CORPUS:

        def make(
            size: int, case: tuple[str, str, str] = (opener, filler, tail)
        ) -> Callable[[], object]:
            text = repeat_to(*case, size)
            return lambda: call(text)

        result: dict[str, Any] = {"mode": "call", "unit": opener + filler * 3 + "…" + tail}
        result.update(screened_growth(make))
        if "confirm" in result:
            yield result
        if result["screen"] > worst["screen"]:
            worst = result
    yield {"worst": True, **worst}


# --- the script ----------------------------------------------------------------------------------


def probe_pattern(pattern: re.Pattern[Any], modes: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """Growth of every way ``pattern`` is applied to every unit; only the worst and any
    confirmed calls are reported, to keep the output short."""
    encode = isinstance(pattern.pattern, bytes)
    worst: dict[str, Any] = {"screen": 0.0}
    for mode in modes:
        for opener, filler, tail in CORPUS:

            def make(
                size: int, case: tuple[str, str, str] = (opener, filler, tail), mode: str = mode
            ) -> Callable[[], object]:
                text = repeat_to(*case, size)
                subject: Any = text.encode("utf-8") if encode else text
                return lambda: run_mode(pattern, mode, subject)

            result: dict[str, Any] = {"mode": mode, "unit": opener + filler * 3 + "…" + tail}
            result.update(screened_growth(make))
            if "confirm" in result:
                yield result
            if result["screen"] > worst["screen"]:
                worst = result
    yield {"worst": True, **worst}


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGVTALRM, _alarm)
    if argv and argv[0] == "--functions":
        for label, call in function_registry().items():
            for result in probe_function(call):
                print(json.dumps({"pattern": label, "kind": "function", **result}), flush=True)
        return
    if argv and argv[0] == "--pattern":
        # one pattern given on the command line (the test's check that the probe can fail)
        flags = int(argv[2]) if len(argv) > 2 else 0
        given = re.compile(argv[1], flags)
        for result in probe_pattern(given, ALL_MODES):
            print(json.dumps({"pattern": "given", "kind": "pattern", **result}), flush=True)
            if result.get("confirm", 0.0) > CONFIRM_LIMIT:
                return  # one confirmed call is the answer; the rest would only take time
        return
    prefix = argv[0] if argv else ""  # a module or pattern name, to probe only those
    patterns = {k: v for k, v in pattern_registry().items() if k.startswith(prefix)}
    for label, (pattern, modes) in patterns.items():
        print(json.dumps({"pattern": label, "source": str(pattern.pattern)[:200]}), flush=True)
        for result in probe_pattern(pattern, modes):
            print(json.dumps({"pattern": label, "kind": "pattern", **result}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
