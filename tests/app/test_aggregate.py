"""AppTest of the Aggregate page (app/aggregate.py): the paper's examples step by
step (counter table with formulas, negation resets, expired rows, Σ), the baseline panel
and its agreement badge at every step, the PreTree of a workload, the fallback note, the
current pattern, the generated ticker stream, and the step controls."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "app" / "pages" / "7_Aggregate.py")

pytestmark = pytest.mark.slow


def _app() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def _table(at: AppTest) -> str:
    got = [m.value for m in at.markdown if "aseq-counters" in m.value]
    assert got, "the counter table is shown"
    return got[0]


def _rows(html: str) -> dict[str, list[str]]:
    """START id -> the cell texts of its row (first line of each cell)."""
    out = {}
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", html):
        cells = [re.sub(r"<br>.*", "", re.sub(r"<(?!br)[^>]+>", "", c)).strip()
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
        if cells:
            out[cells[0]] = cells[1:]
    return out


def _step(at: AppTest, k: int) -> AppTest:
    at.session_state["agg_step"] = k
    at.run()
    assert not at.exception, at.exception
    return at


def _button(at: AppTest, key: str) -> AppTest:
    next(b for b in at.button if b.key == key).click()
    at.run()
    assert not at.exception, at.exception
    return at


def test_example3_step_by_step_with_the_baseline():
    at = _app()
    assert at.selectbox(key="agg_example").value.startswith("Counts per start event")
    _button(at, "agg_next_trig")  # d1
    assert at.session_state["agg_step"] == 6
    rows = _rows(_table(at))
    assert rows["a1"][:6] == ["1", "8", "1", "2", "2", "2"] and rows["a2"][:6] == ["4", "11", "1", "1", "0", "0"]
    assert re.search(r'class="aseq-sum">2<', _table(at))
    assert "Lemma 1" in _table(at)
    assert any("agree" in s.value and "A-Seq 2 = baseline 2" in s.value for s in at.success)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["matches built so far"] == "2" and metrics["stored matches"] == "2"
    _button(at, "agg_fwd")  # c3 at 8: a1 leaves the window
    html = _table(at)
    assert 'class="expired"' in html and "<s>a1</s>" in html
    assert "a1" not in _rows(html) and re.search(r'class="aseq-sum">0<', html)
    _button(at, "agg_next_trig")  # d2
    assert at.session_state["agg_step"] == 9
    assert any("A-Seq 1 = baseline 1" in s.value for s in at.success)
    _button(at, "agg_back")
    assert at.session_state["agg_step"] == 8


def test_negation_reset_is_shown_in_red():
    at = _app()
    at.selectbox(key="agg_example").select("A negated event resets the count").run()
    _step(at, 2)  # c1
    html = _table(at)
    assert "reset (RR)" in html and "#ffcdd2" in html
    assert _rows(html)["a1"][2:5] == ["1", "0", "0"]
    _step(at, 5)  # d1
    assert any("A-Seq 2 = baseline 2" in s.value for s in at.success)


def test_every_example_agrees_at_every_step():
    from app.aggregate import EXAMPLES, compute, stream
    from visualizers.aseq_view import agreement

    for title, ex in EXAMPLES.items():
        t = compute(title, stream(ex.stream, ex.attrs), ex.text, ex.chops)
        assert sum(len(s.matches) for s in t.steps) > 0, title
        assert all(agreement(t.steps[k].matches, t.base_rows(k)) for k in range(len(t.steps))), title


def test_pretree_of_a_workload_and_sum_example():
    at = _app()
    at.selectbox(key="agg_example").select("Five queries sharing their common start").run()
    assert not at.exception
    assert any("Shared prefix tree" in m.value for m in at.markdown)
    _button(at, "agg_next_trig")
    out = [d.value for d in at.dataframe if "query" in getattr(d.value, "columns", [])]
    assert out and out[0]["query"].tolist() == ["Q2"]
    at.selectbox(key="agg_example").select("An exact SUM").run()
    _step(at, 5)
    assert any("A-Seq 12 = baseline 12" in s.value for s in at.success)


def test_current_pattern_a_fallback_and_tickers():
    import sample_streams
    from engine.dsl import parse

    at = _app()
    at.selectbox(key="agg_example").select("The current pattern on the sample data").run()
    assert any("no AGG clause" in w.value for w in at.warning)  # the default preset lists matches
    # the login_count preset on the clicks sample: A-Seq and the baseline agree at every TRIG
    txt = sample_streams.load("clicks").presets["login_count"]
    at.session_state["cep_pattern"], at.session_state["cep_text"] = parse(txt), txt
    at.session_state["cep_sample"] = "clicks"
    at.run()
    assert not at.exception and "Sample **clicks**" in " ".join(c.value for c in at.caption)
    t = at.session_state["agg_traced"]
    assert [(r["event"], r["group"], r["value"]) for s in t.steps for r in s.matches][:2] == \
        [(4, "10.0.0.1", 1), (5, "10.0.0.1", 2)]
    # a predicate between two non-START events: the baseline runs, and the page says why
    txt2 = txt.replace("WHERE [IP]", "WHERE [IP] AND c.user != b.user")
    at.session_state["cep_pattern"], at.session_state["cep_text"] = parse(txt2), txt2
    at.run()
    assert any("Fallback to the baseline" in w.value for w in at.warning)
    assert any("cannot aggregate this pattern without its matches" in i.value for i in at.info)
    at.selectbox(key="agg_example").select("A generated ticker stream").run()
    assert not at.exception
    at.toggle(key="agg_neg").set_value(True).run()
    assert any("!T9" in c.value for c in at.code)
    _button(at, "agg_next_trig")
    assert any("agree" in s.value for s in at.success)


def test_play_advances_and_stops_at_the_end():
    at = _app()
    _button(at, "agg_play")
    assert at.session_state["agg_playing"] is True
    _button(at, "agg_play")
    assert at.session_state["agg_playing"] is False
    n = len(at.session_state["agg_traced"].steps)
    _step(at, n - 1)
    assert "end of the stream" in " ".join(m.value for m in at.markdown)
