"""The catalogue of roles: the decisions a project makes once, kept as data in ``catalogue.toml``.

A *role* (called a dimension elsewhere in the lint) is one decision: the JS package manager,
the Python test runner, the HTTP timeout, the commit message convention. Each role has a
*kind*:

- ``choice``: its values exclude each other (pnpm or yarn), except across ecosystem groups
  and within a ``composes`` set: values that work together rather than instead of each other
  (a build generator and the backend it drives, Meson and Ninja; a meta-linter and the
  linters it runs, golangci-lint and go vet; a task runner and a workspace manager), and
  apart from its ``purposes``: the jobs a project splits it by (transactional mail and
  newsletters, card payments and payouts), each with the words that name it, so that two
  values chosen for two of them do not exclude each other (:mod:`.purposes`);
- ``maximum`` / ``minimum`` / ``default``: a number with a unit for one subject ("timeout
  30 s"); two different numbers for the same subject conflict, numbers in different units are
  compared after conversion (30 s and 30000 ms agree);
- ``floor``: a version floor of one runtime; two different floors conflict.

A value is found by its *aliases* (literal words: ``"pnpm"``, ``"ruff format"``) and the
*commands* that imply it (``"./gradlew"`` implies Gradle, ``"uv run"`` implies uv), or, for
the few that need one, by a pattern guarded by trigger words. The *files* and folders a
value's tool owns imply it too (``".github/workflows/"`` implies GitHub Actions, ``"fly.toml"``
Fly.io, ``"Chart.yaml"`` Helm): a file name matches as the last part of a path
(`chart/Chart.yaml`), a folder (ending in ``/``) as a part of one; like commands they count
only in inline code or after a preposition, and only in a clause that chooses.

A value whose name is also an ordinary word (black, tabs, next, express) is ``strict``: it
counts only inside inline code or right after a verb or preposition that chooses a tool
("use", "with", "via" …), or it carries a ``context`` the clause must match.

The file is read once (``load_catalogue``) and checked entry by entry; a bad entry raises
:class:`CatalogueError` naming it. Users add roles and values from Pi's settings
(``lint.catalogue``); :func:`parse_roles` checks those the same way and returns the errors
instead of raising, so a bad user entry never stops the lint.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any, Literal

Kind = Literal["choice", "maximum", "minimum", "default", "floor"]
KINDS: tuple[str, ...] = ("choice", "maximum", "minimum", "default", "floor")

#: unit name -> (dimension of the unit, factor to its base unit, the words that spell it)
UNITS: dict[str, tuple[str, float, tuple[str, ...]]] = {
    "ms": ("duration", 0.001, ("ms", "msec", "millisecond", "milliseconds")),
    "s": ("duration", 1.0, ("s", "sec", "secs", "second", "seconds")),
    "min": ("duration", 60.0, ("m", "min", "mins", "minute", "minutes")),
    "h": ("duration", 3600.0, ("h", "hr", "hrs", "hour", "hours")),
    "d": ("duration", 86400.0, ("d", "day", "days")),
    "wk": ("duration", 604800.0, ("wk", "week", "weeks")),
    "B": ("size", 1.0, ("b", "byte", "bytes")),
    "KB": ("size", 1024.0, ("kb", "kib", "ki", "k", "kilobytes", "kilobyte")),
    "MB": ("size", 1024.0**2, ("mb", "mib", "mi", "megabytes", "megabyte")),
    "GB": ("size", 1024.0**3, ("gb", "gib", "gi", "gigabytes", "gigabyte")),
    "%": ("percent", 1.0, ("%", "percent", "per cent")),
}
#: the base unit each unit dimension is shown in
BASE_UNIT = {"duration": "s", "size": "B", "percent": "%"}
UNIT_DIMENSIONS = ("duration", "size", "percent", "count")

_NAME = re.compile(r"^[a-z0-9][a-z0-9.+-]{0,60}$")
#: a file or folder entry: no blanks, a word character, and a "." or "/" or a capital (a
#: lowercase bare word would be an alias; "Podfile", "Jenkinsfile" are file names)
_FILE = re.compile(r"^(?=[^\s]*[./A-Z])(?=[^\s]*\w)[^\s]{2,80}$")
_ROLE_KEYS = frozenset(
    {
        "name",
        "label",
        "kind",
        "labels",
        "label_pattern",
        "applies",
        "group",
        "values",
        "statement",
        "subjects",
        "unit",
        "unit_words",
        "heads",
        "about",
        "stated_kind",
        "strict",
        "context",
        "unless",
        "products",
        "version",
        "keys",
        "composes",
        "purposes",
    }
)
_VALUE_KEYS = frozenset(
    {
        "name",
        "aka",
        "strict_aka",
        "commands",
        "files",
        "group",
        "strict",
        "context",
        "unless",
        "not_before",
        "patterns",
        "triggers",
    }
)


class CatalogueError(ValueError):
    """A catalogue entry that cannot be used; the message names the entry."""


@dataclass(frozen=True, slots=True)
class CatalogueValue:
    """One member of a role."""

    name: str
    aliases: tuple[str, ...] = ()
    #: aliases that are ordinary words even when the name is not ("express", "vault")
    strict_aliases: tuple[str, ...] = ()
    #: commands imply the value; like strict aliases they count in code or after a verb
    commands: tuple[str, ...] = ()
    #: files and folders (ending in "/") that imply the value: "fly.toml", ".github/workflows/"
    files: tuple[str, ...] = ()
    group: str = ""
    strict: bool = False
    #: a pattern the whole clause must match for this value to count
    context: str | None = None
    #: a pattern that, when the clause matches it, means the value is not this role's
    unless: str | None = None
    #: words that, right after an alias, mean something else ("npm package", "bun test")
    not_before: tuple[str, ...] = ()
    #: patterns (each may capture one group, substituted for ``{}`` in the name) and the
    #: words of which one must be in the clause for them to be tried
    patterns: tuple[str, ...] = ()
    triggers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Role:
    """One decision a project makes once."""

    name: str
    label: str
    kind: Kind
    values: tuple[CatalogueValue, ...]
    #: words a ``Label:`` uses for this role, or a pattern over the label
    labels: tuple[str, ...] = ()
    label_pattern: str | None = None
    applies: str = ""
    #: a statement of the setting is a claim even without an imperative ("Line length: 120")
    statement: bool = False
    #: numeric roles: the phrases naming the subject and the unit dimension of the number
    subjects: tuple[str, ...] = ()
    unit: str = ""
    unit_words: tuple[str, ...] = ()
    #: numeric roles named by a head noun and what it is about ("timeout" about "http",
    #: "outbound"), and taking only numbers stated with the role's kind (:mod:`.numbers`)
    heads: tuple[str, ...] = ()
    about: tuple[str, ...] = ()
    stated_kind: bool = False
    #: version roles: the words naming the product, the shape of its version number (a
    #: pattern without groups) and the configuration keys whose value is that version; read
    #: as floors and pins by :mod:`.versions` (numeric roles: the keys whose value is the
    #: number, in words, read by :mod:`.numbers`)
    products: tuple[str, ...] = ()
    version: str = ""
    keys: tuple[str, ...] = ()
    #: choice roles: sets of values that are used together, not instead of each other
    composes: tuple[tuple[str, ...], ...] = ()
    #: choice roles: the purposes a project splits the role by, each with the words that name
    #: it ("transactional": "receipt", "password reset" …); two choices for different
    #: purposes are not a conflict (:mod:`.purposes`)
    purposes: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def numeric(self) -> bool:
        return self.kind in ("maximum", "minimum", "default")


@dataclass(frozen=True, slots=True)
class Catalogue:
    roles: tuple[Role, ...]
    by_name: Mapping[str, Role] = field(default_factory=dict)


def _strings(where: str, key: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(value)
    raise CatalogueError(f"{where}: '{key}' must be a string or a list of non-empty strings")


def _pattern(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise CatalogueError(f"{where}: '{key}' must be a non-empty string")
    try:
        re.compile(value)
    except re.error as exc:
        raise CatalogueError(f"{where}: '{key}' is not a valid pattern: {exc}") from None
    return value


def _bool(where: str, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise CatalogueError(f"{where}: '{key}' must be true or false")
    return value


def _text(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CatalogueError(f"{where}: '{key}' must be a non-empty string")
    return value


def parse_value(where: str, raw: object, role: Mapping[str, Any]) -> CatalogueValue:
    """One value entry: a string (its name, also its alias) or a table."""
    if isinstance(raw, str):
        raw = {"name": raw}
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: a value must be a string or a table")
    name = _text(where, "name", raw.get("name"))
    where = f"{where} value '{name}'"
    unknown = sorted(set(raw) - _VALUE_KEYS)
    if unknown:
        raise CatalogueError(f"{where}: unknown key '{unknown[0]}'")
    patterns = (
        tuple(_pattern(where, "patterns", p) for p in _strings(where, "patterns", raw["patterns"]))
        if "patterns" in raw
        else ()
    )
    aliases = _strings(where, "aka", raw["aka"]) if "aka" in raw else ()
    strict_aliases = _strings(where, "strict_aka", raw["strict_aka"]) if "strict_aka" in raw else ()
    commands = _strings(where, "commands", raw["commands"]) if "commands" in raw else ()
    triggers = _strings(where, "triggers", raw["triggers"]) if "triggers" in raw else ()
    files = _strings(where, "files", raw["files"]) if "files" in raw else ()
    for path in files:
        if not _FILE.match(path):
            raise CatalogueError(
                f"{where}: file '{path}' must be a file name or a folder ending in '/' "
                "(no blanks; a '.', a '/' or a capital letter)"
            )
    if not patterns and not aliases and not strict_aliases:
        aliases = (name,)
    if patterns and not triggers:
        raise CatalogueError(f"{where}: 'patterns' need 'triggers' (words that must be present)")
    for pattern in patterns:
        groups = re.compile(pattern).groups
        if groups > 1:
            raise CatalogueError(f"{where}: a pattern may capture one group at most")
        if groups == 1 and "{}" not in name:
            raise CatalogueError(f"{where}: a capturing pattern needs '{{}}' in the name")
    for alias in (*aliases, *strict_aliases, *commands):
        if not re.search(r"\w", alias):
            raise CatalogueError(f"{where}: alias '{alias}' has no letter or digit")
    for trigger in triggers:
        if not re.fullmatch(r"\w+", trigger):
            raise CatalogueError(f"{where}: trigger '{trigger}' must be one word")
    unless = raw.get("unless", role.get("unless"))
    context = raw.get("context", role.get("context"))
    return CatalogueValue(
        name=name,
        aliases=tuple(a.lower() for a in aliases),
        strict_aliases=tuple(a.lower() for a in strict_aliases),
        commands=tuple(c.lower() for c in commands),
        files=tuple(f.lower() for f in files),
        group=_text(where, "group", raw["group"]) if "group" in raw else str(role.get("group", "")),
        strict=_bool(where, "strict", raw.get("strict", role.get("strict", False))),
        context=_pattern(where, "context", context) if context is not None else None,
        unless=_pattern(where, "unless", unless) if unless is not None else None,
        not_before=tuple(
            w.lower() for w in _strings(where, "not_before", raw.get("not_before", []))
        )
        if raw.get("not_before")
        else (),
        patterns=patterns,
        triggers=tuple(t.lower() for t in triggers),
    )


def parse_role(raw: object, where: str = "role") -> Role:
    """One role entry; raises :class:`CatalogueError` naming it."""
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: a role must be a table (object)")
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise CatalogueError(
            f"{where}: 'name' must be lowercase letters, digits, '.', '+' or '-' (got {name!r})"
        )
    where = f"role '{name}'"
    unknown = sorted(set(raw) - _ROLE_KEYS)
    if unknown:
        raise CatalogueError(f"{where}: unknown key '{unknown[0]}'")
    kind = raw.get("kind", "choice")
    if kind not in KINDS:
        raise CatalogueError(f"{where}: 'kind' must be one of {', '.join(KINDS)} (got {kind!r})")
    label = _text(where, "label", raw.get("label", name.replace("-", " ")))
    labels = _strings(where, "labels", raw["labels"]) if "labels" in raw else (label,)
    label_pattern = (
        _pattern(where, "label_pattern", raw["label_pattern"]) if "label_pattern" in raw else None
    )
    subjects: tuple[str, ...] = ()
    unit = ""
    unit_words: tuple[str, ...] = ()
    values_raw = raw.get("values", [])
    numbered = _numbered(where, raw)
    if kind in ("maximum", "minimum", "default"):
        if "subjects" in raw or not (values_raw or numbered[0] or numbered[2]):
            subjects = _strings(where, "subjects", raw.get("subjects"))
        unit = raw.get("unit", "count")
        if unit not in UNIT_DIMENSIONS:
            raise CatalogueError(f"{where}: 'unit' must be one of {', '.join(UNIT_DIMENSIONS)}")
        if "unit_words" in raw:
            unit_words = tuple(w.lower() for w in _strings(where, "unit_words", raw["unit_words"]))
    elif not isinstance(values_raw, list) or not values_raw:
        raise CatalogueError(f"{where}: 'values' must be a non-empty list")
    if not isinstance(values_raw, list):
        raise CatalogueError(f"{where}: 'values' must be a list")
    values = tuple(parse_value(where, v, raw) for v in values_raw)
    products, version, keys = _version_keys(where, raw) if not numbered[2] else ((), "", ())
    heads, about, numeric_keys = numbered
    keys = keys or numeric_keys
    seen: set[str] = set()
    for value in values:
        if value.name in seen:
            raise CatalogueError(f"{where}: value '{value.name}' is listed twice")
        seen.add(value.name)
    composes = _composes(where, raw.get("composes", []), seen)
    purposes = _purposes(where, raw.get("purposes", {}))
    return Role(
        name=name,
        label=label,
        kind=kind,
        values=values,
        labels=tuple(w.lower() for w in labels),
        label_pattern=label_pattern,
        applies=str(raw.get("applies", "")),
        statement=_bool(where, "statement", raw.get("statement", False)),
        subjects=tuple(s.lower() for s in subjects),
        unit=unit,
        unit_words=unit_words,
        heads=heads,
        about=about,
        stated_kind=_bool(where, "stated_kind", raw.get("stated_kind", False)),
        products=products,
        version=version,
        keys=keys,
        composes=composes,
        purposes=purposes,
    )


def _purposes(where: str, raw: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A role's ``purposes``: a table from each purpose's name to the words naming it."""
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: 'purposes' must be a table of lists of words")
    return tuple(
        (str(name), tuple(w.lower() for w in _strings(where, "purposes", words)))
        for name, words in raw.items()
    )


