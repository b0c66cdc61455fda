"""One matcher choice for ``cep run``, ``cep trace`` and ``cep explain`` (engine/run_choice.py):
on the chemotherapy presets and the trades presets (P_set and P_nyse of the
match-windows paper), with match windows on, off and auto (the default of every command),
``cep run`` prints match #K with the bindings that ``cep trace`` emits K-th and that
``cep explain --match K`` explains."""
from __future__ import annotations

import json

import pytest

import sample_streams
from engine.commands.cli import main
from engine.dsl import parse
from engine.match import EngineUnsupported
from engine.run_choice import choose_run
from engine.trace import type_rates
from tests.support import preset_matches as _run
from tests.support import run

PRESETS = [("chemo", "chemo_cycle"), ("chemo", "chemo_earliest"), ("trades", "three_tickers"),
           ("trades", "rising_then_falling")]
MODES = ("on", "off", "auto")


def _cli(capsys, *argv: str) -> str:
    capsys.readouterr()
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    return out


def _trace(capsys, sample: str, preset: str, mode: str) -> list[dict]:
    out = _cli(capsys, "trace", f"preset:{sample}/{preset}", "--data", f"sample:{sample}", "--match-windows", mode)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _explain(capsys, sample: str, preset: str, mode: str, k: int) -> dict:
    out = _cli(capsys, "explain", f"preset:{sample}/{preset}", "--data", f"sample:{sample}", "--match", str(k),
               "--format", "json", *(("--match-windows", mode) if mode != "auto" else ()))
    return json.loads(out)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sample,preset", PRESETS)
def test_run_trace_and_explain_number_every_match_alike(capsys, sample, preset, mode):
    printed = _run(capsys, sample, preset, mode)
    assert printed, "the preset has matches"
    steps = _trace(capsys, sample, preset, mode)
    assert [m["match"] for s in steps for m in s["matches"]] == printed
    for k, want in enumerate(printed, 1):
        got = _explain(capsys, sample, preset, mode, k)
        assert got["index"] == k and got["verdict"] == "match"
        assert got["match"] == want, f"match #{k}"


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_match_windows_on_and_off_find_the_same_matches(capsys, sample, preset):
    def key(m: dict) -> str:
        return json.dumps(m, sort_keys=True)

    on, off = (_run(capsys, sample, preset, mode) for mode in ("on", "off"))
    assert sorted(map(key, on)) == sorted(map(key, off))


def test_the_chemo_cycle_numbering_follows_the_windows_when_they_are_on(capsys):
    """The case of the issue: all matches of P1 come out per window with match windows and
    in the lazy engine's order without; explain follows the mode it is given."""
    on = _run(capsys, "chemo", "chemo_cycle", "on")
    off = _run(capsys, "chemo", "chemo_cycle", "off")
    assert on != off and len(on) == len(off) == 10
    assert _run(capsys, "chemo", "chemo_cycle", "auto") == on  # auto: on for an event-set pattern
    assert _explain(capsys, "chemo", "chemo_cycle", "auto", 1)["engine"] == "match-windows"
    assert _explain(capsys, "chemo", "chemo_cycle", "off", 1)["match"] == off[0]
    assert _explain(capsys, "chemo", "chemo_cycle", "on", 1)["match"] == on[0]


def test_the_trace_of_a_match_windows_run_shows_windows_counters_and_verdicts(capsys):
    steps = _trace(capsys, "chemo", "chemo_earliest", "auto")
    assert all(s["buffer"]["kind"] == "windows" for s in steps if s["step"] != "close")
    acts = [a for s in steps for a in s["actions"]]
    stores = [a for a in acts if a["kind"] == "store"]
    assert {a["detail"]["key"] for a in stores} == {"1", "2"}  # a lane per patient
    e3 = next(a for a in stores if a["event"] == 3)["detail"]
    assert e3["window"] == [1, 2, 3] and e3["counters"] == {"c": 1, "p": 1, "b": 0} and e3["beta_s"] == "001"
    assert any(a["kind"] == "discard" and a["event"] == 6 and "filtered" in a["reason"] for a in acts)
    verdicts = [a["reason"] for a in acts if a["kind"] == "expire"]
    assert any("skipped: no candidate for c" in v for v in verdicts)
    assert any("1 match(es)" in v for v in verdicts)
    runs = [r for s in steps if s["step"] != "close" for r in s["runs"]]
    assert runs and all(r["state"].startswith("window ") and r["start"] is not None for r in runs)
    table = _cli(capsys, "trace", "preset:chemo/chemo_earliest", "--data", "sample:chemo", "--format", "table")
    assert table.startswith("engine: match-windows (A = ses)\n")
    assert "store at window 1 event 3 (window e1 e2 e3; counters c=1 p=1 b=0; β_s=001; β_e=010)" in table


