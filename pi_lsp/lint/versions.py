"""Versions read as constraints: a floor ("Node 18+", "at least PHP 8.2", ``>= 3.10``, "the
minimum supported Go version is 1.22") or a pin ("Terraform 1.5.7 exactly", "Python 3.12
only", ``jvmToolchain(21)``, ``required_version = "1.5.7"``). The version code is made
with ("written against Zig 0.14", "compiles with Scala 3.3") and the one version a project
says it supports ("the app target supports iOS 15") are pins: what that code runs on,
compared with the root's floor or pin; a range or a list ("supports iOS 15 and 16") is none.

A version role of the catalogue (kind ``floor``) that names its ``products`` (the words
naming the runtime or tool) and the shape of its ``version`` number gets the patterns of
:func:`constraint_patterns`: one grammar of floors and pins around any product, so a runtime
added to the catalogue is read the same way as Node or Python. Its ``keys`` are the
configuration keys whose value is that version (``requires-python``, ``required_version``,
``"php"`` in ``composer.json``, ``jvmToolchain(``): an assignment of one in inline code
states the setting.

A constraint stated by its form is a claim by itself, like a number with its unit: nobody
writes "Node 18+" or "Terraform 1.5.7 exactly" in passing. Two constraints of one product are
compared as constraints (:func:`excludes`): two different floors conflict, two different pins
conflict, and a pin conflicts with a floor only when it is below it ("Node 18+" and "Node
22" agree, "Node 20+" and "Node 18" do not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: the group of a floor value; an exact version (a pin) has the group ""
FLOOR_GROUP = "floor"

_FLOOR_AFTER = (
    r"(?:\+|\s++or\s++(?:later|newer|above|higher|greater|anything\s++newer)\b|"
    r"\s++and\s++(?:up|above|later|newer|higher)\b|\s++at\s++(?:minimum|the\s++least)\b|"
    r"\s++(?:minimum|or\s++better)\b)"
)
_FLOOR_BEFORE = (
    r"\b(?:at\s++least|no\s++(?:older|lower|earlier)\s++than|not\s++(?:older|lower|earlier)"
    r"\s++than|minimum(?:\s++of)?|min\.?|(?:newer|later)\s++than\s++or\s++equal\s++to|"
    r"requires|required:?|needs)\s++"
)
#: marks and emphasis that may stand around a version in a clause ("Terraform **1.5.7**")
_MARKS = r"[*_`\"'\x1a]{0,3}"
_OPERATOR_FLOOR = r"(?:>=|\u2265|=>|\^|~>|~=)"


def _alternation(words: Sequence[str]) -> str:
    return "|".join(
        r"\s++".join(re.escape(part) for part in w.split())
        for w in sorted(set(words), key=len, reverse=True)
    )


def constraint_patterns(
    products: Sequence[str], version: str, keys: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """The patterns reading a floor or a pin of one product, as ``(form, pattern)``; ``form``
    is ``"floor"`` or ``"pin"`` and each pattern captures the version (``version``, a pattern
    without groups). Every repetition is possessive or bounded, so each is linear."""
    # a digit may follow the product at once ("C++20", "net8.0", "python3.12")
    name = rf"(?<![\w.-])(?:{_alternation(products)})(?![a-z_-])"
    ver = rf"v?({version})(?:\.x)?(?![\d])"
    # "22.11.1" is read as the captured prefix, the rest of its parts skipped
    tail = r"(?:\.\d++)*+"
    out = [
        # Node 18+, PHP 8.2 or newer, Go 1.22 and up, Java 17 at minimum, Python: 3.11+
        ("floor", rf"{name}\s*+(?::\s*+)?{_MARKS}{ver}{tail}{_MARKS}{_FLOOR_AFTER}"),
        # a label naming the floor: "Minimum JDK: 21", "Minimum supported Python: 3.10"
        (
            "floor",
            rf"\bmin(?:imum)?\s++(?:(?:supported|required)\s++)?{_MARKS}{name}{_MARKS}"
            rf"(?:\s++version)?\s*+:\s*+{_MARKS}{ver}",
        ),
        # Python >= 3.10, node>=22, PHP version >= 8.2, Node version must be at least 20
        (
            "floor",
            rf"{name}\s*+(?:version\s++)?(?:(?:must\s++be|is|of|should\s++be)\s++)?"
            rf"(?:{_OPERATOR_FLOOR}\s*+|at\s++least\s++){_MARKS}{ver}",
        ),
        # at least PHP 8.2, minimum Node 20
        ("floor", rf"{_FLOOR_BEFORE}{_MARKS}{name}\s*+{_MARKS}{ver}"),
        # the minimum (supported) Node version (for this package) is 22
        (
            "floor",
            rf"\b(?:min(?:imum)?|lowest|oldest)\s++(?:(?:supported|required|allowed)\s++)?"
            rf"{name}\s++version\b[^.;\d\n]{{0,40}}?{_MARKS}{ver}",
        ),
        # the minimum supported Python is 3.11: the product names its version
        (
            "floor",
            rf"\b(?:min(?:imum)?|lowest|oldest)\s++(?:(?:supported|required|allowed)\s++)?"
            rf"{_MARKS}{name}{_MARKS}\s++(?:is|=)\s++{_MARKS}{ver}{tail}{_MARKS}"
            rf"(?!\w|\.\w|\s*+(?:-|\u2013|,|/|to|through|and|or)\s)",
        ),
        # the PHP version floor is 8.3
        ("floor", rf"{name}\s++version\s++(?:floor|minimum)\b[^.;\d\n]{{0,30}}?{_MARKS}{ver}"),
        # Node.js 20 is the minimum version, Go 1.22 is the lowest we support
        (
            "floor",
            rf"{name}\s*+{_MARKS}{ver}{tail}{_MARKS}\s++is\s++(?:the\s++|our\s++)?"
            rf"(?:minimum|lowest|oldest|floor|baseline)(?:\s++(?:supported|required))?"
            rf"(?:\s++(?:version|runtime|target))?"
            # "for" only before all or every: "the baseline for the services" holds for a part
            rf"(?=\s*+(?:[.;,(:\u2014\u2013]|$|we\s++support|for\s++(?:all|every)\b|across\b|"
            rf"in\s++(?:every|all)\b))",
        ),
        # Java 17 is the target here, Go 1.22 is our target version: the one version the
        # code is made for, unless a scope or a time follows ("the target of the migration")
        (
            "pin",
            rf"{name}\s*+{_MARKS}{ver}{tail}{_MARKS}\s++is\s++(?:the\s++|our\s++)"
            rf"target(?:\s++(?:version|runtime|release))?"
            rf"(?=\s*+(?:here\b|[.;,(:\u2014\u2013]|$|across\b|in\s++(?:every|all)\b))",
        ),
        # Deno 1.46 is enough, Go 1.21 is sufficient: the oldest version that still does
        ("floor", rf"{name}\s*+{_MARKS}{ver}{tail}{_MARKS}\s++is\s++(?:enough|sufficient)\b"),
        # minimum deployment target: iOS 16.0, minimum version: Node 20
        (
            "floor",
            rf"\bmin(?:imum)?\s++(?:(?:supported|deployment|required|os)\s++)?"
            rf"(?:target|version|requirement)\s*+:?\s*+{_MARKS}{name}\s*+{_MARKS}{ver}",
        ),
        # a version line without a verb that says it holds for all the code ("Scala 2.13
        # across all modules", "Node 20 everywhere") or names a long-term release ("Unity
        # 2022.3 LTS"); a bare "- Python 3.12" may be one item of a list or a changelog
        (
            "pin",
            rf"^[^\w\x1a]*+{_MARKS}{name}\s*+{_MARKS}{ver}{tail}{_MARKS}"
            rf"(?:\s++lts\b{_MARKS}(?=\s*+(?:[;.\u2014]|$))|"
            rf"(?:\s++lts\b{_MARKS})?(?=\s++(?:(?:across|for)\s++(?:all|every)\b|"
            rf"(?:everywhere|throughout)\b(?!\s++(?:except|but|apart|save)\b))))",
        ),
        # Terraform 1.5.7 exactly, Python 3.12 only
        (
            "pin",
            rf"{name}\s*+{_MARKS}{ver}{tail}{_MARKS}\s*+(?:exactly|only)\b(?![ \t]++[a-z])",
        ),
        # exactly Terraform 1.5.7, only Python 3.12
        ("pin", rf"\b(?:exactly|only)\s++{_MARKS}{name}\s*+{_MARKS}{ver}"),
        # stay on Terraform 1.5.7, keep this module on Go 1.21, targets net8.0
        (
            "pin",
            rf"\b(?:stays?|remains?|keep\s++(?:it|this\s++\w++|them)\s++)\s*+on\s++{_MARKS}{name}"
            rf"\s*+{_MARKS}{ver}",
        ),
        ("pin", rf"\btargets?\s++{_MARKS}{name}\s*+{_MARKS}{ver}{tail}(?![\w.])"),
        # the version the code is made with: written against Zig 0.14, compiles with Scala 3.3,
        # written in Scala 3.4, developed against Unity 6; not what it "was written in"
        (
            "pin",
            rf"\b(?:(?:written|built|compiled)\s++against|compiled\s++with|"
            rf"compiles?\s++(?:with|against)|"
            rf"(?<!\bwas\s)(?<!\bwere\s)(?<!\bbeen\s)(?:written\s++in|developed\s++against))"
            rf"\s++{_MARKS}{name}\s*+{_MARKS}{ver}{tail}{_MARKS}(?!\w|\.\w|{_FLOOR_AFTER}|\s*+(?:-|\u2013|to|through|and|or)\s|"
            r"\s*+[,/]\s*+\d)",
        ),
        # the one version it is built for: compiles for Java 21, built for .NET 8 (not a list)
        (
            "pin",
            rf"\b(?:compiles?|compiled|builds?|built)\s++for\s++{_MARKS}{name}\s*+{_MARKS}{ver}"
            rf"{tail}{_MARKS}(?!\w|\.\w|{_FLOOR_AFTER}|\s*+(?:-|\u2013|to|through|and|or)\s|"
            r"\s*+[,/]\s*+\d)",
        ),
        # the app target supports iOS 15, this package supports Python 3.11: one supported
        # version named as the project's own, not a range or a floor
        (
            "pin",
            rf"\b(?:targets?|apps?|modules?|packages?|librar(?:y|ies)|projects?|services?|"
            rf"crates?)\s++supports?\s++{_MARKS}{name}\s*+{_MARKS}{ver}{tail}{_MARKS}"
            rf"(?!\w|\.\w|{_FLOOR_AFTER}|\s*+(?:-|\u2013|,|/|to|through|and|or)\s)",
        ),
        # pinned to Terraform 1.5.7, pin Node to 20
        (
            "pin",
            rf"\bpin(?:ned|s)?\s++(?:(?:to|at)\s++)?{_MARKS}{name}\s*+(?:(?:to|at)\s++)?"
            rf"{_MARKS}{ver}",
        ),
        (
            "pin",
            rf"{name}\s++(?:(?:version|toolchain|runtime|sdk|image|compiler|cli|binary)\s++)?"
            rf"(?:is\s++|are\s++)?pinned\s++(?:to|at)\s++{_MARKS}{ver}",
        ),
    ]
    calls = [k for k in keys if k.endswith("(")]
    assigned = [k for k in keys if not k.endswith("(")]
    value = rf"(?:net|v)?({version})(?![\d])"
    if assigned:
        # the key and its separator: `key = `, `"key": `, `<key>`
        names = _alternation(assigned)
        key = rf"(?<![\w.-])(?:[\"']?(?:{names})[\"']?\s*+[:=]|<(?:{names})>)"
        out.append(("floor", rf"{key}\s*+[\"']?\s*+{_OPERATOR_FLOOR}\s*+{value}"))
        out.append(("pin", rf"{key}\s*+[\"']?\s*+(?:==?\s*+)?{value}{tail}(?![\w.])"))
    if calls:
        out.append(("pin", rf"(?<![\w.-])(?:{_alternation(calls)})\s*+{value}\s*+\)"))
    return out


def normalise(version: str) -> str:
    """A version without its trailing zero parts ("1.8.0" -> "1.8", "8.0" -> "8")."""
    parts = version.split(".")
    while len(parts) > 1 and parts[-1].strip("0") == "":
        parts.pop()
    return ".".join(parts)


_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\+?$")


def _parts(value: str) -> tuple[int, ...] | None:
    found = _NUMBERED.search(value)
    if found is None:
        return None
    return tuple(int(p) for p in normalise(found.group(1)).split("."))


def excludes(floor: str, pin: str) -> bool:
    """Whether a floor value ("Node.js 20+") excludes a pinned one ("Node.js 18"): the pin is
    below the floor. A value without a number excludes nothing."""
    low, exact = _parts(floor), _parts(pin)
    if low is None or exact is None:
        return False
    common = min(len(low), len(exact))
    return exact[:common] < low[:common]


#: a word right before a version that makes it a condition, not a requirement ("on Python
#: 3.13+", "for Node 22", "under Java 21", "when running Node 20")
_CONDITION_BEFORE = re.compile(
    r"(?:^|[^\w.-])(?:on|under|for|in|when|whenever|if|running|since|until|from|as\s++of)"
    r"\s++[*_`\"'\x1a]{0,3}$",
    re.IGNORECASE,
)
#: a noun right after a version that the version only describes ("Python >=3.12 style",
#: "1.8 features", "Java 21 syntax")
_DESCRIBED_AFTER = re.compile(
    r"(?<!\s)[*_`\"'\x1a]{0,3}\s++(?:style|syntax|features?|idioms?|semantics|typing|apis?|"
    r"behaviou?r|builds?|images?|runners?|releases?|branch(?:es)?|docs|documentation|"
    r"changelog|notes|compat(?:ibility)?|support|users?|wheels?|binaries|types?|stubs?)\b",
    re.IGNORECASE,
)
#: "on" after a verb of staying states a pin, not a condition ("stay on", "keep it on"), and
#: "in" after "written" names the language the code is in ("written in Scala 3.4")
_STAY_BEFORE = re.compile(
    r"\b(?:(?:stays?|remains?|keep\s++(?:it|this\s++\w++|them))\s++on|written\s++in)"
    r"\s++[*_`\"'\x1a]{0,3}$",
    re.IGNORECASE,
)
#: "for" or "on" after a verb of compiling states the one version the code is built for
#: ("compiles for Java 21", "built for .NET 8", "builds on Rust 1.70 and later"), unless a
#: list or a range follows ("for 3.12 and 3.13")
_BUILT_FOR_BEFORE = re.compile(
    r"\b(?:compiles?|compiled|builds?|built)\s++(?:for|on)\s++[*_`\"'\x1a]{0,3}$",
    re.IGNORECASE,
)
_LIST_AFTER = re.compile(
    r"(?<!\s)(?:\.\d++)*+[*_`\"'\x1a]{0,3}\s*+(?:,|/|-|\u2013|\+|to\b|through\b|and\b|or\b)",
    re.IGNORECASE,
)
#: how far before a version :func:`is_requirement` looks for a condition word
_BEFORE_WINDOW = 24


def is_requirement(text: str, start: int, end: int) -> bool:
    """Whether the version found at ``text[start:end]`` states what the project requires,
    not a condition ("on Python 3.13+ use …") or a description of something else ("Python
    >=3.12 style hints", "may use 1.8 features")."""
    if _CONDITION_BEFORE.search(text, max(0, start - _BEFORE_WINDOW), start):
        window = max(0, start - 2 * _BEFORE_WINDOW)
        built_for = _BUILT_FOR_BEFORE.search(text, window, start) is not None
        if built_for and _LIST_AFTER.match(text, end) is not None:
            return False
        if not built_for and _STAY_BEFORE.search(text, window, start) is None:
            return False
    return _DESCRIBED_AFTER.match(text, end) is None
