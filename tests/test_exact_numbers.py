"""Exact numbers or a clear refusal (docs/semantics.md, "Exact numbers"): interval bounds
and pmf weights read exactly, confidences printed whatever their size, A-Seq SUM/AVG exact
and equal to the baseline, no NaN/Infinity written as JSON, a short CSV record refused
with its line on every reader."""
from __future__ import annotations

import json
import math
import time
from fractions import Fraction
from unittest import mock

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.engines.aseq.engine import rows_for
from engine.engines.aseq.values import ExactFloat, NonFiniteValue, TooLarge, exact_term, finish, plain_number, Val
from tests.support import run
from engine.dsl import parse
from engine.events import BatchReader, ColumnMapping, DataError, load_events, make_stream
from engine.events.numbers import MAX_NUMBER_DIGITS, NumberLimit, exact_number, int_text
from engine.events.small_csv import read_small_csv
from engine.commands.output import finite_json, json_text, match_json
from engine.engines.uncertain.pmf import PmfError, parse_pmf
from engine.engines.uncertain.result import exact_text
from tests import aseq_util
from tests.engines.aseq.test_properties import patterns

IV = ["--lower-col", "lower", "--upper-col", "upper"]
T1_ROWS = [("A", "a1", 1, 5), ("C", "c2", 3, 5), ("B", "b3", 3, 5), ("C", "c4", 4, 8)]
T1 = "PATTERN SEQ(A a, B b, C c) WITHIN 5"


def strict_json(line: str):
    """``json.loads`` that refuses Infinity / NaN (not JSON)."""
    def no_constant(name):
        raise AssertionError(f"{name} written as JSON")
    return json.loads(line, parse_constant=no_constant)


def interval_csv(tmp_path, rows, shift=0, name="iv.csv", extra=""):
    p = tmp_path / name
    p.write_text("type,id,lower,upper" + extra + "\n"
                 + "".join(f"{t},{i},{lo + shift},{hi + shift}\n" for t, i, lo, hi in rows), encoding="utf-8")
    return str(p)


def signatures(out: str):
    return [strict_json(line) for line in out.splitlines()]


# --------------------------------------------------------------------------- exact_number

def test_exact_number_keeps_ints_and_reads_decimal_text_exactly():
    assert exact_number("9007199254740993") == 2**53 + 1
    assert exact_number(2**200) == 2**200
    assert exact_number("3.0") == 3 and type(exact_number("3.0")) is int
    assert exact_number("0.1") == Fraction(1, 10)
    assert exact_number("1e300") == 10**300
    assert exact_number("-2.5e-3") == Fraction(-1, 400)
    assert exact_number("1/3") == Fraction(1, 3)
    assert exact_number(0.5) == Fraction(1, 2)
    with pytest.raises(NumberLimit, match="2\\*\\*53"):
        exact_number(1e300)  # a float this large is not a known integer
    with pytest.raises(NumberLimit):
        exact_number(math.inf)
    for bad in ("abc", "1e", "inf", "1/0", ""):
        with pytest.raises(ValueError):
            exact_number(bad)


@pytest.mark.parametrize("text", ["1e99999999", "1e4301", "1e-4301", "7" * (MAX_NUMBER_DIGITS + 1), "1/" + "3" * 5000])
def test_exact_number_refuses_beyond_the_digit_limit_at_once(text):
    t0 = time.perf_counter()
    with pytest.raises(NumberLimit):
        exact_number(text)
    assert time.perf_counter() - t0 < 0.5


def test_int_text_prints_any_size_without_the_process_limit():
    import sys

    n = 7**20000  # about 16,900 digits: str(n) refuses it by default
    with pytest.raises(ValueError):
        str(n)
    text = int_text(n)
    assert len(text) > 16000 and int(text[:50]) == n // 10 ** (len(text) - 50)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert text == str(n) and int_text(-n) == "-" + str(n)
    finally:
        sys.set_int_max_str_digits(old)
    assert sys.get_int_max_str_digits() == old
    assert exact_text(Fraction(1, n)) == "1/" + text


# --------------------------------------------------------------------------- interval bounds

def test_events_shifted_by_2_53_give_the_same_signatures(tmp_path, capsys):
    shift = 2**53
    rc, out, _ = run(capsys, "run", T1, "--data", interval_csv(tmp_path, T1_ROWS), *IV, "--format", "jsonl")
    assert rc == 0
    ref = signatures(out)
    assert len(ref) == 2
    rc, out, _ = run(capsys, "run", T1, "--data", interval_csv(tmp_path, T1_ROWS, shift, "s.csv"), *IV,
                     "--format", "jsonl")
    assert rc == 0
    got = signatures(out)
    assert [(g["match"], [r - shift for r in g["range"]], g["confidence_exact"]) for g in got] == \
        [(r["match"], r["range"], r["confidence_exact"]) for r in ref]


