"""``pi-lsp check --fail-on LEVEL``: which severities make the check fail (exit 1).

Kept free of heavy imports: the CLI builds its ``--fail-on`` choices from it at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable

#: The levels a user may name, most severe first; ``never`` fails on nothing.
FAIL_ON_LEVELS = ("error", "warning", "info", "hint", "never")
DEFAULT_FAIL_ON = "warning"

#: Each level and the diagnostic severities at or above it.
_FAILING_SEVERITIES = {
    "error": frozenset({"error"}),
    "warning": frozenset({"error", "warning"}),
    "info": frozenset({"error", "warning", "information"}),
    "hint": frozenset({"error", "warning", "information", "hint"}),
    "never": frozenset[str](),
}


def fails(severities: Iterable[str], level: str) -> bool:
    """Whether one of ``severities`` is at or above ``level`` (one of :data:`FAIL_ON_LEVELS`)."""
    failing = _FAILING_SEVERITIES[level]
    return any(severity in failing for severity in severities)
