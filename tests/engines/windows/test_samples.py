"""The match-window samples and generators: the trades sample is what its
generator makes, its presets (P_nyse and P_set of the paper's §6) give the oracle's matches
with match windows on and off, the Chemo preset with earliest_maximal, and the chemotherapy
cohort generator (the Chemo relation scaled up)."""
from __future__ import annotations

import numpy as np
import pandas as pd

import sample_streams
from engine.engines.oracle import oracle
from engine.dsl import parse
from engine.events import ColumnMapping, load_events
from engine.match import run_all
from engine.engines.ses.matcher import SesMatcher
from engine.model import Selection
from engine.engines.windows.matcher import MatchWindowMatcher
from engine.engines.windows.analysis import analyse
from sample_streams.match_windows import CHEMO_MAPPING, chemo, trades


def keys(ms):
    return sorted(m.key for m in ms)


def test_trades_sample_is_its_generator():
    df = sample_streams.load("trades").frame()
    gen = trades(400, 12, seed=4, per_ms=0.5, skew=0.8)
    assert list(df.columns) == list(gen.columns) and len(df) == 400
    assert (df["ticker"] == gen["ticker"]).all() and (df["id"] == gen["id"]).all()
    assert np.allclose(df["ts"], gen["ts"]) and np.allclose(df["price"], gen["price"])
    assert df["ts"].is_monotonic_increasing and df["ts"].diff().dropna().ge(0).all()


def test_trades_presets_equal_the_oracle_with_and_without_match_windows():
    ev = sample_streams.events("trades")
    by_id = {e.id: e for e in ev}
    for name in ("rising_then_falling", "three_tickers"):
        p = parse(sample_streams.load("trades").presets[name])
        assert p.selection is Selection.EARLIEST_MAXIMAL
        want = oracle.run(p, ev)
        assert want and keys(run_all(MatchWindowMatcher(p), ev)) == keys(want)
        assert keys(run_all(SesMatcher(p), ev)) == keys(want)
        every = {m.key for m in oracle.run(p.model_copy(update={"selection": Selection.ALL}), ev)}
        assert {m.key for m in want} < every
    p = parse(sample_streams.load("trades").presets["rising_then_falling"])
    for m in oracle.run(p, ev):
        d = m.as_dict()
        for var, ticker, sign in (("a", "AAPL", 1), ("g", "GOOG", 1), ("i", "IBM", -1)):
            prices = [by_id[i].attrs["price"] for i in d[var]]
            assert {by_id[i].attrs["ticker"] for i in d[var]} == {ticker}
            assert all(sign * (y - x) > 0 for x, y in zip(prices, prices[1:]))
        assert max(by_id[i].seq for i in d["a"] + d["g"]) < min(by_id[i].seq for i in d["i"])


def test_chemo_earliest_preset_is_p1_with_the_selection():
    s = sample_streams.load("chemo")
    p = parse(s.presets["chemo_earliest"])
    assert p.model_copy(update={"selection": Selection.ALL}) == parse(s.presets["chemo_cycle"])
    got = run_all(MatchWindowMatcher(p), sample_streams.events("chemo"))
    assert sorted(m.as_dict()["p"] for m in got) == [[3, 9], [5, 8], [8]]


def test_chemo_cohort_generator_scales_the_chemo_relation_up():
    a = chemo(patients=20, days=90, seed=2)
    assert a.equals(chemo(patients=20, days=90, seed=2))              # deterministic
    assert list(a.columns) == ["id", "PID", "L", "V", "U", "T"]
    assert set(a["L"]) <= set("CPDEFBH") and {"C", "P", "B"} <= set(a["L"])
    assert a["T"].is_monotonic_increasing and a["id"].tolist() == list(range(1, len(a) + 1))
    assert a["PID"].nunique() == 20 and pd.api.types.is_datetime64_any_dtype(a["T"])
    ev = load_events(a, ColumnMapping(**{k: v for k, v in CHEMO_MAPPING.items() if v})).events
    p1 = parse(sample_streams.load("chemo").presets["chemo_earliest"])
    p1 = p1.model_copy(update={"window": p1.window.model_copy(update={"value": 16 * 86400, "unit": None})})
    on = run_all(MatchWindowMatcher(p1), ev)
    assert on and keys(on) == keys(run_all(SesMatcher(p1), ev))
    assert all(len({e.attrs["PID"] for e in ev if e.id in set(sum(m.as_dict().values(), []))}) == 1 for m in on)
    assert analyse(p1).key.columns() == ["PID"]