@pytest.mark.parametrize("fmt, shift", [("jsonl", 2**53 + 7), ("jsonl", 2**70), ("parquet", 2**53 + 7)])
def test_shifted_bounds_are_exact_in_json_lines_and_parquet(tmp_path, fmt, shift):
    """(pyarrow's JSON reader reads an integer beyond int64 as a double: such files are read
    by the exact Python reader)"""
    rows = [{"type": t, "id": i, "lower": lo + shift, "upper": hi + shift} for t, i, lo, hi in T1_ROWS]
    path = tmp_path / f"iv.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        pd.DataFrame(rows).to_parquet(path)
    res = load_events(str(path), ColumnMapping(lower_col="lower", upper_col="upper"))
    assert [(e.lower, e.upper) for e in res.events] == \
        sorted([(lo + shift, hi + shift) for _t, _i, lo, hi in T1_ROWS], key=lambda b: b[0])
    assert all(type(e.lower) is int and type(e.upper) is int and e.ts == e.lower for e in res.events)
    if fmt == "jsonl":
        batched = [e for b in BatchReader(str(path), ColumnMapping(lower_col="lower", upper_col="upper"),
                                          batch_rows=2) for e in b.events]
        assert sorted((e.lower, e.upper) for e in batched) == sorted((e.lower, e.upper) for e in res.events)


def test_bounds_beyond_2_64_stay_ints_and_order_exactly(tmp_path):
    big = 10**40
    p = tmp_path / "big.csv"
    p.write_text(f"type,id,lower,upper\nA,1,{big + 2},{big + 3}\nB,2,{big + 1},{big + 4}\n")
    res = load_events(str(p), ColumnMapping(lower_col="lower", upper_col="upper"))
    assert [(e.id, e.lower, e.upper) for e in res.events] == [(2, big + 1, big + 4), (1, big + 2, big + 3)]
    assert not res.report.sorted_by_ts  # sorted by the exact lower bound, not a float tie


def test_bounds_beyond_the_float_range_are_exact_ints_on_every_engine(tmp_path, capsys):
    shift = 10**400  # float64 cannot hold it at all
    ref = None
    for engine in ("uncertain-event", "uncertain-point", "uncertain-oracle"):
        rc, out, err = run(capsys, "run", T1, "--data", interval_csv(tmp_path, T1_ROWS, shift, "h.csv"), *IV,
                           "--format", "jsonl", "--engine", engine)
        assert rc == 0, err
        got = [(g["match"], [r - shift for r in g["range"]], g["confidence_exact"]) for g in signatures(out)]
        assert ref is None or got == ref
        ref = got
    assert len(ref) == 2
    p = tmp_path / "late.csv"
    p.write_text(f"type,id,lower,upper\nA,1,{shift + 5},{shift + 6}\nB,2,{shift + 1},{shift + 2}\n")
    rc, out, err = run(capsys, "run", T1, "--data", str(p), *IV)
    assert rc == 2 and "line 3 (data row 2), column upper: upper bound 10000000000000000000…00000002 (401 digits) " \
                       "is before the lower bound 10000000000000000000…00000005 (401 digits)" in err


def test_upper_1e300_is_the_exact_decimal_not_the_float_expansion(tmp_path, capsys):
    pattern = "PATTERN SEQ(A a, B b) WITHIN 5"

    def confidence(upper: str) -> Fraction:
        p = tmp_path / f"u{len(upper)}.csv"
        p.write_text(f"type,id,lower,upper\nA,a1,1,5\nB,b1,3,{upper}\n")
        rc, out, err = run(capsys, "run", pattern, "--data", str(p), *IV, "--format", "jsonl")
        assert rc == 0, err
        (sig,) = signatures(out)
        return Fraction(sig["confidence_exact"])

    # b is uniform over upper - 2 instants; the window admits the same pairs whatever the upper
    assert confidence("1e300") * (10**300 - 2) == confidence("1000") * 998


def test_a_float_bound_too_large_to_be_exact_is_refused_with_its_line(tmp_path, capsys):
    p = tmp_path / "f.jsonl"
    p.write_text('{"type": "A", "id": 1, "lower": 1, "upper": 5}\n{"type": "B", "id": 2, "lower": 3, "upper": 1e300}\n')
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 5", "--data", str(p), *IV)
    assert rc == 2 and out == ""
    assert "line 2" in err and "column upper" in err and "2**53" in err


