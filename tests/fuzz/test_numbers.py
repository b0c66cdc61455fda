"""Fuzzing numbers through ``cep run``: random AGG patterns over CSV files with hostile
number cells, and random interval data shifted by huge offsets with hostile bounds and pmf
cells. Every run ends in a clean outcome: exit 0 with strict JSON (no Infinity / NaN) equal
to the other engines' answer (the baseline's for AGG, the possible-worlds oracle's on the
unshifted data for intervals), or a ``cep: ...`` message with exit 1 or 2. Never a Python
traceback (``main`` lets no exception out), never a hang (each run is timed)."""
from __future__ import annotations

import json
import time
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.commands.cli import main
from tests.engines.aseq.test_properties import patterns

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])

#: CSV number cells: exact ints of every size, floats that lose bits when added, the float
#: range's edges, and text that only looks like a number (or is too big to be one)
NUMBER_CELLS = ["0", "1", "3", "-2", "7", "9007199254740993", "1" * 30, "-" + "9" * 25, "1e17", "1e16", "0.1",
                "-2.5", "3.0", "1e308", "-1e308", "1e-300", "5e-324", "1e400", "-0", "", "abc", "inf", "NaN",
                "1e99999999", "1" * 5000, "0x10"]


def run_cli(capsys, argv: list[str]) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    rc = main(argv)  # an exception escaping here is the traceback a user would see: the test fails
    out = capsys.readouterr()
    return rc, out.out, out.err, time.perf_counter() - t0


def strict_lines(out: str) -> list[Any]:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} written as JSON")
    return [json.loads(line, parse_constant=refuse) for line in out.splitlines()]


def assert_clean(rc: int, out: str, err: str, seconds: float) -> None:
    assert rc in (0, 1, 2), rc
    assert "Traceback" not in err and "Traceback" not in out
    assert seconds < 10, f"{seconds:.1f} s"
    if rc:
        assert err.startswith("cep: ") or "\ncep: " in err or "the data has problems" in err, err
    else:
        strict_lines(out)


@st.composite
def agg_csv(draw) -> str:
    n = draw(st.integers(1, 10))
    lines, ts = ["type,id,ts,x,y,k,g"], 0
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 1, 2]))
        lines.append(",".join([draw(st.sampled_from(["A", "B", "C", "A", "B", "D"])), str(i), str(ts),
                               draw(st.sampled_from(NUMBER_CELLS)), draw(st.sampled_from(["", "1", "2"])),
                               draw(st.sampled_from(["0", "1"])), draw(st.sampled_from(["u", "v"]))]))
    return "\n".join(lines) + "\n"


@SETTINGS
@given(st.data(), agg_csv())
def test_agg_patterns_on_hostile_numbers_are_exact_or_refused(tmp_path, capsys, data, text):
    pattern = data.draw(patterns())
    path = tmp_path / "agg.csv"
    path.write_text(text, encoding="utf-8")
    results = {}
    for engine in ("aseq", "aseq-baseline"):
        rc, out, err, secs = run_cli(capsys, ["run", pattern, "--data", str(path), "--engine", engine,
                                              "--format", "jsonl"])
        assert_clean(rc, out, err, secs)
        results[engine] = (rc, out)
    event(f"exit {results['aseq'][0]}")
    assert results["aseq"] == results["aseq-baseline"], (pattern, text)


INTERVAL_PATTERNS = ["PATTERN SEQ(A a, B b) WITHIN 4",
                     "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 6",
                     "PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5"]
HOSTILE_BOUNDS = ["2.5", "1e99999", "abc", "", "1/2", "-0", "3.0"]
HOSTILE_PMF = ["1e99999999 1", "1/0 1", "-1 2", "1 1 1 1 1 1 1 1 1", "0.5 0.5", "1/3 2/3", "1e-4400 1"]


@st.composite
def interval_rows(draw) -> list[tuple[str, str, Any, Any, str]]:
    n = draw(st.integers(1, 6))
    rows, lo = [], 0
    for i in range(n):
        lo += draw(st.integers(0, 2))
        width = draw(st.integers(0, 3))
        pmf = " ".join(str(draw(st.integers(0, 3))) for _ in range(width + 1)) if draw(st.booleans()) else ""
        rows.append((draw(st.sampled_from(["A", "B", "C"])), f"e{i}", lo, lo + width, pmf))
    return rows


def _write(path, rows, shift: int) -> str:
    path.write_text("type,id,lower,upper,pmf\n" + "".join(
        f"{t},{i},{lo + shift if isinstance(lo, int) else lo},{hi + shift if isinstance(hi, int) else hi},{pmf}\n"
        for t, i, lo, hi, pmf in rows), encoding="utf-8")
    return str(path)


def _unshifted(sigs: list[Any], shift: int) -> list[Any]:
    return [(s["match"], [r - shift for r in s["range"]], s["confidence_exact"]) for s in sigs]


@SETTINGS
@given(interval_rows(), st.sampled_from(INTERVAL_PATTERNS),
       st.sampled_from([2**53, 2**53 + 1, 2**64 + 3, 10**30, 10**400, -(2**60)]),
       st.sampled_from([None, None, "lower", "upper", "pmf"]), st.sampled_from(HOSTILE_BOUNDS),
       st.sampled_from(HOSTILE_PMF), st.integers(0, 5))
def test_interval_data_with_huge_bounds_equals_the_oracle_or_is_refused(tmp_path, capsys, rows, pattern, shift,
                                                                        spoil, bad_bound, bad_pmf, where):
    """Engines on data shifted by a huge offset give the oracle's answer on the unshifted data
    (ranges shifted back, the same exact confidences); a hostile cell is a clean refusal."""
    args = ["--lower-col", "lower", "--upper-col", "upper", "--pmf-col", "pmf", "--format", "jsonl"]
    rc, out, err, secs = run_cli(capsys, ["run", pattern, "--data", _write(tmp_path / "ref.csv", rows, 0), *args,
                                          "--engine", "uncertain-oracle"])
    assert_clean(rc, out, err, secs)
    ref = (rc, _unshifted(strict_lines(out), 0) if rc == 0 else None)
    if spoil is not None:  # one hostile cell
        k = where % len(rows)
        t, i, lo, hi, pmf = rows[k]
        rows = list(rows)
        rows[k] = (t, i, bad_bound if spoil == "lower" else lo, bad_bound if spoil == "upper" else hi,
                   bad_pmf if spoil == "pmf" else pmf)
    path = _write(tmp_path / "shifted.csv", rows, shift)
    for engine in ("uncertain-event", "uncertain-point", "uncertain-oracle"):
        rc, out, err, secs = run_cli(capsys, ["run", pattern, "--data", path, *args, "--engine", engine])
        assert_clean(rc, out, err, secs)
        event(f"{'hostile ' + spoil if spoil else 'clean'}: exit {rc}")
        if spoil is None:
            assert (rc, _unshifted(strict_lines(out), shift) if rc == 0 else None) == ref, (engine, rows)
