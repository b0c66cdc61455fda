"""``cep run`` feeds the match-windows matcher in chunks (``feed_many``): the output is the
same, byte for byte and in the same order, as feeding one event at a time; a run stopped by
the state guard inside a chunk writes the matches found before the stop."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest

import engine.commands.run_matches as rc
from engine.engines import planner
from engine.commands.cli import main

P_SET = ("PATTERN AND(Trade a, Trade m, Trade o)\nWHERE earliest_maximal\n  AND a.ticker = 'AAPL'\n"
         "  AND m.ticker = 'MSFT'\n  AND o.ticker = 'ORCL'\nWITHIN 20 ms")
P_KEY = ("PATTERN SEQ(AND(Trade a, Trade m), Trade o)\nWHERE earliest_maximal\n  AND [venue]\n"
         "  AND a.ticker = 'AAPL'\n  AND m.ticker = 'MSFT'\n  AND o.ticker = 'ORCL'\n  AND o.price > a.price\n"
         "WITHIN 30 ms")


@pytest.fixture(scope="module")
def trades(tmp_path_factory) -> str:
    rng = random.Random(13)
    path = tmp_path_factory.mktemp("chunks") / "trades.csv"
    tickers = ["AAPL", "MSFT", "ORCL"] + [f"T{i:03d}" for i in range(12)]
    ts = 1000.0
    lines = ["id,type,ts,ticker,price,venue"]
    for i in range(5000):
        ts += rng.choice([0.001, 0.002, 0.003])
        lines.append(f"{i},Trade,{ts:.3f},{rng.choice(tickers)},{rng.randint(10, 99)},{rng.choice('XY')}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _run(capsys, monkeypatch, chunked: bool, chunk: int, *argv: str) -> tuple[int, str, str]:
    spec = planner.ENGINES["match-windows"]
    monkeypatch.setitem(planner.ENGINES, "match-windows", replace(spec, feeds_many=chunked))
    monkeypatch.setattr(rc, "CHUNK", chunk)
    try:
        code = main(list(argv))
    except SystemExit as e:  # pragma: no cover - main returns its status
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("pattern", [P_SET, P_KEY])
@pytest.mark.parametrize("read", ["whole", "batches"])
@pytest.mark.parametrize("chunk", [1, 7, 1024])
def test_chunked_run_writes_the_same_bytes(capsys, monkeypatch, trades, pattern, read, chunk):
    argv = ["run", pattern, "--data", trades, "--match-windows", "on", "--format", "jsonl", "--read", read]
    new = _run(capsys, monkeypatch, True, chunk, *argv)
    old = _run(capsys, monkeypatch, False, chunk, *argv)
    assert new[0] == old[0] == 0
    assert new[1].count("\n") > 15  # the workload has matches across many chunks
    assert new == old


def test_chunked_run_stats_are_the_same(capsys, monkeypatch, trades):
    argv = ["run", P_SET, "--data", trades, "--match-windows", "on", "--format", "count", "--stats"]
    new = _run(capsys, monkeypatch, True, 100, *argv)
    old = _run(capsys, monkeypatch, False, 100, *argv)
    strip = lambda err: " ".join(w for w in err.split() if not w.startswith(("seconds=", "events/s=")))  # noqa: E731
    assert new[1] == old[1] and strip(new[2]) == strip(old[2])
    # the matcher is fed the rows some component can bind (engine.type_filter), not all 5,000
    from engine.dsl import parse
    from engine.events import load_events
    from engine.type_filter import bindable

    fed = len(load_events(trades, types=bindable(parse(P_SET))).events)
    assert f"events={fed} " in new[2] and 0 < fed < 5000


def test_state_guard_inside_a_chunk_keeps_the_matches_found_before(capsys, monkeypatch, trades, tmp_path):
    # a window of many events: the guard on buffered events stops the run part way through a chunk
    wide = P_SET.replace("WITHIN 20 ms", "WITHIN 2 s").replace("a.ticker = 'AAPL'", "a.price > 20")
    outs = []
    for chunked in (True, False):
        (tmp_path / str(chunked)).mkdir()
        out = tmp_path / str(chunked) / "m.jsonl"
        code, _o, err = _run(capsys, monkeypatch, chunked, 1024, "run", wide, "--data", trades, "--match-windows",
                             "on", "--format", "jsonl", "--max-runs", "900", "--out", str(out))
        assert code == 1 and "state explosion" in err
        partial = out.with_name(out.name + ".partial")
        outs.append((err.replace(str(out), "OUT"), partial.read_text() if partial.exists() else None))
    assert outs[0] == outs[1]
    assert outs[0][1]  # matches were found before the stop and written
