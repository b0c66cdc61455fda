"""Tests of engine/engines/aseq/select.py: how the planner runs an AGG pattern.

- ``supports``: the refusals (no AGG, a trailing negation) with their text; None when A-Seq aggregates
  the pattern, when the SASE stacks build its matches, or when a match engine does; and the message
  naming A-Seq's reason and every match engine's when none builds them;
- ``choose_aggregate``: ``auto`` -> the aseq spec; a named engine -> None (chosen as usual); a
  refusal or interval data -> EngineUnsupported whatever the engine.
"""
from __future__ import annotations

import pytest

from engine.dsl import parse
from engine.engines import planner
from engine.engines.aseq.select import AGG_ENGINES, choose_aggregate, supports
from engine.match import EngineUnsupported

TRAILING = "PATTERN SEQ(A a, B b, !C c) AGG COUNT WITHIN 5"


def test_agg_engines() -> None:
    assert AGG_ENGINES == ("aseq", "aseq-baseline")


def test_refusals() -> None:
    assert supports(parse("PATTERN SEQ(A a, B b)")) == (
        "A-Seq computes aggregates: the pattern needs an AGG clause (e.g. `AGG COUNT`)")
    assert supports(parse(TRAILING)).startswith("AGG with a trailing negation: a match is confirmed only when")


@pytest.mark.parametrize("text", [
    "PATTERN SEQ(A a, B b) AGG COUNT",                                   # A-Seq itself
    "PATTERN SEQ(A a, B b, C c) WHERE c.x > b.x AGG COUNT",              # the SASE stacks
    "PATTERN SEQ(A a, B+ b[], C c) AGG COUNT",                           # a match engine (Kleene)
    "PATTERN SEQ(A a, B b) WHERE skip_till_next_match AGG COUNT",        # a match engine (strategy)
])
def test_supported(text: str) -> None:
    assert supports(parse(text)) is None


def test_no_engine_builds_the_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    p = parse("PATTERN SEQ(A a, B+ b[], C c) AGG COUNT")
    refused = {name: f"{name} says no" for name in planner.ENGINES}
    monkeypatch.setattr(planner, "reasons", lambda pattern, interval=False: refused)
    why = supports(p)
    assert why is not None and why.startswith("A-Seq cannot aggregate it without its matches (")
    assert "Kleene" in why.split("), and no engine builds them (")[0]
    detail = why.split("), and no engine builds them (")[1]
    named = [n for n, s in planner.ENGINES.items() if n not in AGG_ENGINES and not s.interval]
    assert detail == "; ".join(f"{n}: {n} says no" for n in named) + ")"
    assert "aseq-baseline" not in detail and "uncertain-point" not in detail
    refused["nfab"] = None
    assert supports(p) is None


def test_choose_aggregate() -> None:
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT")
    assert choose_aggregate(p) is planner.ENGINES["aseq"]
    for engine in ("aseq", "aseq-baseline", "nfab", "lazy-chain"):
        assert choose_aggregate(p, engine) is None


def test_choose_aggregate_refuses_whatever_the_engine() -> None:
    for engine in ("auto", "aseq", "nfab"):
        with pytest.raises(EngineUnsupported, match="^AGG with a trailing negation"):
            choose_aggregate(parse(TRAILING), engine)
        with pytest.raises(EngineUnsupported, match="^AGG patterns are aggregated over point timestamps; this data "
                                                     "has uncertainty intervals$"):
            choose_aggregate(parse("PATTERN SEQ(A a, B b) AGG COUNT"), engine, interval=True)
    with pytest.raises(EngineUnsupported, match="needs an AGG clause"):
        choose_aggregate(parse("PATTERN SEQ(A a, B b)"))


def test_auto_refuses_what_no_engine_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    p = parse("PATTERN SEQ(A a, B+ b[], C c) AGG COUNT")
    monkeypatch.setattr(planner, "reasons", lambda pattern, interval=False: {n: "no" for n in planner.ENGINES})
    with pytest.raises(EngineUnsupported, match="^A-Seq cannot aggregate it without its matches"):
        choose_aggregate(p)
    assert choose_aggregate(p, "nfab") is None


def test_the_stacks_suffice_without_a_match_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planner, "reasons", lambda pattern, interval=False: {n: "no" for n in planner.ENGINES})
    assert supports(parse("PATTERN SEQ(A a, B b, C c) WHERE c.x > b.x AGG COUNT")) is None