def test_a_bound_beyond_the_digit_limit_is_refused_with_its_line(tmp_path, capsys):
    p = tmp_path / "d.csv"
    p.write_text(f"type,id,lower,upper\nA,1,1,5\nB,2,3,1e5000\n")
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 5", "--data", str(p), *IV)
    assert rc == 2 and out == "" and "line 3" in err and "column upper" in err


# --------------------------------------------------------------------------- pmf weights

def test_a_pmf_cell_with_a_huge_exponent_is_refused_at_once_with_its_line(tmp_path, capsys):
    p = tmp_path / "pmf.csv"
    p.write_text("type,id,lower,upper,pmf\nA,a1,1,3,1e99999999 1 1\nB,b1,3,5,\n")
    t0 = time.perf_counter()
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 5", "--data", str(p), *IV, "--pmf-col", "pmf")
    assert time.perf_counter() - t0 < 10
    assert rc == 2 and out == ""
    assert "line 2 (data row 1), column pmf: pmf weight '1e99999999'" in err
    with pytest.raises(PmfError, match="exponent"):
        parse_pmf("1e99999999 1 1", 1, 3)


def _primes(n):
    out, k = [], 2
    while len(out) < n:
        if all(k % p for p in out if p * p <= k):
            out.append(k)
        k += 1
    return out


def test_weights_one_over_many_primes_print_their_exact_confidence(tmp_path, capsys):
    ps = _primes(1500)
    p = tmp_path / "primes.csv"
    p.write_text("type,id,lower,upper,pmf\nA,a1,1,1500," + " ".join(f"1/{q}" for q in ps) + "\nB,b1,750,750,\n")
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", str(p), *IV, "--pmf-col", "pmf",
                       "--format", "jsonl")
    assert rc == 0, err
    (sig,) = signatures(out)
    want = sum(Fraction(1, q) for q in ps[:749]) / sum(Fraction(1, q) for q in ps)
    num, den = sig["confidence_exact"].split("/")
    assert len(den) > 4300  # past str()'s default limit
    assert Fraction(int_from(num), int_from(den)) == want
    assert sig["confidence"] == float(want)
    for fmt in ("table", "csv"):
        rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", str(p), *IV, "--pmf-col", "pmf",
                           "--format", fmt)
        assert rc == 0 and den in out


def int_from(text: str) -> int:
    """int() of a long digit string without the process-wide limit."""
    value = 0
    for k in range(0, len(text), 1000):
        chunk = text[k:k + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


# --------------------------------------------------------------------------- A-Seq exact

REPRO = [("C", 1, 1e17), ("D", 1, 0), ("C", 3, 1e16), ("C", 5, 3), ("D", 6, 0), ("C", 6, 1), ("C", 8, 3)]


def test_aseq_sum_subtracts_exactly_on_expiry():
    """The repro: after 1e17 and 1e16 leave the window, SUM is 1 + 3 = 4 (A-Seq said 3.0)."""
    p = parse("PATTERN SEQ(D v0, C v1) AGG SUM(v1.x) WITHIN 6")
    ev = make_stream([{"id": i, "type": t, "ts": ts, "x": x} for i, (t, ts, x) in enumerate(REPRO)])
    results = {e: [r.value for r in rows_for(p, ev, e)] for e in ("aseq", "aseq-baseline", "nfab")}
    assert results["aseq"][-1] == 4 and type(results["aseq"][-1]) is int  # only ints are left
    assert results["aseq"] == results["aseq-baseline"] == results["nfab"]
    assert [type(v) for v in results["aseq"]] == [type(v) for v in results["aseq-baseline"]]


def test_exact_float_sums_and_prints_the_nearest_float():
    s = 0
    for x in (0.1, 0.2, 0.3):
        s = s + exact_term(x)
    assert plain_number(s) == float(Fraction(0.1) + Fraction(0.2) + Fraction(0.3)) == 0.6
    assert 0.1 + 0.2 + 0.3 == 0.6000000000000001  # the float sum, rounded at every step
    assert plain_number(s - exact_term(0.1) - exact_term(0.2)) == 0.3
    big = exact_term(1e308) + exact_term(1e308)
    assert isinstance(plain_number(big), TooLarge)
    assert finish("AVG", "number", Val(2, big, 2)) == 1e308
    assert finish("AVG", "number", Val(3, 10, 3)) == 10 / 3
    with pytest.raises(NonFiniteValue):
        exact_term(math.inf)
    assert type(plain_number(exact_term(2.0) + 3 - exact_term(2.0))) is int


VALUES = st.one_of(
    st.integers(-6, 6),
    st.integers(-10**30, 10**30),
    st.sampled_from([1e17, 1e16, -1e17, 3.0, 0.1, 0.2, -2.5, 1e-300, 2.0**60, 9007199254740993.0, 1e300]),
    st.floats(-1e20, 1e20, allow_nan=False, allow_infinity=False),
)


@st.composite
def number_streams(draw, max_len: int = 12):
    n = draw(st.integers(0, max_len))
    rows, ts = [], 0
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 1, 2]))
        rows.append({"id": i, "type": draw(st.sampled_from(["A", "B", "C", "A", "B", "D"])), "ts": ts,
                     "x": draw(VALUES), "y": draw(st.sampled_from([None, 1, 2])),
                     "k": draw(st.integers(0, 1)), "g": draw(st.sampled_from(["u", "v"]))})
    return make_stream(rows)


