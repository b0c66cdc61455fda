"""Sample streams, presets and generators (sample_streams/)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sample_streams
from sample_streams import events, generators, load, names

SAMPLES = names()
PRESETS = [(s, p) for s in SAMPLES for p in load(s).presets]


def test_expected_samples_and_presets():
    assert set(SAMPLES) == {"stocks_sase", "rfid", "shipments", "chemo", "cluster", "clicks", "trades"}
    assert set(PRESETS) == {
        ("stocks_sase", "stock_trend"), ("stocks_sase", "stock_trend_any"),
        ("rfid", "shoplifting"), ("shipments", "contamination"), ("chemo", "chemo_cycle"), ("chemo", "chemo_earliest"),
        ("trades", "rising_then_falling"), ("trades", "three_tickers"),
        ("cluster", "query1"), ("clicks", "login_count"), ("clicks", "kindle_bundle"),
    }


def test_unknown_sample_lists_names():
    with pytest.raises(ValueError) as exc:
        load("stocks")
    msg = str(exc.value)
    assert "'stocks'" in msg
    for n in SAMPLES:
        assert n in msg


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_loads_and_has_mapped_columns(name):
    s = load(name)
    assert s.name == name
    assert s.description and "\n" not in s.description
    assert s.path.is_file() and s.path.parent == sample_streams.DATA_DIR
    assert set(s.mapping) == {"type_col", "ts_col", "id_col", "lower_col", "upper_col"}
    assert s.presets, "every sample has at least one preset"
    df = s.frame()
    assert isinstance(df, pd.DataFrame) and len(df) > 0
    for key, col in s.mapping.items():
        if col is not None:
            assert col in df.columns, (key, col)
    assert s.mapping["ts_col"] is not None or s.mapping["lower_col"] is not None
    assert df[s.mapping["id_col"]].is_unique
    tcol = s.mapping["ts_col"] or s.mapping["lower_col"]
    assert df[tcol].is_monotonic_increasing
    if s.mapping["lower_col"]:
        assert (df[s.mapping["lower_col"]] <= df[s.mapping["upper_col"]]).all()
    assert df[s.mapping["type_col"]].notna().all()


@pytest.mark.parametrize("name", SAMPLES)
def test_events_build(name):
    s = load(name)
    evs = events(name)
    df = s.frame()
    assert len(evs) == len(df)
    assert [e.seq for e in evs] == list(range(len(evs)))
    assert all(a.ts <= b.ts for a, b in zip(evs, evs[1:]))
    assert sorted(e.id for e in evs) == sorted(df[s.mapping["id_col"]].tolist())
    for e in evs:
        assert isinstance(e.ts, (int, float))
        assert all(v is not None and v == v for v in e.attrs.values()), e.attrs  # no NaN
        assert s.mapping["type_col"] not in e.attrs or name == "shipments"
        if s.is_interval:
            assert e.lower <= e.upper and e.ts == e.lower
            assert "lower" not in e.attrs and "upper" not in e.attrs


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_preset_text(sample, preset):
    text = load(sample).presets[preset]
    assert text.lstrip().upper().startswith("PATTERN ")
    assert "WITHIN" in text.upper()
    assert "--" not in text and "/*" not in text  # no comments in presets


def _schema(sample: str) -> dict[str, dict[str, str]]:
    """event type -> attribute -> kind, from the sample's events."""
    out: dict[str, dict[str, str]] = {}
    for e in events(sample):
        for k, v in e.attrs.items():
            out.setdefault(e.type, {})[k] = "str" if isinstance(v, str) else "num"
    return out


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_preset_parses(sample, preset):
    dsl = pytest.importorskip("engine.dsl")
    text = load(sample).presets[preset]
    pattern = dsl.parse(text)
    if hasattr(dsl, "to_text"):
        assert dsl.parse(dsl.to_text(pattern)) == pattern
    if hasattr(dsl, "check_schema"):
        # every type and attribute the preset names occurs in its sample
        assert dsl.check_schema(pattern, _schema(sample), text) == []


