"""The import graph of ``pi_lsp`` follows the layer order of ``docs/architecture.md``.

Lowest first; a module may import its own package and the layers below it:

    js, regular_files   JavaScript semantics; the guarded read of a file — nothing of pi_lsp
    tools
    resources
    session
    prompt
    lint | agent        side by side: neither imports the other
    server | cli        the faces: cli may import server (``pi-lsp serve``), never the reverse

Only ``server`` imports pygls, lsprotocol and watchfiles; only ``cli`` imports argparse; no
module reaches for another module's private (``_name``) names. Imports under
``if TYPE_CHECKING:`` and inside functions count like any other — they are dependencies too —
and so do ``importlib.import_module("…")`` / ``__import__("…")`` with a literal name.

The scan is an AST walk over every file of the package (about a second), run on
the real tree and, to prove it can fail, on the tree with one violation of each kind added.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2]

#: lowest first; the layers of one row sit side by side and may not import each other
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"js", "regular_files"}),
    frozenset({"tools"}),
    frozenset({"resources"}),
    frozenset({"session"}),
    frozenset({"prompt"}),
    frozenset({"lint", "agent"}),
    frozenset({"server", "cli"}),
)
#: an exception to "side by side": the command line starts the language server
ALLOWED_SIDEWAYS = frozenset({("cli", "server")})
#: third-party (or standard) packages only one layer may import, and why
OWNED_IMPORTS = {
    "pygls": ("server", "only the server adapts the engine to LSP"),
    "lsprotocol": ("server", "only the server adapts the engine to LSP"),
    "watchfiles": ("server", "only the server watches files"),
    "argparse": ("cli", "a command line is parsed in cli/ only"),
}
#: modules at the top of the package and the layer each belongs to
TOP_LEVEL = {"__main__": "cli", "regular_files": "regular_files"}


def _rank() -> dict[str, int]:
    return {layer: index for index, row in enumerate(LAYERS) for layer in row}


RANK = _rank()


@dataclass(frozen=True)
class Violation:
    where: str  # path:line
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def layer_of(module: str) -> str | None:
    """The layer of ``pi_lsp.X…`` (``None`` for the package itself)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    return TOP_LEVEL.get(parts[1], parts[1])


