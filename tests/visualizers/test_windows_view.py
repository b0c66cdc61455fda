"""visualizers/windows_view.py: the match-window views read from Algorithm 1's trace on the paper's
Chemo example (P1 with earliest_maximal, §5): each key's window with its counters and bit vectors,
the verdict of every completed window, the lanes figure, and the pruning table of §5.8 (calls of A
and events given to A under each combination of techniques)."""
from __future__ import annotations

import json

import pytest

import sample_streams
from engine.dsl import parse
from engine.engines.windows.matcher import MatchWindowMatcher
from engine.engines.planner import make_matcher
from engine.trace import Recorder, record
from visualizers import windows_view as WV


@pytest.fixture(scope="module")
def chemo():
    text = sample_streams.load("chemo").presets["chemo_cycle"]
    return parse(text.replace("WHERE [PID]", "WHERE earliest_maximal AND [PID]")), sample_streams.events("chemo")


@pytest.fixture(scope="module")
def steps(chemo):
    p, events = chemo
    return list(record(MatchWindowMatcher(p, Recorder()), events))


def test_has_windows_only_for_algorithm_1(chemo, steps):
    p, events = chemo
    assert WV.has_windows(steps)
    assert not WV.has_windows(list(record(make_matcher(p, "ses", tracer=Recorder()), events)))


def test_the_window_of_patient_1_after_e3(chemo, steps):
    """Examples 10 and 13: window e1 e2 e3, counters (1, 1, 0), β_s = 001, β_e of e3 = 010, c
    must follow a and b."""
    h = WV.window_history(steps)
    snap = h.state(2)[h.key_of[3]]
    assert snap["window"] == [1, 2, 3]
    frame = WV.statistic_frame(WV.plan_for(chemo[0]), snap, h.beta_e[3])
    assert list(frame["counter"]) == [1, 1, 0] and "".join(frame["counter is zero"]) == "001"
    assert "".join(frame["this event fits"]) == "010" and list(frame["must follow"]) == ["000", "000", "110"]


def test_the_verdicts_of_the_completed_windows(steps):
    """e14 completes patient 1's windows: e1 passes and A is called; e2 and e3 are skipped.
    The close step drains patient 2's: six windows, A called on three."""
    h = WV.window_history(steps)
    at_e14 = WV.verdict_frame(h, 13)
    assert list(at_e14["first event"]) == ["e3", "e2", "e1"] and list(at_e14["matcher called"]) == ["no", "no", "yes"]
    assert "no candidate for c" in at_e14["verdict"].iloc[0]
    assert "the first event e2 fits no first variable" in at_e14["verdict"].iloc[1]
    every = WV.verdict_frame(h)
    assert len(every) == 6 and list(every["matcher called"]).count("yes") == 3
    assert list(at_e14["event"]) == ["#14", "#14", "#14"] and set(every["event"]) == {"#14", "end of stream"}
    assert WV.verdict_frame(h, 2).empty and list(WV.verdict_frame(h, 2).columns)[:3] == ["event", "first event", "key"]


def test_the_lanes_figure_has_a_lane_per_key_and_the_filtered_lane(chemo, steps):
    h = WV.window_history(steps)
    fig = WV.lanes_figure(steps, 5, float(chemo[0].window.size), h, False, key_name="PID")
    spec = json.dumps(fig.to_plotly_json(), default=str)
    assert f'"{WV.FILTERED_LANE}"' in spec and "partition key (PID)" in spec
    assert set(h.keys()) <= {str(k) for k in (1, 2, 3)} and len(h.filtered) >= 1


def test_pruning_reproduces_the_papers_counts(chemo):
    """§5.8: 14 calls and 100 events given to A without pruning, 3 and 15 with f+p+c; 3 matches in every row."""
    frame = WV.pruning_frame(*chemo)
    assert list(frame["techniques"]) == [label for label, _ in WV.TECHNIQUES]
    assert list(frame["matcher calls"]) == [14, 13, 13, 4, 3]
    assert list(frame["events given to the matcher"]) == [100, 86, 46, 38, 15]
    assert set(frame["matches"]) == {3} and list(frame["false positives"])[-1] == 0
    assert list(frame["calls saved"])[0] == "0%" and list(frame["calls saved"])[-1] == "79%" and list(frame["events saved"])[-1] == "85%"
    fig = WV.pruning_figure(frame)
    assert [list(t.y) for t in fig.data] == [[14, 13, 13, 4, 3], [100, 86, 46, 38, 15]]


def test_plan_for_refuses_an_unsound_pattern():
    assert WV.plan_for(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5")) is None
