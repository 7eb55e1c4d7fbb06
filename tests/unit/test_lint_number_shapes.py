"""Numbers and process values in the shapes a plain reading misses: a number wrapped onto the
next line of its paragraph, a bound stated by negating a comparison, a count written as "a
single", a kind of limit its unit names, a rate bounded by its unit alone."""

from __future__ import annotations

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts


def picks(clause: str) -> set[tuple[str, str, str]]:
    return {(c.dimension, c.value, c.stance) for c in read_choices(clause)}


def pair(root: str, child: str, path: str = "services/api/AGENTS.md") -> list[str]:
    """The dimensions of the conflicts between a root file and a folder's file."""
    findings = find_conflicts([("AGENTS.md", root + "\n"), (path, child + "\n")])
    return [str(f.data.get("dimension")) for f in findings if f.rule == "conflicting-instructions"]


def test_a_number_wrapped_onto_the_next_line_of_its_paragraph_is_read() -> None:
    wrapped = "Outbound requests to the providers time out after\n10 seconds; slower is an outage."
    assert picks(wrapped) == {("http-timeout", "10 s", "prefer")}
    assert pair("Outbound HTTP requests time out after 30 s.", wrapped) == ["http-timeout"]
    # the same value in another unit, wrapped, is no conflict
    assert pair("Outbound HTTP requests time out after 10000 ms.", wrapped) == []
    # a wrapped description stays one
    assert picks("Outbound requests usually time out after\n10 seconds.") == set()