def module_name(root: Path, path: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@dataclass(frozen=True)
class _Import:
    line: int
    target: str  # absolute module name
    names: tuple[str, ...]  # names taken from it (``from x import a, b``)
    #: the local names it binds, each to the module it stands for (``import a.b as c``: c → a.b)
    binds: tuple[tuple[str, str], ...] = ()


_DYNAMIC_IMPORTS = frozenset({"import_module", "__import__"})


def _imports(module: str, is_package: bool, tree: ast.AST) -> Iterator[_Import]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = (
                    (alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2
                )
                yield _Import(node.lineno, alias.name, (), (bound,))
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node)
            names = tuple(alias.name for alias in node.names)
            binds = tuple(
                (alias.asname or alias.name, f"{target}.{alias.name}") for alias in node.names
            )
            yield _Import(node.lineno, target, names, binds)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            if name in _DYNAMIC_IMPORTS and literal:
                yield _Import(node.lineno, str(first.value), ())


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes over a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _private_attributes(
    tree: ast.AST, bound: Mapping[str, str], modules: frozenset[str]
) -> Iterator[tuple[int, str]]:
    """``m._name`` where ``m`` spells a pi_lsp module through the names the imports bound."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _is_private(node.attr)):
            continue
        spelled = _dotted(node.value)
        if spelled is None:
            continue
        head, _, rest = spelled.partition(".")
        if head not in bound:
            continue
        target = bound[head] + (f".{rest}" if rest else "")
        if target in modules:
            yield node.lineno, f"{spelled}.{node.attr}"


def violations(root: Path, appended: Mapping[str, str] | None = None) -> list[Violation]:
    """Every import in ``root/pi_lsp`` that breaks the layer order (``appended``: code added
    at the end of some files, by path relative to ``root``, as if it were written there)."""
    package = root / "pi_lsp"
    paths = sorted(package.rglob("*.py"))
    modules = frozenset(module_name(root, path) for path in paths)
    found: list[Violation] = []
    for path in paths:
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        if appended and relative in appended:
            text = "\n".join([*text.splitlines(), appended[relative], ""])
        module = module_name(root, path)
        found += _violations_in(relative, module, path.name == "__init__.py", text, modules)
    return found


def _layer_problem(module: str, mine: str | None, target: str) -> str | None:
    theirs = layer_of(target)
    if mine is None or theirs is None or mine == theirs:
        return None
    if theirs not in RANK or mine not in RANK:
        return f"{module} or {target} has no layer"
    if RANK[theirs] > RANK[mine]:
        return f"{mine} imports {target} (a higher layer)"
    if RANK[theirs] == RANK[mine] and (mine, theirs) not in ALLOWED_SIDEWAYS:
        return f"{mine} imports {target} (side by side)"
    return None


@functools.cache
def _violations_in(
    relative: str, module: str, is_package: bool, text: str, modules: frozenset[str]
) -> tuple[Violation, ...]:
    """The violations of one file (cached by its text: the tests scan the tree many times)."""
    found: list[Violation] = []
    mine = layer_of(module)
    tree = ast.parse(text, filename=relative)
    bound: dict[str, str] = {}
    for item in _imports(module, is_package, tree):
        where = f"{relative}:{item.line}"
        bound.update(item.binds)
        top = item.target.split(".")[0]
        owner = OWNED_IMPORTS.get(top)
        if owner is not None and mine != owner[0]:
            found.append(Violation(where, f"{mine} imports {item.target} ({owner[1]})"))
        if top != "pi_lsp":
            continue
        private = [name for name in item.names if _is_private(name)]
        if item.target != module and (private or _is_private(item.target.split(".")[-1])):
            what = ", ".join(private) if private else item.target
            found.append(Violation(where, f"imports private {what} from {item.target}"))
        # ``from pi_lsp import server`` imports the module pi_lsp.server
        submodules = [f"{item.target}.{name}" for name in item.names]
        targets = [name for name in submodules if name in modules] or [item.target]
        for target in targets:
            problem = _layer_problem(module, mine, target)
            if problem is not None:
                found.append(Violation(where, problem))
    for line, name in _private_attributes(tree, bound, modules):
        found.append(Violation(f"{relative}:{line}", f"reads private {name}"))
    return tuple(found)


# ---------------------------------------------------------------------------------------------


def test_every_package_has_a_layer() -> None:
    packages = {
        layer_of(module_name(PACKAGE_ROOT, path))
        for path in (PACKAGE_ROOT / "pi_lsp").glob("*")
        if (path.is_dir() and (path / "__init__.py").exists()) or path.suffix == ".py"
    }
    packages.discard(None)
    assert packages - set(RANK) == set()


def test_the_import_graph_follows_the_layers() -> None:
    found = [str(violation) for violation in violations(PACKAGE_ROOT)]
    assert found == []


def test_the_base_imports_nothing_of_pi_lsp() -> None:
    base = [v for v in violations(PACKAGE_ROOT) if v.where.startswith("pi_lsp/js/")]
    assert base == []
    for path in (PACKAGE_ROOT / "pi_lsp" / "js").rglob("*.py"):
        for item in _imports(module_name(PACKAGE_ROOT, path), False, ast.parse(path.read_text())):
            assert not item.target.startswith("pi_lsp.") or item.target.startswith("pi_lsp.js"), (
                f"{path}: imports {item.target}"
            )


@pytest.mark.parametrize(
    ("relative", "code", "message"),
    [
        (
            "pi_lsp/tools/read.py",
            "from pi_lsp.server.convert import path_of",
            "tools imports pi_lsp.server.convert (a higher layer)",
        ),
        (
            "pi_lsp/session/context.py",
            "import pi_lsp.prompt.tokens",
            "session imports pi_lsp.prompt.tokens (a higher layer)",
        ),
        (
            "pi_lsp/lint/checks.py",
            "from pi_lsp.agent import model_api",
            "lint imports pi_lsp.agent.model_api (side by side)",
        ),
        (
            "pi_lsp/server/features/hover.py",
            "from pi_lsp.cli import main",
            "server imports pi_lsp.cli (side by side)",
        ),
        (
            "pi_lsp/js/text.py",
            "from pi_lsp.tools import truncation",
            "js imports pi_lsp.tools.truncation (a higher layer)",
        ),
        (
            "pi_lsp/agent/loop.py",
            "import pygls.server",
            "agent imports pygls.server (only the server adapts the engine to LSP)",
        ),
        (
            "pi_lsp/resources/loader.py",
            "import argparse",
            "resources imports argparse (a command line is parsed in cli/ only)",
        ),
        (
            "pi_lsp/prompt/tokens.py",
            "from pi_lsp.resources.settings import _private_helper",
            "imports private _private_helper from pi_lsp.resources.settings",
        ),
        (
            "pi_lsp/prompt/usage.py",
            "from pi_lsp.prompt import tokens\nX = tokens._cache",
            "reads private tokens._cache",
        ),
        (
            "pi_lsp/prompt/usage.py",
            "from pi_lsp.prompt import tokens as tk\nX = tk._cache",
            "reads private tk._cache",
        ),
        (
            "pi_lsp/prompt/usage.py",
            "import pi_lsp.prompt.tokens as tk\nX = tk._cache",
            "reads private tk._cache",
        ),
        (
            "pi_lsp/prompt/usage.py",
            "import pi_lsp.prompt.tokens\nX = pi_lsp.prompt.tokens._cache",
            "reads private pi_lsp.prompt.tokens._cache",
        ),
        (
            "pi_lsp/tools/read.py",
            "from pi_lsp import server",
            "tools imports pi_lsp.server (a higher layer)",
        ),
        (
            "pi_lsp/server/setup.py",
            "from .. import cli",
            "server imports pi_lsp.cli (side by side)",
        ),
        (
            "pi_lsp/server/requests.py",
            'import importlib\nM = importlib.import_module("pi_lsp.cli.check")',
            "server imports pi_lsp.cli.check (side by side)",
        ),
        (
            "pi_lsp/lint/engine.py",
            'M = __import__("pi_lsp.agent.model_api")',
            "lint imports pi_lsp.agent.model_api (side by side)",
        ),
    ],
)
def test_a_new_violation_is_reported(relative: str, code: str, message: str) -> None:
    path = PACKAGE_ROOT / relative
    assert path.is_file(), f"{relative} is gone: pick another module for this case"
    line = len(path.read_text(encoding="utf-8").splitlines()) + 1
    line += code.count("\n")  # the last line of the added code holds the violation
    found = [str(v) for v in violations(PACKAGE_ROOT, {relative: code})]
    assert found == [f"{relative}:{line}: {message}"]


def test_the_cli_may_start_the_server() -> None:
    code = "from pi_lsp.server import serve_stdio"
    assert violations(PACKAGE_ROOT, {"pi_lsp/cli/tool.py": code}) == []
