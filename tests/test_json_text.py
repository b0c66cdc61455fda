"""engine/json_text.py: JSON text every engine and command writes: never ``NaN`` or ``Infinity``
(written as null, with a warning naming where), numpy scalars as their Python values, an int of
any size as its digits, anything else JSON cannot write as its text."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from engine.json_text import finite_json, json_default, json_text


def strict(text: str):
    """``json.loads`` that refuses NaN / Infinity (not JSON)."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_finite_values_are_json_dumps_and_no_warning(capsys):
    obj = {"a": 1, "b": [1.5, -0.0, 1e308], "c": "é\"", "d": None, "e": True, "f": {"g": []}}
    assert json_text(obj) == json.dumps(obj)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_is_null_with_a_warning_naming_where_and_what(bad, capsys):
    text = json_text({"x": {"y": [1, bad]}, "z": 2}, "line 7")
    assert text == '{"x": {"y": [1, null]}, "z": 2}'
    err = capsys.readouterr().err
    assert err == f"cep: warning: line 7: x.y[1] = {bad!r} written as null (JSON has no Infinity or NaN)\n"


def test_the_warning_names_the_first_five_and_says_a_row_by_default(capsys):
    assert strict(json_text([math.nan] * 7)) == [None] * 7
    err = capsys.readouterr().err
    assert err.startswith("cep: warning: a row: [0] = nan, ") and err.count("= nan") == 5 and "[4] = nan" in err
    assert "[5]" not in err


def test_numpy_scalars_are_written_as_python_values(capsys):
    obj = {"i": np.int64(3), "f": np.float32(0.5), "b": np.bool_(True), "u": np.uint8(255), "d": np.float64(2.25)}
    assert strict(json_text(obj)) == {"i": 3, "f": 0.5, "b": True, "u": 255, "d": 2.25}
    assert capsys.readouterr().err == ""


def test_numpy_non_finite_numbers_are_null_too(capsys):
    with np.errstate(invalid="ignore"):
        text = json_text({"a": np.float64("nan"), "b": [np.float32("inf")], "c": np.int64(1)}, "a match")
    assert strict(text) == {"a": None, "b": [None], "c": 1}
    err = capsys.readouterr().err
    assert "a match" in err and "a = " in err and "b[0] = " in err


def test_an_int_too_long_for_str_is_written_as_its_digits():
    n = 10**5000 + 7  # 5,001 digits: str() refuses more than 4,300
    text = json_text({"n": n, "m": [-n]})
    got = strict(text)
    assert got["n"] == "1" + "0" * 4996 + "0007" and got["m"] == ["-1" + "0" * 4996 + "0007"]
    small = 10**4000  # within str's limit: a JSON number
    assert json_text({"n": small}) == '{"n": 1' + "0" * 4000 + "}"


def test_an_int_too_long_and_a_nan_in_one_value(capsys):
    got = strict(json_text([3**10000, math.nan], "row 2"))
    n = 3**10000  # 4,772 digits
    assert got[1] is None and len(got[0]) == 4772 and got[0][-12:] == f"{n % 10**12:012d}"
    assert got[0][:12] == f"{n // 10**4760}"
    assert "row 2: [1] = nan" in capsys.readouterr().err


def test_finite_json_gives_the_clean_value_and_the_paths_replaced():
    assert finite_json({"a": (1, math.inf), "b": {"c": -math.inf}}) == (
        {"a": [1, None], "b": {"c": None}}, ["a[1] = inf", "b.c = -inf"])
    assert finite_json(math.nan) == (None, ["value = nan"])
    assert finite_json([True, 2, "x"]) == ([True, 2, "x"], [])


def test_what_json_cannot_write_is_written_as_its_text():
    assert json_default(Fraction(1, 3)) == "1/3"
    assert json_default(np.int16(4)) == 4 and type(json_default(np.int16(4))) is int
    assert json_text({"f": Fraction(2, 4), "s": {1}}) == '{"f": "1/2", "s": "{1}"}'
