"""Notebook rendering: a pattern, its automaton, a result (table and timeline), an explanation
and a trace render as HTML, offline (plotly.js inlined, no CDN), every string from the pattern
or the data escaped (the hostile pattern and cells of tests/data)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine
from engine.api import render

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTILE_PATTERN = (DATA / "hostile_pattern.cep").read_text(encoding="utf-8")
HOSTILE_CELLS = str(DATA / "hostile_cells.csv")
#: markup the hostile inputs carry; none may reach the HTML as markup
ACTIVE = re.compile(r"<iframe|<img|<a href|<script>top", re.IGNORECASE)


@pytest.fixture(autouse=True)
def plotly_js_sent(monkeypatch):
    """Figures without the plotly.js bundle (as after the first one of a kernel): its own source
    holds tags in strings, which the checks below would find."""
    monkeypatch.setattr(render, "PLOTLY_JS", "once")
    monkeypatch.setattr(render, "_sent", True)


def test_hostile_pattern_text_is_escaped():
    p = engine.parse(HOSTILE_PATTERN)
    html = p._repr_html_()
    assert not ACTIVE.search(html)
    assert "&lt;iframe srcdoc=" in html


def test_hostile_data_is_escaped_in_the_result_table_and_timeline():
    result = engine.run("PATTERN SEQ(A a, B b)", HOSTILE_CELLS)
    assert len(result) > 0
    html = result._repr_html_()
    assert "Plotly.newPlot" in html
    assert not ACTIVE.search(html)
    for e in result.all_events():
        assert not ACTIVE.search(render._esc(e.id))


def test_offline_figures_carry_plotly_js_and_no_cdn(monkeypatch):
    monkeypatch.setattr(render, "PLOTLY_JS", "always")
    p = engine.parse("PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x > b[i-1].x WITHIN 10")
    html = p.automaton()._repr_html_()
    assert "Plotly.newPlot" in html and len(html) > 1_000_000  # plotly.js inlined
    assert not re.search(r"<script[^>]*\bsrc=", html)  # nothing loaded from elsewhere
    fig = p.automaton().figure()
    assert fig.data  # the Automaton page's figure


def test_plotly_js_once_per_kernel(monkeypatch):
    monkeypatch.setattr(render, "PLOTLY_JS", "once")
    monkeypatch.setattr(render, "_sent", False)
    p = engine.parse("PATTERN SEQ(A a, B b)")
    first, second = p.automaton()._repr_html_(), p.automaton()._repr_html_()
    assert len(first) > 1_000_000 > len(second) and "Plotly.newPlot" in second


def test_rows_explanation_and_trace_render():
    rows = engine.run((Path(__file__).resolve().parents[2] / "sample_streams/presets/clicks__login_count.cep")
                      .read_text(encoding="utf-8"), "sample:clicks")
    html = rows._repr_html_()
    assert "<th>value</th>" in html and "Plotly.newPlot" in html
    result = engine.run("PATTERN SEQ(A a, B b)", HOSTILE_CELLS)
    explanation = result.explain(1)
    assert str(explanation).startswith("match #1")
    assert not ACTIVE.search(explanation._repr_html_())
    assert "match #1" in explanation._repr_html_()
    trace = result.trace()
    assert len(trace) == len(result.all_events()) + 1 and trace[-1]["step"] == "close"
    assert not ACTIVE.search(trace._repr_html_())
    plain = engine.run("PATTERN SEQ(A a, B b)", [{"type": "A", "ts": 1}, {"type": "B", "ts": 2}])
    why = plain.why_not([0, 1])
    assert why.to_dict() and "match #1" in str(why)


def test_aggregate_figure_names_are_escaped():
    rows = [{"type": "A", "ts": 1, "g": "<b>x</b>"}, {"type": "B", "ts": 2, "g": "<b>x</b>"}]
    result = engine.run("PATTERN SEQ(A a, B b) WHERE [g] AGG COUNT GROUP BY g", rows)
    fig = result.timeline()
    assert all("<b>" not in (t.name or "") for t in fig.data)
