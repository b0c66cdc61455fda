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
    assert bindable_types(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 5")) == {"A", "B"}
    assert bindable_types(parse("PATTERN SEQ(A a, !C c, B b) WITHIN 5")) == {"A", "B", "C"}
    assert bindable_types(parse("PATTERN SEQ(A a, B b) WHERE strict_contiguity WITHIN 5")) is None
    assert bindable_types(parse("PATTERN SEQ(A a, ANY b) WHERE skip_till_any_match WITHIN 5")) is None


_PATTERNS = [
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND b.x > a.x WITHIN 6",
    "PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match AND b[i].x > a.x WITHIN 8",
    "PATTERN SEQ(A a, !C c, B b) WHERE skip_till_any_match WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 4 events",
    "PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND [x] WITHIN 3 events",
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(_PATTERNS[3], "auto", [("A", 0, 1), ("C", 1, 1), ("C", 1, 1), ("C", 1, 1), ("B", 1, 2)])
@given(st.sampled_from(_PATTERNS), st.sampled_from(["auto", *sorted(ENGINES)]),
       st.lists(st.tuples(st.sampled_from("ABCDE"), st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=40))
def test_random_streams_give_the_same_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, text: str, engine: str,
                                              rows: list[tuple[str, int, int]]) -> None:
    pattern = tmp_path / "p.cep"
    pattern.write_text(text)
    data = tmp_path / "d.csv"
    ts = 0
    lines = ["id,type,ts,x"]
    for i, (t, gap, x) in enumerate(rows):
        ts += gap
        lines.append(f"{i},{t},{ts},{x}")
    data.write_text("\n".join(lines) + "\n")
    filtered, whole = _both(["run", str(pattern), "--data", str(data), "--format", "jsonl", "--engine", engine],
                            capsys, monkeypatch)
    assert filtered == whole
