"""``cep trace --from/--to/--break`` and the ``position`` field: a window's records equal the
same records of the whole trace, --break stops where ``first_hit`` says, bad input exits 2."""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sample_streams
from engine.breakpoints import first_hit, parse_breakpoints
from engine.checkpoints import CheckpointedRun
from engine.commands.cli import main
from engine.events import ColumnMapping, load_events
from engine.dsl import parse
from engine.run_choice import choose_run
from engine.trace import type_rates
from tests.strategies import small_patterns, small_streams
from tests.support import run

STOCK = "preset:stocks_sase/stock_trend"
DATA = "sample:stocks_sase"


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _records(*argv: object) -> list[dict]:
    code, out, err = _cli("trace", *argv)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_every_record_has_its_position():
    recs = _records(STOCK, "--data", DATA)
    assert [r.get("position") for r in recs] == [*range(1, 9), None]
    assert all(list(r)[:2] == ["step", "position"] for r in recs[:-1])
    assert recs[-1] == {"step": "close", "actions": [], "matches": []}


@pytest.mark.parametrize("window", [("1", "8"), ("3", "4"), ("8", "8"), ("5", None), (None, "2")])
def test_a_window_equals_the_same_records_of_the_whole_trace(window):
    full = _records(STOCK, "--data", DATA)
    first, last = window
    argv = [STOCK, "--data", DATA] + (["--from", first] if first else []) + (["--to", last] if last else [])
    got = _records(*argv)
    lo = int(first or 1) - 1
    hi = int(last) if last else len(full)  # no --to: to the end, with the close step
    assert got == full[lo:hi]


def test_limit_applies_to_the_window_not_the_file(capsys):
    code, out, err = run(capsys, "trace", STOCK, "--data", DATA, "--limit", "3")
    assert code == 1 and "more than --limit 3" in err
    code, out, err = run(capsys, "trace", STOCK, "--data", DATA, "--limit", "3", "--from", "4", "--to", "6")
    assert code == 0, err
    assert [json.loads(x)["position"] for x in out.splitlines()] == [4, 5, 6]
    code, out, err = run(capsys, "trace", STOCK, "--data", DATA, "--limit", "3", "--from", "4", "--to", "7")
    assert code == 1 and "the window has 4 steps, more than --limit 3" in err


def test_table_names_each_step_with_its_event_label(capsys):
    code, out, _ = run(capsys, "trace", STOCK, "--data", DATA, "--format", "table", "--from", "5", "--to", "6")
    assert code == 0
    heads = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert heads[0] == "engine: nfab"
    assert heads[1].startswith("event #5 (id 5): Stock @ 5.0") and heads[2].startswith("event #6 (id 6): Stock @ 6.0")
    assert len(heads) == 3


def _stock_run(pattern_text: str) -> tuple[CheckpointedRun, object]:
    s = sample_streams.load("stocks_sase")
    p = parse(pattern_text)
    events = load_events(str(s.path), ColumnMapping(**s.mapping)).events
    return CheckpointedRun(choose_run(p, "auto", "auto", rates=type_rates("auto", events)), p, events), p


@pytest.mark.parametrize("specs, start", [
    (["match:1"], 1), (["match:2"], 1), (["event:7"], 3), (["id:4"], 1), (["runs>1"], 1),
    (["buffer>4"], 1), (["holds:b.volume < 80% * a[a.len].volume"], 1), (["fails:a[1].volume>1000"], 1),
    (["event:8", "runs>1"], 4), (["match:1"], 7),
])
def test_break_stops_where_first_hit_says(specs, start):
    text = sample_streams.load("stocks_sase").presets["stock_trend"]
    crun, pattern = _stock_run(text)
    hit = first_hit(crun, parse_breakpoints(specs, pattern, 8), start - 1)
    argv = [STOCK, "--data", DATA, "--from", str(start)] + [a for s in specs for a in ("--break", s)]
    recs = _records(*argv)
    full = _records(STOCK, "--data", DATA)
    if hit is None:  # no hit: to the end, no break line
        assert recs == full[start - 1:]
        return
    k, reason = hit
    assert recs[:-1] == full[start - 1:k + 1]
    assert recs[-1] == {"break": reason, "step": k, "position": k + 1}