def test_trace_and_explain_refuse_match_windows_on_where_they_are_unsound(capsys):
    for cmd in (["trace"], ["explain", "--match", "1"]):
        capsys.readouterr()
        status = main([*cmd, "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase",
                       "--match-windows", "on"])
        err = capsys.readouterr().err
        assert status == 2 and "--match-windows on:" in err and "skip_till_next_match" in err


def test_the_default_of_trace_and_explain_is_the_default_of_run():
    from engine.commands.cli import build_parser

    for argv in (["run", "p", "--data", "d"], ["trace", "p", "--data", "d"], ["explain", "p", "--data", "d",
                                                                             "--match", "1"]):
        args = build_parser(argv[0]).parse_args(argv)
        assert args.match_windows == "auto", argv


# --------------------------------------------------------------------------- the choice itself

CHEMO = parse(sample_streams.load("chemo").presets["chemo_cycle"])
STOCK = parse(sample_streams.load("stocks_sase").presets["stock_trend"])


def test_choice_for_an_event_set_pattern():
    on = choose_run(CHEMO, "auto", "auto")
    assert (on.engine, on.windows, on.inner) == ("match-windows", True, "ses")
    off = choose_run(CHEMO, "auto", "off", rates=type_rates("auto", sample_streams.events("chemo")))
    assert not off.windows and off.engine == "lazy-tree" and off.inner is None
    named = choose_run(CHEMO, "lazy-tree", "auto")  # an all-matches engine named: it runs alone
    assert not named.windows and named.engine == "lazy-tree"
    assert choose_run(CHEMO, "lazy-tree", "on").inner == "lazy-tree"


def test_choice_outside_match_windows():
    c = choose_run(STOCK, "auto", "auto", count_only=True)
    assert (c.engine, c.windows, c.count_only) == ("nfab", False, True)
    assert not choose_run(STOCK, "auto", "auto").count_only
    with pytest.raises(EngineUnsupported, match="--match-windows on"):
        choose_run(STOCK, "auto", "on")
    with pytest.raises(EngineUnsupported, match="--match-windows must be one of"):
        choose_run(STOCK, "auto", "sometimes")


def test_interval_data_never_runs_in_match_windows():
    cluster = parse(sample_streams.load("cluster").presets["query1"])
    c = choose_run(cluster, "auto", "auto", interval=True)
    assert not c.windows and "uncertainty intervals" in c.reason and c.engine == "uncertain-event"
    with pytest.raises(EngineUnsupported, match="point events"):
        choose_run(CHEMO, "auto", "on", interval=True)


def test_the_built_matcher_is_the_chosen_one():
    events = sample_streams.events("chemo")
    m = choose_run(CHEMO, "auto", "on").build(CHEMO, max_runs=50)
    assert m.name == "match-windows" and m.max_buffered == 50 and m.inner == "ses"
    n = sum(len(m.feed(e)) for e in events) + len(m.close())
    assert n == 10


def test_explain_says_which_match_window_a_match_came_from(capsys):
    got = _explain(capsys, "chemo", "chemo_cycle", "on", 5)
    assert got["match"] == {"c": [7], "p": [5, 8], "b": [12]}
    mw = got["match_window"]
    assert (mw["first"], mw["key"], mw["matcher"]) == (5, {"PID": 2}, "ses")
    assert mw["until"] - mw["from"] == 16 * 86400
    text = _cli(capsys, "explain", "preset:chemo/chemo_cycle", "--data", "sample:chemo", "--match", "5")
    assert "match windows: the match lies in the match window of its first event 5 (PID=2;" in text
    assert "match_window" not in _explain(capsys, "chemo", "chemo_cycle", "off", 5)


@pytest.mark.parametrize("mode", ["on", "off"])
def test_why_not_names_the_selection_that_dropped_a_match(mode):
    """Under earliest_maximal every condition holds for c=1 p=3 b=11, but match #1 adds
    event 9 to p[] (not maximal); c=7 p=5 b=13 is not earliest (b=12 comes first)."""
    from engine.explain import explain_why_not, format_text

    p = parse(sample_streams.load("chemo").presets["chemo_earliest"])
    chemo = sample_streams.events("chemo")
    r = explain_why_not(p, chemo, "c=1;p=3;b=11", match_windows=mode)
    reason = r["reason"]
    assert r["verdict"] == "no_match" and reason["kind"] == "selection" and reason["event"] == 1
    assert "not maximal — match #1 c=[1] p=[3,9] b=[11] adds event 9 to p[]" in reason["text"]
    assert reason["by"] == {"c": [1], "p": [3, 9], "b": [11]}
    r = explain_why_not(p, chemo, "c=7;p=5;b=13", match_windows=mode)
    assert r["reason"]["kind"] == "selection" and "not earliest" in r["reason"]["text"]
    assert r["reason"]["by"] == {"c": [7], "p": [5], "b": [12]}
    assert "reason (selection): WHERE earliest_maximal: not earliest" in format_text(r)