def test_stocks_sase_is_figure_3():
    df = load("stocks_sase").frame()
    assert df["id"].tolist() == list(range(1, 9))
    assert df["ts"].tolist() == list(range(1, 9))
    assert set(df["type"]) == {"Stock"} and set(df["symbol"]) == {"GOOG"}
    assert df["price"].tolist() == [100, 120, 120, 121, 120, 125, 120, 120]
    assert df["volume"].tolist() == [1010, 990, 1005, 999, 999, 750, 950, 700]
    assert "skip_till_next_match" in load("stocks_sase").presets["stock_trend"]
    assert "skip_till_any_match" in load("stocks_sase").presets["stock_trend_any"]


def test_rfid_contains_section_6_9_stream():
    evs = events("rfid")
    head = [(e.id, e.type, e.attrs["tag_id"]) for e in evs[:5]]
    assert head == [(1, "Shelf", 7), (2, "Shelf", 8), (3, "Register", 7), (4, "Exit", 7),
                    (5, "Exit", 8)]
    assert load("rfid").frame()["ts"].dtype.kind == "M"  # date-times
    assert evs[1].ts - evs[0].ts == 300.0  # seconds


def test_shipments_type_attribute_does_not_collide():
    s = load("shipments")
    assert s.mapping["type_col"] == "event"
    a1 = events("shipments")[0]
    assert a1.type == "Alert" and a1.attrs["type"] == "contaminated" and a1.attrs["site"] == "X"
    ships = [(e.attrs["from"], e.attrs["to"]) for e in events("shipments")[1:5]]
    assert ships == [("X", "Y"), ("Y", "Z"), ("X", "W"), ("Z", "V")]


def test_chemo_table():
    s = load("chemo")
    df = s.frame()
    assert df["id"].tolist() == list(range(1, 15))
    assert df["L"].tolist() == list("CBPBPDCPPPBBBB")
    assert df["PID"].tolist() == [1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 1]
    assert df["T"].dt.day.tolist() == [3, 4, 5, 6, 8, 9, 10, 11, 12, 15, 17, 18, 19, 22]
    assert set(df["T"].dt.month) == {7} and set(df["T"].dt.year) == {2011}
    assert "16 days" in s.presets["chemo_cycle"] and "15" in s.description


def test_cluster_t6_prefix():
    evs = events("cluster")
    head = [(e.type, e.lower, e.upper) for e in evs[:5]]
    assert head == [("TaskStart", 1, 1), ("CPU", 2, 2), ("CPU", 3, 3), ("TaskFinish", 4, 4),
                    ("CPU", 5, 5)]
    assert evs[0].attrs["taskId"] == evs[3].attrs["taskId"]
    assert any(e.upper > e.lower for e in evs)


# ---------------------------------------------------------------- generators

def _up_down_same(df: pd.DataFrame) -> tuple[float, float, float]:
    d = df.groupby("symbol", sort=False)["price"].diff().dropna().to_numpy()
    return float((d > 0).mean()), float((d < 0).mean()), float((d == 0).mean())


@pytest.mark.parametrize("p", [0.55, 0.7])
def test_stocks_distribution(p):
    n = 100_000
    df = generators.stocks(n, p_up=p, seed=3)
    assert list(df.columns) == ["id", "type", "ts", "symbol", "price", "volume"]
    assert df["ts"].tolist() == list(range(n))
    up, down, same = _up_down_same(df)
    q = (1 - p) / 2
    assert abs(up - p) < 0.01 and abs(down - q) < 0.01 and abs(same - q) < 0.01
    d = df.groupby("symbol")["price"].diff().dropna()
    assert set(d.unique()) <= {-1, 0, 1}
    counts = df["symbol"].value_counts(normalize=True)
    assert len(counts) == 2 and (abs(counts - 0.5) < 0.01).all()
    assert df["volume"].between(1, 1000).all()
    assert abs(df["volume"].mean() - 500.5) < 5
    assert df["price"].dtype.kind == "i" and (df["price"] % 500 == 0).any()
    firsts = df.groupby("symbol")["price"].first()
    assert (firsts == 10_000).all()


