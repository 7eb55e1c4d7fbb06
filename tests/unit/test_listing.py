"""Helpers shared by grep, find and ls: notices, the 50 KiB cap, JavaScript number text."""

from __future__ import annotations

import pytest

from pi_lsp.js.json import as_js_number, js_number
from pi_lsp.tools.listing import append_notices, cap_output


def test_notices_share_one_bracket_after_a_blank_line() -> None:
    assert append_notices("a\nb", []) == "a\nb"
    assert append_notices("a", ["first", "second"]) == "a\n\n[first. second]"


def test_cap_keeps_whole_lines_without_a_line_limit() -> None:
    small = cap_output("x\n" * 5000)
    assert not small.truncated
    big = cap_output(("y" * 99 + "\n") * 1000)
    assert big.truncated and big.truncated_by == "bytes" and big.output_lines == 512


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, "3"),
        (3.0, "3"),
        (2.5, "2.5"),
        (0.1, "0.1"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (-2.5, "-2.5"),
    ],
)
def test_js_number(value: float, expected: str) -> None:
    assert js_number(value) == expected


def test_integral_floats_become_ints_in_details() -> None:
    assert as_js_number(3.0) == 3 and isinstance(as_js_number(3.0), int)
    assert as_js_number(2.5) == 2.5