def _exact_sum(values, start=0):
    return sum((Fraction(v) if isinstance(v, float) else v for v in values), start)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), number_streams())
def test_aseq_equals_the_baseline_exactly_on_huge_and_small_numbers(data, ev):
    text = data.draw(patterns())
    p = parse(text)
    a = rows_for(p, ev, "aseq")
    b = rows_for(p, ev, "aseq-baseline")
    assert [(r.event, r.group, r.value, type(r.value)) for r in a] == \
        [(r.event, r.group, r.value, type(r.value)) for r in b], text
    with mock.patch.object(aseq_util, "sum", _exact_sum, create=True):
        want = aseq_util.expected_rows(p, ev)
    assert [(r.event, r.group) for r in a] == [(w[0], w[1]) for w in want]
    for r, (_e, _g, value) in zip(a, want):
        if isinstance(value, Fraction):  # SUM/AVG: the float nearest the exact value (an int for ints)
            assert r.value == float(value) or r.value == value, (text, r.value, value)
        else:
            assert r.value == value, (text, r.value, value)
    ca = rows_for(p, ev, "aseq", emit="changes")
    cb = rows_for(p, ev, "aseq-baseline", emit="changes")
    assert [(r.ts, r.event, r.group, r.value) for r in ca] == [(r.ts, r.event, r.group, r.value) for r in cb]


# --------------------------------------------------------------------------- no NaN / Infinity in JSON

def test_sum_overflow_is_null_with_a_warning_naming_the_row(tmp_path, capsys):
    p = tmp_path / "o.csv"
    p.write_text("type,id,ts,x\nD,1,1,0\nC,2,2,1e308\nC,3,3,1e308\n")
    for engine in ("aseq", "aseq-baseline"):
        rc, out, err = run(capsys, "run", "PATTERN SEQ(D v0, C v1) AGG SUM(v1.x) WITHIN 6", "--data", str(p),
                           "--engine", engine, "--format", "jsonl")
        assert rc == 0
        rows = [strict_json(line) for line in out.splitlines()]
        assert [r["value"] for r in rows] == [1e308, None]
        assert "row 2 (ts 3.0, event 3)" in err and "null" in err
    out_pq = tmp_path / "o.parquet"
    rc, _, err = run(capsys, "run", "PATTERN SEQ(D v0, C v1) AGG SUM(v1.x) WITHIN 6", "--data", str(p),
                     "--out", str(out_pq))
    assert rc == 0 and pd.read_parquet(out_pq)["value"].isna().tolist() == [False, True]


@pytest.mark.parametrize("func", ["SUM", "AVG", "MAX"])
def test_an_infinite_aggregated_value_is_refused(tmp_path, capsys, func):
    p = tmp_path / "inf.jsonl"
    p.write_text('{"type":"D","id":1,"ts":1,"x":0}\n{"type":"C","id":2,"ts":2,"x":Infinity}\n'
                 '{"type":"C","id":3,"ts":3,"x":-Infinity}\n')
    for engine in ("aseq", "aseq-baseline"):
        rc, out, err = run(capsys, "run", f"PATTERN SEQ(D v0, C v1) AGG {func}(v1.x) WITHIN 6", "--data", str(p),
                           "--engine", engine, "--format", "jsonl")
        assert rc == 2 and "Infinity" not in out and "NaN" not in out
        assert "inf" in err and "not a finite number" in err