def _composes(where: str, raw: object, names: set[str]) -> tuple[tuple[str, ...], ...]:
    """A role's ``composes``: lists of at least two of its value names."""
    if not isinstance(raw, list):
        raise CatalogueError(f"{where}: 'composes' must be a list of lists of value names")
    out: list[tuple[str, ...]] = []
    for entry in raw:
        members = _strings(where, "composes", entry)
        if len(members) < 2:
            raise CatalogueError(f"{where}: a 'composes' entry names at least two values")
        unknown = [m for m in members if m not in names]
        if unknown:
            raise CatalogueError(f"{where}: 'composes' names no value '{unknown[0]}'")
        out.append(members)
    return tuple(out)


def _numbered(
    where: str, raw: Mapping[str, Any]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A numeric role's ``heads`` and ``about`` (both or neither) and its configuration
    ``keys`` (see :mod:`.numbers`); all empty for other kinds."""
    numeric = raw.get("kind") in ("maximum", "minimum", "default")
    for key in ("heads", "about", "stated_kind"):
        if key in raw and not numeric:
            raise CatalogueError(f"{where}: '{key}' is for numeric roles")
    if not numeric:
        return (), (), ()
    if ("heads" in raw) != ("about" in raw):
        raise CatalogueError(f"{where}: 'heads' and 'about' go together")
    heads = (
        tuple(h.lower() for h in _strings(where, "heads", raw["heads"])) if "heads" in raw else ()
    )
    about = (
        tuple(a.lower() for a in _strings(where, "about", raw["about"])) if "about" in raw else ()
    )
    keys = tuple(k for k in _strings(where, "keys", raw["keys"])) if "keys" in raw else ()
    return heads, about, keys


def _version_keys(
    where: str, raw: Mapping[str, Any]
) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """A version role's ``products``, ``version`` and ``keys`` (all three or none of the
    first two); the version pattern may not capture."""
    if "products" not in raw and "version" not in raw:
        if "keys" in raw:
            raise CatalogueError(f"{where}: 'keys' need 'products' and 'version'")
        return (), "", ()
    if raw.get("kind") != "floor":
        raise CatalogueError(f"{where}: 'products' and 'version' are for roles of kind floor")
    products = tuple(p.lower() for p in _strings(where, "products", raw.get("products")))
    version = _pattern(where, "version", raw.get("version"))
    if re.compile(version).groups:
        raise CatalogueError(f"{where}: 'version' may not capture a group")
    keys = tuple(k.lower() for k in _strings(where, "keys", raw["keys"])) if "keys" in raw else ()
    return products, version, keys


def build(roles: Iterable[Role]) -> Catalogue:
    ordered = tuple(roles)
    return Catalogue(ordered, {r.name: r for r in ordered})


def merge(base: Catalogue, extra: Sequence[Role]) -> Catalogue:
    """``base`` with ``extra`` added: a role of a known name adds its values to that role."""
    roles = {r.name: r for r in base.roles}
    for role in extra:
        known = roles.get(role.name)
        if known is None:
            roles[role.name] = role
            continue
        names = {v.name for v in known.values}
        groups = {v.group for v in known.values}
        # a value added without a group joins the role's group when the role has only one
        shared = groups.pop() if len(groups) == 1 else ""
        added = tuple(
            v if v.group else replace(v, group=shared) for v in role.values if v.name not in names
        )
        roles[role.name] = Role(
            known.name,
            known.label,
            known.kind,
            known.values + added,
            known.labels + tuple(w for w in role.labels if w not in known.labels),
            known.label_pattern,
            known.applies,
            known.statement,
            known.subjects + tuple(s for s in role.subjects if s not in known.subjects),
            known.unit,
            known.unit_words,
            known.heads,
            known.about + tuple(a for a in role.about if a not in known.about),
            known.stated_kind,
            known.products,
            known.version,
            known.keys,
            known.composes + role.composes,
        )
    return build(roles.values())


def parse_roles(raw: object) -> tuple[list[Role], list[tuple[int, str]]]:
    """User roles (a list of role objects); the bad ones as (index, message), never raised."""
    if not isinstance(raw, list):
        return [], [(-1, "'lint.catalogue' must be a list of roles")]
    roles: list[Role] = []
    errors: list[tuple[int, str]] = []
    for index, entry in enumerate(raw):
        try:
            roles.append(parse_role(entry, f"entry {index + 1}"))
        except CatalogueError as exc:
            errors.append((index, str(exc)))
    return roles, errors


def parse_catalogue(text: str, source: str = "catalogue.toml") -> Catalogue:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{source}: {exc}") from None
    raw_roles = data.get("role")
    if not isinstance(raw_roles, list) or not raw_roles:
        raise CatalogueError(f"{source}: no [[role]] entries")
    roles = []
    names: set[str] = set()
    for index, raw in enumerate(raw_roles):
        try:
            role = parse_role(raw, f"role #{index + 1}")
        except CatalogueError as exc:
            raise CatalogueError(f"{source}: {exc}") from None
        if role.name in names:
            raise CatalogueError(f"{source}: role '{role.name}' is defined twice")
        names.add(role.name)
        roles.append(role)
    return build(roles)


@cache
def load_catalogue() -> Catalogue:
    """The catalogue shipped in the package, read and checked once."""
    text = resources.files("pi_lsp.lint").joinpath("catalogue.toml").read_text(encoding="utf-8")
    return parse_catalogue(text)
