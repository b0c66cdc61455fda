"""AppTest of the Uncertain time page: the cluster sample by default,
stepping (results appear only once final), the oracle badge, the worked examples' exact
confidences, the explainer (the heatmap sums to the confidence; spoilers and NELT under
skip_till_next_match), the world explorer, pruned runs struck through, every engine."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.dsl import parse
from engine.engines.uncertain.examples import EXAMPLES
from engine.engines.uncertain.oracle import run_uncertain
from visualizers import uncertain_view as UV
from tests.app_support import ok, shown

PAGE = str(Path(__file__).resolve().parents[2] / "app" / "pages" / "6_Uncertain_time.py")


def _app() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    ok(at)
    return at


def _frame(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _results(at: AppTest) -> dict[str, str]:
    for d in at.dataframe:
        if "exact" in d.value.columns:
            return dict(zip(d.value["signature"], d.value["exact"]))
    return {}


def _example(at: AppTest, name: str, strategy: str = "as written") -> None:
    at.radio(key="unc_source").set_value("example").run()
    at.selectbox(key="unc_example").set_value(name).run()
    at.radio(key="unc_strategy").set_value(strategy).run()
    ok(at)


def _last_step(at: AppTest) -> None:
    at.slider(key="unc_step").set_value(at.slider(key="unc_step").max).run()
    ok(at)


def _oracle(name: str, strategy: str) -> dict[str, str]:
    ex = EXAMPLES[name]
    ms = run_uncertain(parse(ex.with_strategy(strategy)), ex.events())
    return {" ".join(f"{v}={ids[0]}" for v, ids in m.bindings): m.to_json()["confidence_exact"] for m in ms}


def test_cluster_sample_steps_to_final_results_with_the_oracle_badge():
    at = _app()
    assert any("53** events" in i.value and "event-based" in i.value for i in at.info)
    assert any(s.value.startswith("✓ agrees with the possible-worlds oracle") for s in at.success)
    assert at.session_state["unc_step"] == 0
    assert _results(at) == {}  # nothing is final when the first event arrives
    at.button(key="unc_next").click().run()
    ok(at)
    k = at.session_state["unc_step"]
    at_k = _results(at)
    assert k > 0 and len(at_k) >= 1
    at.button(key="unc_back").click().run()
    assert at.session_state["unc_step"] == k - 1 and len(_results(at)) < len(at_k)  # step k emitted them
    _last_step(at)
    final = _results(at)
    text = parse(open(Path(PAGE).parents[2] / "sample_streams" / "presets" / "cluster__query1.cep").read())
    from sample_streams import events

    expected = {" ".join(f"{v}={ids[0]}" for v, ids in m.bindings): m.to_json()["confidence_exact"]
                for m in run_uncertain(text, events("cluster"))}
    assert final == expected


@pytest.mark.parametrize("strategy", ["skip_till_any_match", "skip_till_next_match"])
def test_t1_exact_confidences(strategy):
    at = _app()
    _example(at, "T1", strategy)
    _last_step(at)
    assert _results(at) == _oracle("T1", strategy)
    assert any("✓ agrees" in s.value for s in at.success)


def test_explainer_heatmap_sums_to_the_confidence_and_names_the_spoilers():
    at = _app()
    _example(at, "T1", "skip_till_next_match")
    _last_step(at)
    at.selectbox(key="unc_sig_pick").set_value("a=a1 b=b3 c=c4").run()
    ok(at)
    expected = _oracle("T1", "skip_till_next_match")["a=a1 b=b3 c=c4"]
    assert any(f"the cells sum to **{Fraction(expected)}** ✓" in m.value for m in at.markdown)
    spoilers = _frame(at, "p_between")
    assert list(spoilers["id"]) == ["c2"] and spoilers["between"].tolist() == ["b and c"]
    heat = [c for c in at.get("plotly_chart") if "skip_till_next_match: with the events in between" in c.proto.spec]
    assert heat


def test_nelt_moves_with_the_step():
    at = _app()
    _example(at, "T5", "skip_till_next_match")
    at.selectbox(key="unc_sig_pick").set_value("a=a1 b=b2").run()
    values = []
    for k in range(int(at.slider(key="unc_step").max) + 1):
        at.slider(key="unc_step").set_value(k).run()
        ok(at)
        md = next(m.value for m in at.markdown if m.value.startswith("Latest next time after a=a1,"))
        values.append(md.split("**")[1])
    # b4 (arrival 3) starts after a1 ends: NELT = b4.upper = 7; b5 (arrival 4) shrinks it to 6
    assert values[0].startswith("∞") and values[3] == "7" and values[4] == "6" and values[-1] == "6"


def test_world_explorer_shows_a_worlds_order_probability_and_matches():
    at = _app()
    _example(at, "T1")
    _last_step(at)
    at.selectbox(key="unc_sig_pick").set_value("a=a1 b=b3 c=c2").run()
    sliders = {s.key: s for s in at.select_slider}
    for eid, t in (("a1", 1), ("b3", 3), ("c2", 4)):
        key = next(k for k in sliders if k.endswith(f"_{eid}"))
        at.select_slider(key=key).set_value(t).run()
    ok(at)
    line = next(shown(m.value) for m in at.markdown if m.value.startswith("This world:"))
    assert "a1@1 < b3@3 < c2@4" in line and "probability **1/45**" in line  # 1/5 * 1/3 * 1/3
    assert any("including (a1, b3, c2)" in s.value for s in at.success)


def test_pruned_runs_are_struck_through_with_the_reason():
    at = _app()
    _example(at, "T7-nested")  # the late A events move the frontier past the early runs
    at.selectbox(key="unc_mode").set_value("any-state").run()
    found = False
    for k in range(int(at.slider(key="unc_step").max)):  # the close step excluded: only the rules
        at.slider(key="unc_step").set_value(k).run()
        ok(at)
        runs = _frame(at, "valid intervals")
        if runs["pruned"].any():
            pruned = runs[runs["pruned"]]
            assert pruned["reason"].str.contains("TTL|gap|NELT").all()
            assert "line-through" in UV.style_pruned(runs).to_html()
            found = True
            break
    assert found, "no step of T7-nested prunes a run"


@pytest.mark.parametrize("engine", ["uncertain-point", "uncertain-oracle"])
def test_every_engine_gives_the_same_results(engine):
    at = _app()
    _example(at, "T5", "skip_till_next_match")
    at.selectbox(key="unc_engine").set_value(engine).run()
    _last_step(at)
    assert _results(at) == _oracle("T5", "skip_till_next_match")
    assert any("✓ agrees" in s.value for s in at.success)


def test_out_of_scope_pattern_is_refused_on_the_page():
    at = _app()
    _example(at, "T1")
    at.text_area(key="unc_text").input("PATTERN SEQ(A+ a[], B b) WITHIN 4").run()
    ok(at)
    assert any("Kleene" in e.value for e in at.error)
