"""The figures and the HTML table the pages draw from data hold no tag made from the data:
types, ids, attribute values, partition keys and column names reach plotly (which reads
``<a href>``, ``<br>``, ``<b>``, ``<span>``) and HTML as escaped text."""
from __future__ import annotations

import json

from engine.dsl import parse
from engine.events import make_stream
from engine.match import run_all
from engine.engines.planner import make_matcher
from engine.trace import Recorder, Step, record
from visualizers import aseq_view, timeline, trace_view

TYPE = '<a href="https://evil.example/t">T</a>'
IDS = ["<img src=x onerror=alert(1)>", "<b>two</b>", "<br>three", "four"]
VALUE = '<span style="font-size:90px">big</span>'


def _events():
    return make_stream([{"type": TYPE, "id": IDS[0], "ts": 1, "x": VALUE},
                        {"type": "B", "id": IDS[1], "ts": 2, "x": "<br>"},
                        {"type": TYPE, "id": IDS[2], "ts": 3, "x": VALUE},
                        {"type": "B", "id": IDS[3], "ts": 4, "x": "ok"}])


def _no_tags(fig_json: str) -> None:
    for tag in ("<a href", "<img", "<b>two", "<br>three", "<span style=\\\"font-size"):
        assert tag not in fig_json, tag
    assert "&lt;img src=x onerror=alert(1)&gt;" in fig_json


def test_run_timeline_escapes_types_ids_and_values():
    events = _events()
    # a match over the hostile events, built by hand (the type T is not a DSL name)
    from engine.match import Match

    m = Match(bindings=(("a", (IDS[0],)), ("b", (IDS[1],))), start=1, end=2, start_seq=0, end_seq=1)
    fig = timeline.timeline_figure(events, [m], highlight=0)
    text = fig.to_json()
    _no_tags(text)
    # the hover text keeps its own line breaks
    assert "<br>" in json.dumps([t.hovertext for t in fig.data if t.hovertext])


def test_debug_timeline_escapes_the_trace():
    events = make_stream([{"type": "A", "id": IDS[0], "ts": 1, "x": VALUE},
                          {"type": "B", "id": IDS[1], "ts": 2, "x": 1}])
    p = parse("PATTERN SEQ(A a, B b)")
    steps = list(record(make_matcher(p, tracer=Recorder()), events))
    fig = trace_view.cursor_timeline_figure(steps, 1, steps[-1].matches[0] if steps[-1].matches else
                                            next(m for s in steps for m in s.matches))
    _no_tags(fig.to_json())


def test_aseq_counter_table_escapes_columns_and_ids():
    step = Step(step=0, event={"id": IDS[0], "type": TYPE, "ts": 1},
                buffer={"columns": [TYPE, "<script>x</script>"],
                        "rows": [{"id": IDS[0], "start": IDS[0], "ts": 1, "exp": 5, "partition": VALUE,
                                  "counts": [1, 2]}]})
    out = aseq_view.counter_table_html(step, "COUNT", query="<img src=q>")
    assert "<img" not in out and "<script" not in out and "<a href" not in out and "<span style" not in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out and "&lt;script&gt;" in out
    assert "\n" not in out


def test_aseq_timeline_escapes_types_and_ids():
    events = _events()
    cats = [["START"], ["TRIG"], ["START"], ["TRIG"]]
    fig = aseq_view.timeline_figure(events, cats, 1, 10.0)
    _no_tags(fig.to_json())


def test_matches_run_over_hostile_ids():
    """The hostile ids go through the engine unchanged (escaping is only for display)."""
    events = make_stream([{"type": "A", "id": IDS[0], "ts": 1}, {"type": "B", "id": IDS[1], "ts": 2}])
    ms = run_all(make_matcher(parse("PATTERN SEQ(A a, B b)")), events)
    assert [m.as_dict() for m in ms] == [{"a": [IDS[0]], "b": [IDS[1]]}]
