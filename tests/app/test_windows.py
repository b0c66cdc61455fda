"""AppTest for the match-window views: the Debug page on the chemotherapy preset
with the engine ``match-windows`` (lanes per patient, the counters and bit vectors of the
window, the NMC verdict of every window), and the Learn page's pruning view (14 calls and
100 events without pruning, 3 and 15 with all techniques, the paper's §5.8)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import sample_streams
from tests.app_support import ok, select_pattern
from tests.support import preset_matches as _cep_run

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
DEBUG = str(ROOT / "app" / "pages" / "4_Debug.py")
LEARN = str(ROOT / "app" / "pages" / "5_Learn.py")


def _chemo(path: str, selection: str = "") -> AppTest:
    at = AppTest.from_file(path, default_timeout=120)
    txt = sample_streams.load("chemo").presets["chemo_cycle"]
    if selection:
        txt = txt.replace("WHERE [PID]", f"WHERE {selection} AND [PID]")
    select_pattern(at, "chemo", "chemo_cycle", txt)
    at.run()
    ok(at)
    return at


def _text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


FRAMES = {"mw_stat": "fits when", "mw_verdicts": "counter test", "mw_pruning": "events given to the matcher"}


def _frame(at: AppTest, key: str):
    """The dataframe shown under ``key`` (found by a column only it has), or None."""
    return next((d.value for d in at.dataframe if FRAMES[key] in d.value.columns), None)


def test_debug_runs_an_event_set_pattern_in_match_windows_as_cep_run_does():
    at = _chemo(DEBUG)
    assert at.selectbox(key="dbg_match_windows").value == "auto"
    assert "match windows" in at.selectbox(key="dbg_engine").options
    info = at.info[0].value.replace("**", "")
    assert "traced with match windows around event sets (SES) (match windows auto) (chosen by auto)" in info
    assert "10 matches" in info and "##### Match windows" in _text(at)
    at.selectbox(key="dbg_match_windows").set_value("off").run()
    ok(at)
    assert "traced with lazy tree NFA (chosen by auto)" in at.info[0].value.replace("**", "")
    assert "set **Match windows** to **on** above" in _text(at)
    assert _frame(at, "mw_verdicts") is None


def test_debug_steps_through_the_match_windows_of_the_chemo_preset():
    at = _chemo(DEBUG, "earliest_maximal")
    at.selectbox(key="dbg_engine").set_value("match-windows").run()
    ok(at)
    assert "3 matches" in at.info[0].value.replace("**", "")
    assert "##### Match windows" in _text(at)
    lanes = next(c for c in at.get("plotly_chart") if '"partition key (PID)"' in c.proto.spec)
    assert '"filtered"' in lanes.proto.spec  # e6 greyed on its own lane
    # step 3 = e3: patient 1's window e1 e2 e3, counters (1, 1, 0), β_s = 001
    at.session_state["dbg_step"] = 2
    at.run()
    ok(at)
    assert "**Window of key 1** · 3 event(s): e1 e2 e3" in _text(at)
    stat = _frame(at, "mw_stat")
    assert list(stat["counter"]) == [1, 1, 0] and "".join(stat["counter is zero"]) == "001"
    assert list(stat["must follow"]) == ["000", "000", "110"] and "".join(stat["this event fits"]) == "010"
    assert _frame(at, "mw_verdicts") is None  # no window complete yet
    # e14 completes patient 1's windows: e1 passes and A finds the match, e2 and e3 are skipped
    at.session_state["dbg_step"] = 13
    at.run()
    ok(at)
    verdicts = _frame(at, "mw_verdicts")
    assert list(verdicts["first event"]) == ["e3", "e2", "e1"]
    assert list(verdicts["matcher called"]) == ["no", "no", "yes"]
    assert "the first event e2 fits no first variable" in verdicts["verdict"].iloc[1]
    assert "no candidate for c" in verdicts["verdict"].iloc[0]
    # the close step drains patient 2's window: e4 skipped, e5 and e7 called
    at.session_state["dbg_step"] = 14
    at.run()
    ok(at)
    verdicts = _frame(at, "mw_verdicts")
    assert len(verdicts) == 6 and list(verdicts["matcher called"]).count("yes") == 3


def test_learn_pruning_view_reproduces_the_papers_counts():
    at = AppTest.from_file(LEARN, default_timeout=180)
    at.run()
    ok(at)
    assert any(h.value == "Pruning by match windows" for h in at.header)
    frame = _frame(at, "mw_pruning")
    assert list(frame["matcher calls"]) == [14, 13, 13, 4, 3]
    assert list(frame["events given to the matcher"]) == [100, 86, 46, 38, 15]
    assert set(frame["matches"]) == {3} and list(frame["false positives"])[-1] == 0
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["calls of the matcher"] == "14 → 3" and metrics["events given to the matcher"] == "100 → 15"
    at.radio(key="mw_inner").set_value("lazy-tree").run()
    ok(at)
    frame = _frame(at, "mw_pruning")
    assert set(frame["matcher"]) == {"lazy-tree"} and set(frame["matches"]) == {3}


def test_learn_pruning_view_refuses_an_unsound_pattern():
    at = AppTest.from_file(LEARN, default_timeout=180)
    at.run()  # the stock preset: skip_till_next_match
    at.radio(key="mw_src").set_value("current").run()
    ok(at)
    assert any("skip_till_next_match" in w.value for w in at.warning)


# --------------------------------------------------------------------------- numbering as cep run

PRESETS = [("chemo", "chemo_cycle"), ("chemo", "chemo_earliest"), ("trades", "three_tickers"),
           ("trades", "rising_then_falling")]


def _preset(sample: str, preset: str) -> AppTest:
    at = select_pattern(AppTest.from_file(DEBUG, default_timeout=180), sample, preset)
    at.run()
    ok(at)
    return at


@pytest.mark.parametrize("mode", ["on", "off"])
@pytest.mark.parametrize("sample,preset", PRESETS)
def test_debug_numbers_and_explains_every_match_as_cep_run(capsys, sample, preset, mode):
    """Match #K of the Debug page (its table, its highlight, its explanation) is match #K of
    `cep run --match-windows MODE` and of `cep explain --match K`, for every K."""
    printed = _cep_run(capsys, sample, preset, mode)
    at = _preset(sample, preset)
    at.selectbox(key="dbg_match_windows").set_value(mode).run()
    ok(at)
    t = at.session_state["dbg_traced"]
    assert t.match_windows == mode and (t.engine == "match-windows") == (mode == "on")
    assert {k: m["match"] for k, m in t.by_number.items()} == dict(enumerate(printed, 1))
    ks = range(1, len(printed) + 1) if sample == "chemo" else sorted({1, (len(printed) + 1) // 2, len(printed)})
    for k in ks:
        at.session_state["dbg_match_no"] = k
        at.run()
        ok(at)
        assert at.session_state["dbg_traced"] is t  # the trace is computed once
        res, text = t.explained[("match", k)]
        assert res is not None, text
        assert res["index"] == k and res["match"] == printed[k - 1] and "numbers this match differently" not in text
        assert f"**Why match #{k} fired**" in _text(at)


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_run_page_numbers_matches_as_cep_run(capsys, sample, preset):
    """The Run page runs the matcher `cep run` runs (match windows by default for these
    presets) and lists its matches in `cep run`'s order: row #K is `cep run`'s #K."""
    printed = _cep_run(capsys, sample, preset, "auto")
    at = select_pattern(AppTest.from_file(str(ROOT / "app" / "pages" / "3_Run.py"), default_timeout=180),
                        sample, preset)
    at.run()
    ok(at)
    at.button(key="run_go").click().run()
    ok(at)
    assert any("match-windows" in s.value for s in at.success), [s.value for s in at.success]
    table = next(d.value for d in at.dataframe if "#" in d.value.columns and "events" in d.value.columns)
    variables = list(printed[0])
    rows = [{v: [int(i) for i in str(r[v]).split()] for v in variables} for _, r in table.iterrows()]
    assert list(table["#"]) == list(range(1, len(printed) + 1))
    assert rows == printed