def test_break_hand_checked_on_the_sample(capsys):
    # match #1 of `cep run` (a=1..5 b=6) completes at event 6; the first step with 2 live runs is event 3
    recs = _records(STOCK, "--data", DATA, "--break", "match:1")
    assert recs[-1] == {"break": "match #1 completed at event #6 (id 6)", "step": 5, "position": 6}
    assert len(recs) == 7
    recs = _records(STOCK, "--data", DATA, "--break", "runs>1")
    assert recs[-1] == {"break": "2 live runs (runs>1) at event #3 (id 3)", "step": 2, "position": 3}
    code, out, _ = run(capsys, "trace", STOCK, "--data", DATA, "--break", "match:1", "--format", "table")
    assert code == 0 and out.rstrip().endswith("break: match #1 completed at event #6 (id 6)")


@pytest.mark.parametrize("argv, message", [
    (["--break", "evnt:3"], "--break: cannot read breakpoint `evnt:3`"),
    (["--break", "event:99"], "the data has 8 events, so event:N takes N from 1 to 8"),
    (["--break", "fails:a.x > 1"], "the pattern has no conjunct `a.x > 1`; its conjuncts are `a[1].volume > 1000`"),
    (["--break", "runs>many"], "the number of live runs must be a whole number"),
    (["--break", ""], "empty breakpoint"),
    (["--from", "0"], "--from 0: events are numbered from 1 to 8"),
    (["--to", "9"], "--to 9: events are numbered from 1 to 8"),
    (["--from", "5", "--to", "4"], "--from 5 is after --to 4"),
])
def test_bad_input_exits_2_with_the_message(capsys, argv, message):
    code, out, err = run(capsys, "trace", STOCK, "--data", DATA, *argv)
    assert code == 2 and out == ""
    assert message in err


def test_a_query_refuses_a_patterns_breakpoint(capsys):
    """A query's window is of input rows (tests/commands/test_sql_trace_window.py); its breakpoints are
    event:N, id:X and match:K only."""
    code, _, err = run(capsys, "trace", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n "
                       "PATTERN (A) DEFINE A AS true)", "--data", DATA, "--from", "2", "--break", "runs>3")
    assert code == 2 and "stops at event:N (input row N), id:X or match:K" in err


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_patterns(max_positive=3), small_streams(), st.data())
def test_random_windows_equal_the_whole_trace(pattern, events, data):
    n = len(events)
    first = data.draw(st.integers(1, n))
    last = data.draw(st.one_of(st.none(), st.integers(first, n)))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "p.json").write_text(pattern.model_dump_json())
        rows = [{"id": e.id, "type": e.type, "ts": e.ts, **e.attrs} for e in events]
        (d / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        whole = _cli("trace", d / "p.json", "--data", d / "e.jsonl")
        window = _cli("trace", d / "p.json", "--data", d / "e.jsonl", "--from", first,
                      *(["--to", last] if last is not None else []))
    assert window[0] == whole[0], (window[2], whole[2])
    if whole[0] != 0:
        return
    full = [json.loads(x) for x in whole[1].splitlines()]
    got = [json.loads(x) for x in window[1].splitlines()]
    assert got == full[first - 1:(last if last is not None else n + 1)]


def test_a_match_past_the_last_says_so(capsys):
    code, out, err = run(capsys, "trace", STOCK, "--data", DATA, "--break", "match:99")
    assert code == 0 and "note: --break match:99: the run has 3 matches" in err
    assert [json.loads(x)["step"] for x in out.splitlines()] == [*range(8), "close"]
