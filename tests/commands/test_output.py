"""engine/commands/output.py: the four output formats of ``cep run`` (``table``, ``jsonl``,
``csv``, ``count``) byte for byte on matches written by hand, for point matches and interval
signatures; ``match_json``'s text built from parts against ``json.dumps`` of ``to_json()`` (its
fast path); a match's own JSON text; the table's row cap."""
from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from fractions import Fraction

import pytest

from engine.commands.output import FORMATS, MatchWriter, format_matches, format_number, match_json
from engine.engines.uncertain.result import UncertainMatch
from engine.match import Match


def match(start, end, **ids) -> Match:
    return Match(bindings=tuple((v, tuple(x)) for v, x in ids.items()), start=start, end=end,
                 start_seq=0, end_seq=0)


M1 = match(1, 5.0, a=[1], b=[2, 3])
M2 = match(2.5, 12, a=[10], b=[11])


def written(matches, fmt: str, variables=("a", "b"), **options) -> str:
    out = io.StringIO()
    format_matches(matches, fmt, out, list(variables), **options)
    return out.getvalue()


def strict(text: str):
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


# --------------------------------------------------------------------------- the four formats

def test_formats():
    assert FORMATS == ("table", "jsonl", "csv", "count")


def test_jsonl_is_one_to_json_per_line():
    assert written([M1, M2], "jsonl") == (
        '{"match": {"a": [1], "b": [2, 3]}, "start": 1, "end": 5.0}\n'
        '{"match": {"a": [10], "b": [11]}, "start": 2.5, "end": 12}\n')


def test_csv_has_a_header_and_ids_joined_by_spaces():
    got = written([M1, M2, match(3, 4, a=[7])], "csv")
    assert got == ("match,start,end,a,b\r\n"
                   "1,1,5.0,1,2 3\r\n"
                   "2,2.5,12,10,11\r\n"
                   "3,3,4,7,\r\n")  # b bound nothing


def test_count_is_the_number_of_matches():
    assert written([M1, M2, M1], "count") == "3\n"
    assert written([], "count") == "0\n"


def test_table_lines_columns_up_and_prints_whole_floats_as_ints():
    assert written([M1, M2], "table") == (
        "#  start  end  a   b\n"
        "1  1      5    1   2,3\n"
        "2  2.5    12   10  11\n"
        "(2 matches)\n")
    assert written([M1], "table").endswith("(1 match)\n")
    assert written([], "table") == "#  start  end  a  b\n(0 matches)\n"


def test_an_unknown_format_is_a_table():
    assert written([M1], "html") == written([M1], "table")


def test_the_table_shows_its_first_rows_and_counts_the_rest():
    out = io.StringIO()
    w = MatchWriter("table", out, ["a", "b"], table_max_rows=2)
    for m in (M1, M2, M1, M2, M1):
        w.write(m)
    assert out.getvalue() == ""  # held until close, to line the columns up
    w.close()
    lines = out.getvalue().splitlines()
    assert [ln.split()[0] for ln in lines[1:3]] == ["1", "2"] and w.count == 5
    assert lines[3] == ("... 3 more not shown: the table shows the first 2 matches; "
                        "use --format jsonl (or csv) --out FILE for all of them")
    assert lines[4] == "(5 matches)"


def test_jsonl_and_csv_lines_are_written_as_each_match_comes():
    for fmt, first in [("jsonl", '{"match": {"a": [1], "b": [2, 3]}, "start": 1, "end": 5.0}\n'),
                       ("csv", "match,start,end,a,b\r\n1,1,5.0,1,2 3\r\n")]:
        out = io.StringIO()
        w = MatchWriter(fmt, out, ["a", "b"])
        w.write(M1)
        assert out.getvalue() == first, fmt


# --------------------------------------------------------------------------- interval signatures

SIGNATURE = UncertainMatch(bindings=(("a", ("x1",)), ("b", ("y2",))), start=1, end=4, start_seq=0, end_seq=1,
                           range=(1, 4), confidence=Fraction(1, 3))


def test_signatures_in_every_format():
    assert strict(written([SIGNATURE], "jsonl", uncertain=True)) == {
        "match": {"a": ["x1"], "b": ["y2"]}, "range": [1, 4], "confidence": 1 / 3, "confidence_exact": "1/3"}
    assert written([SIGNATURE], "csv", uncertain=True) == (
        "match,range_lo,range_hi,confidence,confidence_exact,a,b\r\n"
        f"1,1,4,{1 / 3!r},1/3,x1,y2\r\n")
    assert written([SIGNATURE], "table", uncertain=True) == (
        "#  range   confidence    a   b\n"
        "1  [1, 4]  0.3333 (1/3)  x1  y2\n"
        "(1 signature)\n")
    assert written([SIGNATURE, SIGNATURE], "table", uncertain=True).endswith("(2 signatures)\n")
    assert written([SIGNATURE, SIGNATURE], "count", uncertain=True) == "2\n"


# --------------------------------------------------------------------------- match_json

@pytest.mark.parametrize("m", [
    M1, M2,
    match(0, 0),  # no variables
    match(-3, 7, a=["é", 'q"uote', "back\\slash"], b=[None, True, 1.25]),
    match(10**30, 10**30 + 1, a=[2**70], b=[-0.0]),
    match(1.0, 2.0, optional=[], a=[1]),
])
def test_match_json_built_from_parts_equals_json_dumps(m):
    assert match_json(m) == json.dumps(m.to_json())


def test_match_json_writes_non_finite_numbers_as_null_with_a_warning(capsys):
    assert strict(match_json(match(1, math.inf, a=[1]))) == {"match": {"a": [1]}, "start": 1, "end": None}
    assert "written as null" in capsys.readouterr().err
    assert strict(match_json(match(1, 2, a=[math.nan, 3]))) == {"match": {"a": [None, 3]}, "start": 1, "end": 2}
    assert "an event id" in capsys.readouterr().err


def test_match_json_of_an_id_json_cannot_write_is_its_text():
    assert strict(match_json(match(1, 2, a=[Fraction(1, 2)]))) == {"match": {"a": ["1/2"]}, "start": 1, "end": 2}


@dataclass(frozen=True, slots=True)
class TextMatch(Match):
    """A match that carries its own JSON text (as NFA^b's path matches do); ``text`` None: none."""

    text: str | None = None

    def json_text(self) -> str | None:
        return self.text


def test_a_match_with_its_own_json_text_is_written_as_that_text():
    own = TextMatch(bindings=(("a", (1,)),), start=1, end=1, start_seq=0, end_seq=0,
                    text='{"match": {"a": [1]}, "start": 1, "end": 1}')
    assert match_json(own) == own.text
    assert written([own], "jsonl", ["a"]) == own.text + "\n"
    without = TextMatch(bindings=(("a", (1,)),), start=1, end=1, start_seq=0, end_seq=0)
    assert match_json(without) == json.dumps(without.to_json())


def test_format_number():
    assert [format_number(v) for v in (6.0, 6.5, 7, -2.0, "x", None)] == ["6", "6.5", "7", "-2", "x", "None"]
