"""``pi_lsp.js.json``: JSON and numbers as JavaScript writes them (expected texts are node's)."""

from __future__ import annotations

import pytest

from pi_lsp.js.json import (
    JsonParseError,
    escape_lone_surrogates,
    js_number,
    js_object_keys,
    js_string,
    json_stringify,
    parse_json,
)


def test_numbers_are_javascripts() -> None:
    # integral doubles from 2**53 on print their shortest digits, padded with zeros
    assert js_number(1.2345678901234568e20) == "123456789012345680000"
    assert js_number(2.0**60) == "1152921504606847000"
    # integers keep their digits below 1e21, then print as the double JavaScript holds
    assert js_number(2**60) == "1152921504606846976"
    assert js_number(10**21) == "1e+21"
    assert js_number(10**400) == "Infinity"
    assert js_number(float("nan")) == "NaN" and js_number(-float("inf")) == "-Infinity"
    assert js_number(True) == "true"
    assert json_stringify([10**400, -0.0, 1.5e-7, float("nan")]) == "[null,0,1.5e-7,null]"


def test_string_of_a_value() -> None:
    assert js_string([1, None, [2, "x"]]) == "1,,2,x"
    assert js_string(None) == "null" and js_string(False) == "false"


def test_indented_output_in_both_key_orders() -> None:
    value = {"b": [1, {}], "1": True, "a": {"x": []}}
    assert json_stringify(value, indent=2) == (
        '{\n  "1": true,\n  "b": [\n    1,\n    {}\n  ],\n  "a": {\n    "x": []\n  }\n}'
    )
    assert json_stringify(value, key_order="insertion") == '{"b":[1,{}],"1":true,"a":{"x":[]}}'
    assert js_object_keys(["b", "10", "01", "2", "4294967295", "4294967294"]) == [
        "2",
        "10",
        "4294967294",
        "b",
        "01",
        "4294967295",
    ]


def test_lone_surrogates_are_escaped_and_other_data_refused() -> None:
    assert json_stringify("a\ud800é") == '"a\\ud800é"'
    assert escape_lone_surrogates("x\udfffy") == "x\\udfffy"
    with pytest.raises(TypeError):
        json_stringify({"a": object()})
    with pytest.raises(JsonParseError):
        parse_json("[NaN]")
