"""AppTest for the Debug page on a 100k-event generated stream: opened from a URL at a late
event, a jump to the last match, stepping, and the view restored from the URL.

What the page says is checked against an independent untraced run of the same matcher
(``engine.run_choice``, as ``cep run``): the step each match is emitted at and the number
of matches up to a step. One page (one pre-pass) serves most tests; the restore test opens
a second one from the URL the first wrote.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_support import ok, shown

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
DEBUG = str(ROOT / "app" / "pages" / "4_Debug.py")
N = 100_000
PATTERN = ("PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match AND [symbol] AND a.volume > 1400 "
           "AND b.price > a.price\nWITHIN 10 seconds")
URL = {"pattern": PATTERN, "data": "generated", "gen": "stocks", "n": str(N), "seed": "1"}


def _text(at: AppTest) -> str:
    return shown("\n".join([m.value for m in at.markdown] + [c.value for c in at.caption]))


@pytest.fixture(scope="module")
def emitted() -> tuple[list[Any], list[int]]:
    """The events and, per match in cep run's order, the 0-based step that emitted it (the
    close step is ``len(events)``), from an untraced run of the matcher cep run chooses."""
    from app import debug_data, runner
    from engine.dsl import parse
    from engine.run_choice import choose_run

    loaded = debug_data._generate("stocks", N, 1, "")
    p = runner.scale_window(parse(PATTERN), loaded.seconds_to_ts)
    m = choose_run(p, "auto", "auto", rates=None).build(p)
    steps = [k for k, e in enumerate(loaded.events) for _ in m.feed(e)]
    steps += [len(loaded.events)] * len(m.close())
    return list(loaded.events), steps


@pytest.fixture(scope="module")
def page() -> Any:
    """The page opened from a URL at event #99,990 (no Spark warm-up, as ``no_spark_warmup``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CEP_SPARK_WARMUP", "0")
        yield _opened()


def _opened() -> AppTest:
    at = AppTest.from_file(DEBUG, default_timeout=300)
    at.query_params.update({**URL, "event": "99990"})
    at.run()
    ok(at)
    return at


def test_opens_from_the_url_at_a_late_event(page: AppTest, emitted) -> None:
    events, steps = emitted
    at = page
    assert at.session_state["dbg_step"] == 99_989
    info = at.info[0].value.replace("**", "")
    assert f"100,000 events traced" in info and f"{len(steps):,} matches" in info
    assert "100,001 steps (the last: end of stream)" in info
    slider = at.slider(key="dbg_slider")
    assert (slider.min, slider.max, slider.value) == (1, 100_001, 99_990)
    text = _text(at)
    assert f"event #99,990 (id {events[99_989].id})" in text
    so_far = sum(1 for s in steps if s <= 99_989)
    assert f"{so_far:,} match(es) so far" in text
    assert f"##### Matches so far ({so_far:,})" in text
    assert f"{so_far:,} matches completed so far — show" in [e.label for e in at.expander]


def test_jumps_to_the_last_match_and_steps(page: AppTest, emitted) -> None:
    events, steps = emitted
    at = page
    last = len(steps)
    at.number_input(key="dbg_go_match").set_value(last).run()
    at.button(key="dbg_go_match_btn").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == steps[-1] and at.session_state["dbg_match_no"] == last
    text = _text(at)
    assert f"**Why match #{last} fired**" in text
    t = at.session_state["dbg_traced"]
    res, explained = t.explained[("match", last)]
    assert res is not None and res["index"] == last, explained
    assert t.path(last).found is not None and t.path(last).moves   # its path, traced from its first event
    at.button(key="dbg_back").click().run()
    ok(at)
    k = steps[-1] - 1
    assert at.session_state["dbg_step"] == k
    assert f"event #{k + 1:,} (id {events[k].id})" in _text(at)
    at.button(key="dbg_fwd").click().run()
    at.button(key="dbg_fwd").click().run()
    assert at.session_state["dbg_step"] == k + 2
    windows = t.traced_windows
    for _ in range(3):
        at.button(key="dbg_fwd").click().run()
    assert t.traced_windows <= windows + 1   # stepping reads the cached window
    # previous match: the last emission step before this one
    at.button(key="dbg_prev_match").click().run()
    assert at.session_state["dbg_step"] == max(s for s in steps if s < k + 5)


def test_jumps_to_an_event_by_number_and_by_id(page: AppTest, emitted) -> None:
    events, _steps = emitted
    at = page
    at.number_input(key="dbg_go_event").set_value(40_000).run()
    at.button(key="dbg_go_event_btn").click().run()
    assert at.session_state["dbg_step"] == 39_999
    at.text_input(key="dbg_go_id").input(str(events[77_776].id)).run()
    at.button(key="dbg_go_id_btn").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == 77_776
    at.text_input(key="dbg_go_id").input("no-such-id").run()
    at.button(key="dbg_go_id_btn").click().run()
    assert at.session_state["dbg_step"] == 77_776
    assert "no event has the id 'no-such-id'" in _text(at)


def test_the_url_restores_the_view(page: AppTest, emitted) -> None:
    _events, steps = emitted
    at = page
    at.number_input(key="dbg_go_match").set_value(len(steps) // 2).run()
    at.button(key="dbg_go_match_btn").click().run()
    ok(at)
    url = dict(at.query_params)
    want = steps[len(steps) // 2 - 1]
    assert url["event"] == str(want + 1) and url["match"] == str(len(steps) // 2)
    assert url["pattern"] == PATTERN and url["n"] == str(N) and url["gen"] == "stocks"
    again = AppTest.from_file(DEBUG, default_timeout=300)
    again.query_params.update(url)
    again.run()
    ok(again)
    assert again.session_state["dbg_step"] == want
    assert again.session_state["dbg_match_no"] == len(steps) // 2
    assert again.session_state["dbg_source"] == "generated" and again.session_state["dbg_gen_n"] == N
    assert f"**Why match #{len(steps) // 2} fired**" in _text(again)


def test_continue_stops_at_a_late_breakpoint(page: AppTest, emitted) -> None:
    events, steps = emitted
    at = page
    at.number_input(key="dbg_go_event").set_value(50_000).run()
    at.button(key="dbg_go_event_btn").click().run()
    emitting = set(steps)
    k = next(i for i in range(70_500, N) if i not in emitting)   # past one Continue's traced scan; no match here
    last = len(steps)
    at.text_area(key="dbg_breaks").input(f"id:{events[k].id}\nmatch:{last}").run()
    at.button(key="dbg_continue").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == k
    assert f"stopped: id:{events[k].id} reached: event #{k + 1:,}" in _text(at)
    at.button(key="dbg_continue").click().run()
    ok(at)
    assert at.session_state["dbg_step"] == steps[-1]
    assert f"match #{last:,} completed at event #{steps[-1] + 1:,}" in _text(at)
    at.text_area(key="dbg_breaks").input("").run()
