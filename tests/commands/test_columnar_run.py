"""``cep run`` of a fixed-length SEQ under the lazy chain reads the loaded columns (the chain's
columnar path, ``feed_columns``) and builds no event: its output, count and stats equal those of
the chain fed one event at a time, and of a run in batches (which builds events)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.commands import cli

PATTERNS = [
    "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match AND a.x < b.x AND b.x < c.y WITHIN 30",
    "PATTERN SEQ(A a, A b) WHERE [k] AND a.y >= b.y WITHIN 12",
    "PATTERN SEQ(B b, ANY z, C c) WHERE b.x != c.x AND z.y > 2 WITHIN 8 events",
]


def _stream(path: Path) -> Path:
    rng = random.Random(5)
    rows = ["id,type,ts,x,y,k"]
    for i in range(4000):
        rows.append(f"e{i},{rng.choice('ABCD')},{i // 3},{rng.randint(0, 9)},{rng.choice(['', '1', '3.5', '7'])},"
                    f"{rng.choice('pq')}")
    path.write_text("\n".join(rows) + "\n")
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("pattern", PATTERNS)
def test_cep_run_on_columns_builds_no_event_and_prints_the_chains_matches(pattern, tmp_path, capsys, monkeypatch):
    from engine.engines.lazy.chain_matcher import LazyChainMatcher
    from engine.events.event_columns import EventColumns

    data = str(_stream(tmp_path / "s.csv"))
    base = ["run", pattern, "--data", data, "--engine", "lazy-chain", "--skip-bad-rows"]
    with monkeypatch.context() as m:
        def no_events(self):  # noqa: ANN001
            raise AssertionError("an event was built from the columns")

        m.setattr(EventColumns, "events", no_events)
        columns = _run(base + ["--format", "jsonl"], capsys)
        counted = _run(base + ["--format", "count"], capsys)
    batches = _run(base + ["--format", "jsonl", "--read", "batches"], capsys)
    with monkeypatch.context() as m:  # the chain one event at a time
        m.setattr(LazyChainMatcher, "feed_many", lambda self, events, out: out.extend(
            x for e in events for x in self.feed(e)))
        m.setattr(LazyChainMatcher, "feed_columns", lambda self, events, lo, hi, out: out.extend(
            x for e in events[lo:hi] for x in self.feed(e)))
        one_by_one = _run(base + ["--format", "jsonl"], capsys)
    assert columns == batches == one_by_one
    assert int(counted) == len(columns.splitlines()) > 0


def test_a_text_value_in_a_compared_column_gives_the_same_output(tmp_path, capsys):
    rng = random.Random(9)
    rows = ["id,type,ts,x,y"] + [f"{i},{rng.choice('ABC')},{i},{rng.choice(['1', '2', 'q', ''])},{rng.randint(0, 3)}"
                                 for i in range(1500)]
    data = tmp_path / "t.csv"
    data.write_text("\n".join(rows) + "\n")
    base = ["run", PATTERNS[0], "--data", str(data), "--engine", "lazy-chain", "--skip-bad-rows", "--format", "jsonl"]
    whole = _run(base, capsys)
    assert whole and whole == _run(base + ["--read", "batches"], capsys)