def test_an_infinite_id_is_refused_with_its_line(tmp_path, capsys):
    p = tmp_path / "id.jsonl"
    p.write_text('{"type":"A","id":1,"ts":1}\n{"type":"B","id":Infinity,"ts":2}\n{"type":"B","id":3,"ts":3}\n')
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", str(p), "--format", "jsonl")
    assert rc == 2 and "line 2, column id: id inf is not a finite number" in err
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", str(p), "--format", "jsonl",
                       "--skip-bad-rows")
    assert rc == 0 and [strict_json(x)["match"] for x in out.splitlines()] == [{"a": [1], "b": [3]}]


def test_json_text_writes_null_for_non_finite_numbers_with_a_warning(capsys):
    assert json_text({"a": [1.5, math.inf], "b": math.nan, "c": 2}, "row 7") == \
        '{"a": [1.5, null], "b": null, "c": 2}'
    err = capsys.readouterr().err
    assert "row 7" in err and "a[1] = inf" in err and "b = nan" in err
    assert finite_json([1, -math.inf]) == ([1, None], ["[1] = -inf"])
    from engine.match import Match

    m = Match(bindings=(("a", (math.inf,)),), start=1.0, end=2.0, start_seq=0, end_seq=0)
    assert strict_json(match_json(m)) == {"match": {"a": [None]}, "start": 1.0, "end": 2.0}


# --------------------------------------------------------------------------- short CSV records

SHORT = "type,id,ts,symbol,price,volume\nStock,1,1,IBM,10,5\nStock,2,2,IBM,11\nStock,3,3,IBM,12,7\n"
MESSAGE = "expected 6 fields in line 3, saw 5: 'Stock,2,2,IBM,11'"


def test_a_short_record_is_refused_by_the_small_csv_path(tmp_path):
    p = tmp_path / "short.csv"
    p.write_text(SHORT)
    assert read_small_csv(p) is None  # not read with missing cells: the pandas path names the line
    with pytest.raises(DataError, match=MESSAGE):
        load_events(str(p))


def test_a_short_record_is_refused_by_the_pandas_path(tmp_path):
    p = tmp_path / "short.csv"
    p.write_text(SHORT.replace("IBM,10", '"IBM",10'))  # a quote: read with pandas
    assert read_small_csv(p) is None
    with pytest.raises(DataError, match="expected 6 fields in line 3, saw 5"):
        load_events(str(p))


def test_a_short_record_is_refused_when_read_in_batches(tmp_path, capsys):
    p = tmp_path / "short.csv"
    p.write_text(SHORT)
    with pytest.raises(DataError, match=MESSAGE):
        for _ in BatchReader(str(p), batch_rows=1):
            pass
    for read in ("batches", "whole"):
        rc, out, err = run(capsys, "run", "PATTERN SEQ(Stock a, Stock b) WHERE b.volume > 0", "--data", str(p),
                           "--read", read)
        assert rc == 2 and out == "" and MESSAGE in err


def test_full_records_and_blank_lines_still_load(tmp_path):
    p = tmp_path / "ok.csv"
    p.write_text("type,ts,x\nA,1,2\n\nB,2,\n")
    res = load_events(str(p))
    assert [(e.type, e.attrs) for e in res.events] == [("A", {"x": 2}), ("B", {})]


def test_a_big_integer_next_to_decimals_stays_an_exact_int(tmp_path):
    """A float64 column would round 2**53 + 1 (CSV: pandas types the column float; JSON
    Lines: pyarrow reads the column as doubles): both are read so that it stays an int."""
    big = 2**53 + 1
    csv_path = tmp_path / "x.csv"
    csv_path.write_text(f"type,ts,x\nA,1,{big}\nB,2,0.5\nA,3,7\n")
    jsonl_path = tmp_path / "x.jsonl"
    jsonl_path.write_text(f'{{"type":"A","ts":1,"x":{big}}}\n{{"type":"B","ts":2,"x":0.5}}\n{{"type":"A","ts":3,"x":7}}\n')
    for path in (csv_path, jsonl_path):
        res = load_events(str(path))
        assert [(e.attrs["x"], type(e.attrs["x"])) for e in res.events] == [(big, int), (0.5, float), (7, int)]


def test_short_fraction_shows_huge_ratios_without_the_int_text_limit():
    from fractions import Fraction

    from engine.events.numbers import short_fraction

    assert short_fraction(Fraction(1, 3)) == "1/3"
    assert short_fraction(7) == "7"
    text = short_fraction(Fraction(3 ** 9000, 7 ** 8000))
    assert "(4295 digits)/" in text and text.endswith("(6761 digits)")
