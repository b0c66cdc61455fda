"""``cep run`` builds events only of the types a pattern binds (``engine.type_filter``): the
output must be the very output of a run that builds every event, for every preset, engine and
match-windows mode, and on random streams with other types mixed in (count windows included)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.commands import cli
from engine.dsl import parse
from engine.engines.planner import ENGINES
from engine.type_filter import bindable_types

PRESETS = sorted(p.stem.replace("__", "/") for p in (Path(__file__).parents[2] / "sample_streams" / "presets").glob("*.cep"))


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().out


def _both(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    filtered = _run(argv, capsys)
    with monkeypatch.context() as m:
        m.setattr("engine.type_filter.bindable_types", lambda pattern: None)
        whole = _run(argv, capsys)
    return filtered, whole


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("windows", ["auto", "off"])
def test_every_preset_gives_the_same_matches(preset: str, windows: str, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    filtered, whole = _both(["run", f"preset:{preset}", "--format", "jsonl", "--match-windows", windows],
                            capsys, monkeypatch)
    assert filtered == whole


def test_a_pattern_of_some_types_skips_the_others(tmp_path: Path) -> None:
    assert bindable_types(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 5")).types == {"A", "B"}
    assert bindable_types(parse("PATTERN SEQ(A a, !C c, B b) WITHIN 5")).types == {"A", "B", "C"}
    b = bindable_types(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x > 2 AND b.x > a.x WITHIN 5"))
    assert b.filters_rows is True and [len(c) for c in b.local["A"]] == [1] and b.local["B"] == ((),)
    assert bindable_types(parse("PATTERN SEQ(A a, B b) WHERE strict_contiguity WITHIN 5")) is None
    assert bindable_types(parse("PATTERN SEQ(A a, ANY b) WHERE skip_till_any_match WITHIN 5")) is None


_PATTERNS = [
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x != 3 AND b.name != 'n1' WITHIN 6",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x > 2 AND b.name = 'n1' WITHIN 6",
    "PATTERN SEQ(A a, A b) WHERE skip_till_any_match AND a.x != 3 AND b.x <= 1.5 AND b.x > a.x WITHIN 6",
    "PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match AND b[i].x >= 2 AND c.name != 'n0' WITHIN 8",
    "PATTERN SEQ(A a, !C c, B b) WHERE skip_till_any_match AND c.x = 1 AND (a.x < 2 OR a.name = 'n2') WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x * 2 > 3 AND b.x >= 0 WITHIN 4 events",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND b.x > a.x WITHIN 6",
    "PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match AND b[i].x > a.x WITHIN 8",
    "PATTERN SEQ(A a, !C c, B b) WHERE skip_till_any_match WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 4 events",
    "PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND [x] WITHIN 3 events",
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(_PATTERNS[1], "auto", [("A", 0, "3", "n0"), ("A", 1, "1", "n0"), ("B", 1, "2", "n1"), ("B", 1, "2", "n2")])
@example(_PATTERNS[9], "auto", [("A", 0, "1", "n0"), ("C", 1, "1", "n0"), ("C", 1, "1", "n0"), ("C", 1, "1", "n0"),
                                ("B", 1, "2", "n0")])
@example(_PATTERNS[0], "auto", [("A", 0, "", "n0"), ("B", 1, "1.5", ""), ("A", 0, "3", "n0"), ("A", 1, "1", "n0"), ("B", 1, "2", "n1"), ("B", 1, "2", "n2")])
@example(_PATTERNS[10], "auto", [("C", 0, "", "n0")])  # [x]: only a type the pattern does not bind
@given(st.sampled_from(_PATTERNS), st.sampled_from(["auto", *sorted(ENGINES)]),
       st.lists(st.tuples(st.sampled_from("ABCDE"), st.integers(0, 3), st.sampled_from(["0", "1", "2", "3", "4", "", "1.5"]),
                          st.sampled_from(["n0", "n1", "n2", ""])), min_size=1, max_size=40))
def test_random_streams_give_the_same_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, text: str, engine: str,
                                              rows: list[tuple[str, int, str, str]]) -> None:
    pattern = tmp_path / "p.cep"
    pattern.write_text(text)
    data = tmp_path / "d.csv"
    ts = 0
    lines = ["id,type,ts,x,name"]
    for i, (t, gap, x, name) in enumerate(rows):
        ts += gap
        lines.append(f"{i},{t},{ts},{x},{name}")
    data.write_text("\n".join(lines) + "\n")
    filtered, whole = _both(["run", str(pattern), "--data", str(data), "--format", "jsonl", "--engine", engine],
                            capsys, monkeypatch)
    assert filtered == whole


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), st.sampled_from(["2", "1.5", "-1", "0", "3.25"]),
       st.booleans(), st.lists(st.sampled_from(["0", "1", "2", "", "1.5", "-1", "7", "3.25"]), min_size=1, max_size=30))
def test_the_numpy_comparison_equals_the_engines_closure(tmp_path: Path, op: str, literal: str, flipped: bool,
                                                          xs: list[str]) -> None:
    import numpy as np

    import engine.type_filter as tf
    from engine.events.arrow_csv import read_arrow_csv

    path = tmp_path / "d.csv"
    path.write_text("type,ts,x\n" + "".join(f"A,{k},{x}\n" for k, x in enumerate(xs)))
    table = read_arrow_csv(path)
    if table is None:
        return
    cond = f"{literal} {op} a.x" if flipped else f"a.x {op} {literal}"
    b = bindable_types(parse(f"PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND {cond} WITHIN 5"))
    pos = np.arange(len(xs))
    types = np.array(["A"] * len(xs), dtype=object)
    fast = tf.rows_that_can_bind(b, table, pos, types)
    real = tf._number_comparison
    try:
        tf._number_comparison = lambda e, column, p: None  # the closure, one distinct value at a time
        slow = tf.rows_that_can_bind(b, table, pos, types)
    finally:
        tf._number_comparison = real
    assert fast.tolist() == slow.tolist(), (cond, xs)