def test_stocks_symbols_and_options():
    df = generators.stocks(30_000, symbols=["IBM", "AAPL", "GOOG"], seed=1, volume=(100, 200),
                           price_step=5, start_price=500)
    assert set(df["symbol"]) == {"IBM", "AAPL", "GOOG"}
    assert df["volume"].between(100, 200).all()
    assert (df["price"] % 5 == 0).all()
    assert set(generators.stocks(1000, symbols=5)["symbol"]) == {f"S{i}" for i in range(5)}


@pytest.mark.parametrize("gen,kwargs", [
    (generators.stocks, {}),
    (generators.skewed_types, {"rates": {"A": 1, "B": 10, "C": 100}}),
    (generators.keyed, {}),
    (generators.cluster_trace, {}),
])
def test_generators_deterministic(gen, kwargs):
    a = gen(5000, seed=7, **kwargs)
    b = gen(5000, seed=7, **kwargs)
    c = gen(5000, seed=8, **kwargs)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert len(a) == 5000 and a["id"].tolist() == list(range(5000))


def test_skewed_types_rates():
    rates = {"A": 1.0, "B": 10.0, "C": 100.0}
    n = 200_000
    df = generators.skewed_types(n, rates, seed=2)
    freq = df["type"].value_counts(normalize=True)
    for t, r in rates.items():
        assert abs(freq[t] - r / 111.0) < 0.005, (t, freq[t])
    ts = df["ts"].to_numpy()
    assert (np.diff(ts) > 0).all()
    assert abs(np.diff(ts).mean() - 1 / 111.0) / (1 / 111.0) < 0.02
    assert df["price"].between(1, 100).all() and df["x"].between(0, 1).all()


def test_keyed():
    df = generators.keyed(100_000, keys=50, types=["A", "B"], seed=4)
    assert set(df["key"]) == set(range(50))
    assert set(df["type"]) == {"A", "B"}
    assert df["key"].value_counts().min() > 1500
    assert df["ts"].is_monotonic_increasing
    named = generators.keyed(1000, keys=["x", "y"], types=3)
    assert set(named["key"]) == {"x", "y"} and set(named["type"]) == {"T0", "T1", "T2"}


def test_cluster_trace():
    n = 50_000
    df = generators.cluster_trace(n, seed=5, truth=True)
    assert len(df) == n
    assert set(df["type"]) == {"TaskStart", "TaskFinish", "CPU"}
    width = (df["upper"] - df["lower"]).to_numpy()
    cpu = (df["type"] == "CPU").to_numpy()
    assert (width[cpu] == 150).all() and (width[~cpu] == 10).all()  # delta 7.5 s, 0.5 s in 0.1 s
    assert ((df["lower"] <= df["t"]) & (df["t"] <= df["upper"])).all()
    assert (df["lower"] >= 0).all() and df["lower"].is_monotonic_increasing
    # arrival assumption: e1 before e2 => e1.lower <= e2.upper
    assert (np.maximum.accumulate(df["lower"].to_numpy()) <= df["upper"].to_numpy()).all()
    assert df.loc[cpu, "taskId"].isna().all() and df.loc[~cpu, "value"].isna().all()
    assert df.loc[cpu, "value"].between(0, 100).all()
    # every finish has its start earlier on the same node
    starts = df[df["type"] == "TaskStart"].set_index("taskId")
    fin = df[df["type"] == "TaskFinish"]
    assert fin["taskId"].isin(starts.index).all()
    s = starts.loc[fin["taskId"]]
    assert (s["t"].to_numpy() < fin["t"].to_numpy()).all()
    assert (s["nodeId"].to_numpy() == fin["nodeId"].to_numpy()).all()
    high = (df.loc[cpu, "value"] > 95).mean()
    assert 0.005 < high < 0.05
