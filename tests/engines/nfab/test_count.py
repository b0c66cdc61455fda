"""NFA^b's count mode (``cep run --format count``): matches are counted without being
built, and the count is exactly the number of matches the same engine builds."""
from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings

import sample_streams
from engine.dsl import parse
from engine.match import StateExplosion, run_all
from engine.engines.nfab.matcher import NfabMatcher
from engine.model import Strategy
from engine.engines.planner import ENGINES
from tests.strategies import small_patterns, small_streams

STOCK = sample_streams.events("stocks_sase")


def counted(p, events, **kw):
    m = NfabMatcher(p, count_only=True, **kw)
    built = run_all(m, events)
    return m.counted + len(built), m.counted


@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=80)
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(max_size=8))
def test_count_mode_counts_exactly_the_matches(p, events):
    assume(ENGINES["nfab"].supports(p) is None)
    try:
        want = len(run_all(NfabMatcher(p), events))
    except StateExplosion:
        assume(False)
    for merge in (True, False):
        total, _ = counted(p, events, merge=merge)
        assert total == want


def test_count_mode_builds_nothing_on_a_plain_pattern():
    p = parse(sample_streams.load("stocks_sase").presets["stock_trend_any"])
    total, only_counted = counted(p, STOCK)
    assert total == only_counted == 68


def test_cep_run_count_equals_the_printed_matches(capsys):
    from engine.commands.cli import main

    for preset in ("stocks_sase/stock_trend_any", "stocks_sase/stock_trend", "rfid/shoplifting"):
        sample = preset.split("/")[0]
        assert main(["run", f"preset:{preset}", "--data", f"sample:{sample}", "--engine", "nfab",
                     "--format", "jsonl"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert main(["run", f"preset:{preset}", "--data", f"sample:{sample}", "--engine", "nfab",
                     "--format", "count"]) == 0
        assert capsys.readouterr().out.strip() == str(len(lines))
