"""AppTest of the Debug page's side-by-side stepping (app/debug_side_by_side.py): two strategies
or two engines stepped together, the diverging step found and jumped to, kept in the URL.

The diverging steps of the stock example (skip_till_next_match vs skip_till_any_match:
event #2; NFA^b vs eager under skip_till_any_match: event #4) are checked by hand in
tests/test_step_compare.py."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_support import ok, select_pattern

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

DEBUG = str(Path(__file__).resolve().parents[2] / "app" / "pages" / "4_Debug.py")


def _app(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(DEBUG, default_timeout=120)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    ok(at)
    return at


def _text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [w.value for w in at.warning]
                     + [i.value for i in at.info])


def test_two_strategies_are_stepped_together_and_the_divergence_is_jumped_to():
    at = _app()
    at.selectbox(key="dbg_sbs_strategy_a").set_value("skip_till_next_match")
    at.selectbox(key="dbg_sbs_strategy_b").set_value("skip_till_any_match")
    at.button(key="dbg_sbs_run").click().run()
    ok(at)
    pair = at.session_state["dbg_sbs_pair"]
    assert pair.names == ("skip_till_next_match", "skip_till_any_match")
    assert (len(pair.a.marks), len(pair.b.marks)) == (3, 68)
    assert pair.diverge_step == 1
    assert at.session_state["dbg_sbs_step"] == 0
    assert "They diverge here" not in _text(at)
    at.button(key="dbg_sbs_jump").click().run()
    ok(at)
    assert at.session_state["dbg_sbs_step"] == 1
    warning = next(w.value for w in at.warning if "They diverge here" in w.value)
    assert "event #2 (id 2)" in warning and "A keeps 1 live run(s), B 2" in warning
    metrics = {(m.label, m.value) for m in at.metric}
    assert ("live runs (differs)", "1") in metrics and ("live runs (differs)", "2") in metrics
    assert at.query_params["sbs"] == "strategy:skip_till_next_match:skip_till_any_match"
    assert at.query_params["sbs_event"] == "2"
    # the next match on either side: event #6, where A emits 2 and B 18
    at.button(key="dbg_sbs_next_out").click().run()
    ok(at)
    assert at.session_state["dbg_sbs_step"] == 5
    metrics = [(m.label, m.value) for m in at.metric]
    assert ("matches here", "2") in metrics and ("matches here", "18") in metrics
    # the shared timeline: two lines of live runs, the divergence marked, exported as SVG
    chart = next(c for c in at.get("plotly_chart") if '"they diverge"' in c.proto.spec)
    assert '"format": "svg"' in chart.proto.config
    assert "side-by-side-skip_till_next_match-vs-skip_till_any_match" in chart.proto.config


def test_a_link_opens_the_pair_at_its_step():
    at = _app({"sbs": "strategy:strict_contiguity:skip_till_next_match", "sbs_event": "5"})
    pair = at.session_state["dbg_sbs_pair"]
    assert pair.diverge_step == 4
    assert at.session_state["dbg_sbs_step"] == 4
    assert any("They diverge here" in w.value and "event #5 (id 5)" in w.value for w in at.warning)


def test_two_engines_show_the_partial_matches_eager_keeps():
    """The stock trend under skip_till_any_match: NFA^b and eager emit the same 68 matches; at
    event #4 NFA^b keeps 9 runs and eager 10 partial matches."""
    at = AppTest.from_file(DEBUG, default_timeout=120)
    select_pattern(at, "stocks_sase", "stock_trend_any")
    at.run()
    ok(at)
    at.radio(key="dbg_sbs_mode").set_value("engine").run()
    ok(at)
    at.selectbox(key="dbg_sbs_engine_a").set_value("nfab")
    at.selectbox(key="dbg_sbs_engine_b").set_value("eager")
    at.button(key="dbg_sbs_run").click().run()
    ok(at)
    pair = at.session_state["dbg_sbs_pair"]
    assert (len(pair.a.marks), len(pair.b.marks)) == (68, 68)
    assert pair.comparison.first_matches is None and pair.diverge_step == 3
    at.button(key="dbg_sbs_jump").click().run()
    ok(at)
    warning = next(w.value for w in at.warning if "They diverge here" in w.value)
    assert "event #4 (id 4)" in warning and "A keeps 9 live run(s), B 10" in warning
    assert at.query_params["sbs"] == "engine:nfab:eager"


def test_strategies_that_agree_never_diverge():
    at = _app()
    at.selectbox(key="dbg_sbs_strategy_a").set_value("strict_contiguity")
    at.selectbox(key="dbg_sbs_strategy_b").set_value("partition_contiguity")
    at.button(key="dbg_sbs_run").click().run()
    ok(at)
    assert at.session_state["dbg_sbs_pair"].diverge_step is None
    assert any("never differ in matches, nor in live runs" in i.value for i in at.info)
    assert at.button(key="dbg_sbs_jump").disabled


def test_a_link_with_an_unknown_strategy_says_so():
    at = _app({"sbs": "strategy:skip_till_next_match:greedy"})
    assert "dbg_sbs_pair" not in at.session_state
    assert any("does not offer" in w.value for w in at.warning)


def test_a_strategy_the_engine_cannot_run_is_refused_with_the_reason():
    at = AppTest.from_file(DEBUG, default_timeout=120)
    select_pattern(at, "stocks_sase", "stock_trend_any")
    at.session_state["dbg_engine"] = "eager"
    at.run()
    ok(at)
    at.selectbox(key="dbg_sbs_strategy_a").set_value("skip_till_any_match")
    at.selectbox(key="dbg_sbs_strategy_b").set_value("skip_till_next_match")
    at.button(key="dbg_sbs_run").click().run()
    ok(at)
    assert "dbg_sbs_pair" not in at.session_state
    said = next(w.value for w in at.warning if "could not be made" in w.value)
    assert "skip_till_any_match only" in said
    assert "sbs" not in at.query_params


def test_another_page_can_ask_for_a_pair(monkeypatch):
    """``request`` (for a button that opens Debug): the pair is run on the page's next render."""
    from app import debug_side_by_side as S

    asked: dict = {}
    monkeypatch.setattr(S, "_ss", lambda: asked)
    S.request("strategy", "strict_contiguity", "skip_till_next_match", step=4)
    with pytest.raises(ValueError):
        S.request("pattern", "a", "b")
    monkeypatch.undo()   # the app below imports the same module
    at = AppTest.from_file(DEBUG, default_timeout=120)
    for key, value in asked.items():
        at.session_state[key] = value
    at.run()
    ok(at)
    assert at.session_state["dbg_sbs_pair"].diverge_step == 4 and at.session_state["dbg_sbs_step"] == 4
    assert any("They diverge here" in w.value for w in at.warning)
