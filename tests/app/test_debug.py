"""AppTest for the Debug and Learn pages: what a person sees after clicking and typing.

The Spark warm-up is switched off (``CEP_SPARK_WARMUP=0``); neither page needs Spark."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.dsl import parse
from tests.app_support import ok, select_pattern, shown

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
DEBUG = str(ROOT / "app" / "pages" / "4_Debug.py")
LEARN = str(ROOT / "app" / "pages" / "5_Learn.py")


def _app(path: str, timeout: float = 120) -> AppTest:
    at = AppTest.from_file(path, default_timeout=timeout)
    at.run()
    ok(at)
    return at


def _preset(at: AppTest, sample: str, preset: str) -> AppTest:
    return select_pattern(at, sample, preset)


def _md(at: AppTest) -> str:
    return shown("\n".join([m.value for m in at.markdown] + [c.value for c in at.caption]))


# --------------------------------------------------------------------------- Debug

def test_debug_opens_on_the_stock_preset_at_the_first_event():
    at = _app(DEBUG)
    assert at.title[0].value == "Debug"
    assert at.session_state["dbg_step"] == 0
    assert "8 events traced with NFA^b (SASE+) (chosen by auto)" in at.info[0].value.replace("**", "")
    assert "3 matches" in at.info[0].value.replace("**", "")
    text = _md(at)
    assert "event #1 (id 1) · Stock at ts 1" in text
    assert "9 steps (the last: end of stream)" in at.info[0].value.replace("**", "")
    slider = at.slider(key="dbg_slider")
    assert (slider.min, slider.max, slider.value) == (1, 9, 1)   # the summary's count is the slider's range
    assert "##### Shared buffer (1 entries)" in text
    engines = at.selectbox(key="dbg_engine").options
    assert engines[0].startswith("auto") and any("NFA^b" in o for o in engines)


def test_debug_steps_to_the_event_that_completes_a_match():
    at = _app(DEBUG)
    at.button(key="dbg_next_match").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == 5
    assert [s.value for s in at.success] == ["2 matches completed on this step:  \n#1 · `a=1,2,3,4,5 b=6`  \n"
                                             "#2 · `a=3,4 b=6`"]
    text = _md(at)
    assert "2 completed here" in text
    # the highlighted match's run and its explanation (engine.explain)
    assert "Its run: begin #1 (id 1) (a[1] → a[i]) → take #2 (id 2) (a[i])" in text
    codes = [c.value for c in at.code]
    assert any(c.startswith("match #1 (engine nfab): a=[1,2,3,4,5] b=[6]") for c in codes)
    # pick match #2 by its number: its run is R2 of the paper
    at.number_input(key="dbg_match_no").set_value(2).run()
    ok(at)
    assert ("Its run: begin #3 (id 3) (a[1] → a[i]) → take #4 (id 4) (a[i]) → proceed #6 (id 6) (a[i] → b) → "
            "begin #6 (id 6) (b → F)") in _md(at)
    assert any(c.startswith("match #2 (engine nfab): a=[3,4] b=[6]") for c in at.code.values)


def test_debug_back_forward_and_slider():
    at = _app(DEBUG)
    at.button(key="dbg_fwd").click().run()
    at.button(key="dbg_fwd").click().run()
    assert at.session_state["dbg_step"] == 2
    assert "##### Runs (2)" in _md(at)
    at.button(key="dbg_back").click().run()
    assert at.session_state["dbg_step"] == 1
    at.slider(key="dbg_slider").set_value(9).run()   # 1-based: the 9th step is the end of stream
    ok(at)
    assert at.session_state["dbg_step"] == 8
    assert "**end of stream**" in _md(at)
    at.button(key="dbg_prev_match").click().run()
    assert at.session_state["dbg_step"] == 7       # e8 completes match #3


def test_debug_play_moves_on_without_recomputing_the_trace():
    import time

    at = _app(DEBUG)
    traced = at.session_state["dbg_traced"]
    at.select_slider(key="dbg_speed").set_value(8.0).run()
    at.button(key="dbg_play").click().run()
    ok(at)
    assert at.session_state["dbg_playing"] is True
    assert at.button(key="dbg_play").label == "Pause"
    time.sleep(0.6)                                 # at 8 steps/s the clock is 4+ steps on
    at.run()
    ok(at)
    assert at.session_state["dbg_step"] >= 3
    assert at.session_state["dbg_traced"] is traced  # the same trace object: nothing recomputed
    assert "rendered in" in _md(at)
    time.sleep(1.2)                                 # past the last step: play stops at the close step
    at.run()
    ok(at)
    assert at.session_state["dbg_playing"] is False
    assert at.session_state["dbg_step"] == 8
    assert "**end of stream**" in _md(at)
    at.button(key="dbg_play").click().run()          # Play again starts over from the first event
    assert at.session_state["dbg_playing"] is True and at.session_state["dbg_step"] < 8
    at.button(key="dbg_play").click().run()
    assert at.session_state["dbg_playing"] is False


def test_debug_why_not_for_a_non_match():
    at = _app(DEBUG)
    at.multiselect(key="dbg_whynot_ids").set_value([1, 2, 6]).run()
    at.button(key="dbg_whynot_go").click().run()
    ok(at)
    err = at.error[0].value
    assert err.startswith("`1,2,6` is not a match. **strategy**: skip_till_next_match")
    assert "event 3 satisfies the take formula" in err
    assert "Did you mean match #1?" in at.info[-1].value
    at.button(key="dbg_whynot_near").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == 5 and at.session_state["dbg_match_no"] == 1
    # a spec that is a match
    at.text_input(key="dbg_whynot_spec").input("a=3,4;b=6").run()
    at.button(key="dbg_whynot_go").click().run()
    assert any(s.value == "`a=3,4;b=6` is match #2: a=3,4 b=6" for s in at.success)
    # a predicate reason with its values
    at.text_input(key="dbg_whynot_spec").input("2,6").run()
    at.button(key="dbg_whynot_go").click().run()
    assert "**predicate**: adding event 2 to `a` (begin at a[1]): a[1].volume > 1000 is false" in shown(at.error[0].value)


def test_debug_a_bad_spec_is_a_message():
    at = _app(DEBUG)
    at.text_input(key="dbg_whynot_spec").input("a=1;zz=99").run()
    at.button(key="dbg_whynot_go").click().run()
    ok(at)
    assert at.warning and at.warning[-1].value.startswith("`a=1;zz=99`:")


def test_debug_lazy_engines_on_a_generated_skewed_stream():
    at = AppTest.from_file(DEBUG, default_timeout=120)
    at.run()
    at.session_state["cep_pattern"] = parse("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match "
                                            "AND a.price < c.price WITHIN 2 s")
    at.session_state["cep_text"] = "PATTERN SEQ(A a, B b, C c)"
    at.session_state["cep_rev"] += 1
    at.run()
    at.radio(key="dbg_source").set_value("generated").run()
    at.selectbox(key="dbg_gen").set_value("skewed").run()
    at.number_input(key="dbg_gen_n").set_value(120).run()
    ok(at)
    assert "lazy chain NFA" in at.info[0].value  # auto prefers the lazy chain on skewed rates
    for engine in ("lazy-chain", "lazy-tree", "eager"):
        at.selectbox(key="dbg_engine").set_value(engine).run()
        ok(at)
        at.button(key="dbg_next_match").click().run()
        ok(at)
        assert at.success, engine
        assert ("##### Buffers and partial matches" if engine != "eager" else "##### Partial matches") in _md(at)
        assert at.session_state["dbg_traced"].engine == engine


def test_debug_caps_a_stream_longer_than_it_runs_and_says_so(monkeypatch):
    import app.debug

    monkeypatch.setattr(app.debug, "MAX_EVENTS", 5)
    at = _app(DEBUG)
    assert "only the first 5 of 8 events are run" in at.warning[0].value


def test_debug_loads_another_preset():
    at = _app(DEBUG)
    at.selectbox(key="dbg_preset").set_value("rfid · shoplifting").run()
    at.button(key="dbg_use_preset").click().run()
    ok(at)
    assert at.session_state["cep_sample"] == "rfid"
    assert "16 events traced" in at.info[0].value.replace("**", "")
    at.button(key="dbg_next_match").click().run()
    ok(at)
    assert at.success


# --------------------------------------------------------------------------- Learn

def test_learn_four_strategies_with_their_counts():
    at = _app(LEARN)
    assert at.title[0].value == "Learn"
    counts = [m.value for m in at.metric if m.label == "matches"]
    assert counts[:4] == ["2", "2", "3", "68"]   # the first view; later issues add theirs below
    text = _md(at)
    for s in ("strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"):
        assert f"**{s}**" in text
    assert "§3.4" in text and "§4.5 step 3" in text
    codes = [c.value for c in at.code]
    assert "ignore at a[i]: false" in codes and "ignore at a[i]: true" in codes
    assert "68 distinct matches; 65 found by one strategy only" in text


def test_learn_lazy_vs_eager():
    at = _app(LEARN)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["pattern (SEQ) order"] == "a → b → c"
    assert metrics["chain evaluation order"] == "b → c → a"
    assert float(metrics["partial matches: eager / lazy chain"].rstrip("×")) > 1.5
    assert "Kolchinsky & Schuster §2.2" not in _md(at)  # plain words first; the paper in its expander
    papers = [e for e in at.expander if e.label == "In the papers"]
    assert any("Kolchinsky and Schuster" in m.value and "§2.2" in m.value for e in papers for m in e.markdown)
    at.text_input(key="lrn_lazy_rates").input("A:1, B:10, C:5").run()
    ok(at)
    assert {m.label: m.value for m in at.metric}["chain evaluation order"] == "a → c → b"


def test_learn_current_pattern_on_its_sample():
    at = AppTest.from_file(LEARN, default_timeout=120)
    at.run()
    _preset(at, "rfid", "shoplifting")
    at.radio(key="lrn_strat_src").set_value("current").run()
    ok(at)
    assert len([m for m in at.metric if m.label == "matches"]) >= 4


@pytest.mark.parametrize("preset,engine_title,what", [
    ("cluster · query1", "imprecise timestamps, event-based", "4** matches"),
    ("clicks · login_count", "A-Seq (aggregates without matches)", "7** aggregate rows"),
])
def test_debug_steps_through_every_engine_kind(preset, engine_title, what):
    """Interval data runs on the uncertain engines (as the planner chooses for it); an AGG
    pattern on A-Seq shows its aggregate rows; no match-only feature breaks on them."""
    at = _app(DEBUG)
    at.selectbox(key="dbg_preset").set_value(preset).run()
    at.button(key="dbg_use_preset").click().run()
    ok(at)
    assert engine_title in at.info[0].value and what in at.info[0].value
    at.button(key="dbg_next_match").click().run()
    ok(at)
    assert at.session_state["dbg_step"] > 0
    for engine in at.selectbox(key="dbg_engine").options[1:]:
        at.selectbox(key="dbg_engine").set_value(engine).run()
        at.button(key="dbg_next_match").click().run()
        ok(at)
        assert not at.error, (engine, [e.value for e in at.error])


# --------------------------------------------------------------------------- breakpoints, URL, filters

def test_debug_continue_stops_at_breakpoints():
    at = _app(DEBUG)
    at.text_area(key="dbg_breaks").input("match:3\nbogus").run()
    ok(at)
    assert "cannot read breakpoint `bogus`" in _md(at)
    at.button(key="dbg_continue").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == 7       # e8 completes match #3
    assert "stopped: match #3 completed at event #8 (id 8)" in _md(at)
    at.button(key="dbg_continue").click().run()
    assert at.session_state["dbg_step"] == 7       # nothing further: the step stays
    assert "no breakpoint holds from end of stream to end of stream" in _md(at)
    assert at.query_params["break"] == "match:3\nbogus"


def test_debug_play_stops_at_a_breakpoint():
    import time

    at = _app(DEBUG)
    at.text_area(key="dbg_breaks").input("event:4").run()
    at.select_slider(key="dbg_speed").set_value(8.0).run()
    at.button(key="dbg_play").click().run()
    time.sleep(1.2)                                 # at 8 steps/s the clock is past event #4
    at.run()
    ok(at)
    assert at.session_state["dbg_playing"] is False
    assert at.session_state["dbg_step"] == 3
    assert "Play stopped: event:4 reached" in _md(at)


def test_debug_url_restores_the_view_and_refuses_a_bad_pattern():
    at = AppTest.from_file(DEBUG, default_timeout=120)
    at.query_params.update({"data": "sample", "sample": "stocks_sase", "event": "6", "match": "2",
                            "engine": "nfab", "windows": "off"})
    at.run()
    ok(at)
    assert at.session_state["dbg_step"] == 5 and at.session_state["dbg_match_no"] == 2
    assert at.selectbox(key="dbg_engine").value == "nfab"
    assert "**Why match #2 fired**" in _md(at)
    bad = AppTest.from_file(DEBUG, default_timeout=120)
    bad.query_params.update({"pattern": "PATTERN SEQ(", "data": "sample", "sample": "stocks_sase"})
    bad.run()
    ok(bad)
    assert any("the pattern in the link does not parse" in w.value for w in bad.warning)


def test_debug_an_upload_named_in_the_url_is_asked_for():
    at = AppTest.from_file(DEBUG, default_timeout=120)
    at.query_params.update({"data": "upload", "file": "ticks.csv"})
    at.run()
    ok(at)
    assert any("`ticks.csv`" in i.value and "upload it again" in i.value for i in at.info)


def test_debug_filters_runs_by_run_and_by_event():
    at = _app(DEBUG)
    at.session_state["dbg_step"] = 4                # e5: runs 1 and 2 are alive
    at.run()
    runs = next(d.value for d in at.dataframe if "bindings" in d.value.columns and "state" in d.value.columns)
    assert list(runs["run"]) == ["1", "2"]
    bindings = dict(zip(runs["run"], runs["bindings"]))
    assert bindings == {"1": "a=[1, 2, 3, 4, 5]", "2": "a=[3, 4]"}, bindings   # SASE+ Fig. 3: R1 and R2
    at.text_input(key="dbg_filter_event").input("1").run()
    ok(at)
    runs = next(d.value for d in at.dataframe if "bindings" in d.value.columns and "state" in d.value.columns)
    assert list(runs["run"]) == ["1"]               # only R1 holds e1 (SASE+ Fig. 3: R2 begins at e3)
    at.text_input(key="dbg_filter_event").input("3").run()
    runs = next(d.value for d in at.dataframe if "bindings" in d.value.columns and "state" in d.value.columns)
    assert list(runs["run"]) == ["1", "2"]          # both hold e3
    at.text_input(key="dbg_filter_event").input("").run()
    at.text_input(key="dbg_filter_run").input("2").run()
    runs = next(d.value for d in at.dataframe if "bindings" in d.value.columns and "state" in d.value.columns)
    assert list(runs["run"]) == ["2"]
    assert "Filtering by run 2" in _md(at)


def test_debug_compares_two_strategies_as_cep_diff():
    """Side A: the stock preset (skip_till_next_match, 3 matches); side B: the same pattern
    under skip_till_any_match. The sides are the two `cep run` outputs as sets."""
    import sample_streams

    at = _app(DEBUG)
    any_text = sample_streams.load("stocks_sase").presets["stock_trend_any"]
    at.text_area(key="dbg_diff_text").input(any_text).run()
    at.button(key="dbg_diff_go").click().run()
    ok(at)
    a, b, result, _sig = at.session_state["dbg_diff"][0]
    side_a = {str(m.to_json()["match"]) for m in a.matches}
    side_b = {str(m.to_json()["match"]) for m in b.matches}
    counts = {m.label: m.value for m in at.metric}
    assert counts["only in A"] == f"{len(side_a - side_b):,}" and counts["only in B"] == f"{len(side_b - side_a):,}"
    assert counts["in both"] == f"{len(side_a & side_b):,}" and len(side_a) == 3
    assert side_a <= side_b                         # any-match finds every next-match match here
    one_sided = next(i for i, x in enumerate(result.lines, 1) if x.side == "b")
    at.number_input(key="dbg_diff_line").set_value(one_sided).run()
    at.button(key="dbg_diff_whynot").click().run()
    ok(at)
    no, text = at.session_state["dbg_diff_answer"]
    assert no == one_sided and "skip_till_next_match" in text   # A's strategy is why A has not got it
    both = next(i for i, x in enumerate(result.lines, 1) if x.side == "both")
    at.number_input(key="dbg_diff_line").set_value(both).run()
    number = at.session_state["dbg_traced"].number({"match": result.lines[both - 1].match})
    at.button(key="dbg_diff_show").click().run()
    assert at.session_state["dbg_match_no"] == number


def test_debug_filters_runs_by_partition_key():
    """The stock preset partitions by [symbol]: both runs at e5 are GOOG's (the sample's
    first events are GOOG ticks)."""
    at = _app(DEBUG)
    at.session_state["dbg_step"] = 4
    at.run()
    at.text_input(key="dbg_filter_key").input("GOOG").run()
    ok(at)
    runs = next(d.value for d in at.dataframe if "bindings" in d.value.columns and "state" in d.value.columns)
    assert list(runs["run"]) == ["1", "2"]
    at.text_input(key="dbg_filter_key").input("MSFT").run()
    assert not any("bindings" in d.value.columns and "state" in d.value.columns and len(d.value)
                   for d in at.dataframe)
    assert "0 of 2 listed run(s) match the filter" in _md(at)
