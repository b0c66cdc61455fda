"""Interval data through the planner, the validation and ``cep run``:
interval data is never matched as point data; out-of-scope patterns are refused with the
construct named; one row per signature with range and confidence; --min-confidence; data
errors name their rows (integer instants, arrival assumption, pmf, U_max)."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from engine.engines import planner

if "uncertain-event" not in planner.ENGINES or not hasattr(planner.EngineInfo, "interval"):
    pytest.skip("the planner's interval registration is not in this tree",
                allow_module_level=True)

from tests.support import run  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.match import EngineUnsupported  # noqa: E402
from engine.engines.uncertain.examples import EXAMPLES, interval_events  # noqa: E402
from engine.engines.uncertain.oracle import run_uncertain  # noqa: E402


def write_csv(tmp_path, rows, name="iv.csv", header="type,id,lower,upper,v,pmf"):
    p = tmp_path / name
    p.write_text(header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n", encoding="utf-8")
    return str(p)


T1_ROWS = [("A", "a1", 1, 5, 0, ""), ("C", "c2", 3, 5, 0, ""), ("B", "b3", 3, 5, 0, ""), ("C", "c4", 4, 8, 0, "")]
IV = ["--lower-col", "lower", "--upper-col", "upper"]


# --------------------------------------------------------------------------- planner

def test_auto_picks_event_based_on_interval_data_and_never_a_point_engine():
    p = parse("PATTERN SEQ(A a, B b) WITHIN 5")
    assert planner.choose(p, "auto", interval=True).name == "uncertain-event"
    assert not planner.choose(p, "auto").interval
    for name, info in planner.ENGINES.items():
        if not info.interval:
            with pytest.raises(EngineUnsupported, match="uncertainty intervals"):
                planner.choose(p, name, interval=True)
        else:
            with pytest.raises(EngineUnsupported, match="point timestamps"):
                planner.choose(p, name)


def test_a_point_engine_fed_interval_events_refuses_them():
    """A caller that forgot ``interval=True`` gets an error, not point matches at the lower bound."""
    m = planner.make_matcher(parse("PATTERN SEQ(A a, B b) WITHIN 5"), "auto")
    with pytest.raises(EngineUnsupported, match="uncertainty intervals"):
        m.feed(interval_events([("a", "A", 1, 3)])[0])


@pytest.mark.parametrize("text, word", [
    ("PATTERN SEQ(A+ a[], B b) WITHIN 5", "Kleene"),
    ("PATTERN SEQ(A a, !C c, B b) WITHIN 5", "negation"),
    ("PATTERN AND(A a, B b) WITHIN 5", "AND"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity WITHIN 5", "strict_contiguity"),
])
def test_out_of_scope_patterns_are_refused_on_interval_data(text, word, tmp_path, capsys):
    with pytest.raises(EngineUnsupported, match=word):
        planner.choose(parse(text), "auto", interval=True)
    rc, out, err = run(capsys, "run", text, "--data", write_csv(tmp_path, T1_ROWS), *IV)
    assert rc == 2 and out == "" and word in err and "interval data" in err


# --------------------------------------------------------------------------- cep run

def test_cep_run_jsonl_contract_equals_the_oracle(tmp_path, capsys):
    data = write_csv(tmp_path, T1_ROWS)
    text = EXAMPLES["T1"].pattern
    expected = {tuple(ids[0] for _, ids in m.bindings): (list(m.range), m.confidence)
                for m in run_uncertain(parse(text), EXAMPLES["T1"].events())}
    for engine in ("auto", "uncertain-event", "uncertain-point", "uncertain-oracle"):
        rc, out, _ = run(capsys, "run", text, "--data", data, *IV, "--format", "jsonl", "--engine", engine)
        assert rc == 0
        rows = [json.loads(line) for line in out.splitlines()]
        got = {}
        for r in rows:
            assert set(r) == {"match", "range", "confidence", "confidence_exact"}
            conf = Fraction(r["confidence_exact"])
            assert abs(r["confidence"] - float(conf)) < 1e-12
            got[tuple(r["match"][v][0] for v in ("a", "b", "c"))] = (r["range"], conf)
        assert got == expected, engine


def test_cep_run_table_and_csv_show_range_and_confidence(tmp_path, capsys):
    data = write_csv(tmp_path, T1_ROWS)
    rc, out, _ = run(capsys, "run", EXAMPLES["T1"].pattern, "--data", data, *IV)
    assert rc == 0
    assert out.splitlines()[0].split()[:3] == ["#", "range", "confidence"]
    assert "[1, 5]" in out and "(1/9)" in out and "[1, 7]" in out and "(3/25)" in out
    assert out.rstrip().endswith("(2 signatures)")
    rc, out, _ = run(capsys, "run", EXAMPLES["T1"].pattern, "--data", data, *IV, "--format", "csv")
    lines = out.splitlines()
    assert lines[0] == "match,range_lo,range_hi,confidence,confidence_exact,a,b,c"
    assert {ln.split(",")[4] for ln in lines[1:]} == {"1/9", "3/25"}


def test_min_confidence_filters_exactly(tmp_path, capsys):
    data = write_csv(tmp_path, T1_ROWS)
    rc, out, _ = run(capsys, "run", EXAMPLES["T1"].pattern, "--data", data, *IV, "--format", "jsonl",
                     "--min-confidence", "0.12")  # 3/25 = 0.12 stays, 1/9 goes
    assert rc == 0 and [json.loads(x)["confidence_exact"] for x in out.splitlines()] == ["3/25"]
    rc, _, err = run(capsys, "run", EXAMPLES["T1"].pattern, "--data", data, *IV, "--min-confidence", "1.5")
    assert rc == 2 and "between 0 and 1" in err
    rc, _, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", "sample:stocks_sase", "--min-confidence", "0.5")
    assert rc == 2 and "interval data" in err


def test_cluster_sample_runs_as_interval_data(capsys):
    rc, out, err = run(capsys, "run", "preset:cluster/query1", "--data", "sample:cluster", "--format", "jsonl")
    assert rc == 0, err
    rows = [json.loads(x) for x in out.splitlines()]
    assert rows and all("confidence_exact" in r and "range" in r for r in rows)
    rc, _, err = run(capsys, "run", "preset:cluster/query1", "--data", "sample:cluster", "--engine", "nfab")
    assert rc == 2 and "uncertainty intervals" in err


# --------------------------------------------------------------------------- validation

def test_data_errors_name_their_rows(tmp_path, capsys):
    rows = [("A", 1, 1, 3, 1, "1 2 1"), ("B", 2, "2.5", 4, 1, ""), ("A", 3, 10, 12, 1, ""),
            ("B", 4, 3, 5, 1, ""), ("B", 5, 11, 13, 1, "1 2"), ("A", 6, 12, 40, 2, "")]
    data = write_csv(tmp_path, rows)
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 5", "--data", data, *IV,
                       "--pmf-col", "pmf", "--u-max", "10")
    assert rc == 2 and out == ""
    assert "line 3 (data row 2), column lower: lower bound 2.5 is not a whole instant" in err
    assert "line 5 (data row 4), column upper: upper bound 5 is before the lower bound 10" in err
    assert "arrival assumption" in err
    assert "line 6 (data row 5), column pmf: pmf has 2 weights but the interval [11, 13] has 3 instants" in err
    assert "line 7 (data row 6), column upper: interval [12, 40] is wider than U_max = 10" in err


def test_pmf_column_changes_the_confidence(tmp_path, capsys):
    rows = [("A", "a", 1, 2, 0, "3 1"), ("B", "b", 1, 2, 0, "")]
    data = write_csv(tmp_path, rows)
    rc, out, _ = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 5", "--data", data, *IV, "--pmf-col", "pmf",
                     "--format", "jsonl")
    assert rc == 0 and json.loads(out)["confidence_exact"] == "3/8"
    rc, out, _ = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 5", "--data", data, *IV, "--format", "jsonl")
    assert rc == 0 and json.loads(out)["confidence_exact"] == "1/4"
