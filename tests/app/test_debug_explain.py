"""app/debug_explain.py: the explanation trees as rows (no streamlit), and in a small AppTest
script: a click on a predicate focuses it, the pattern marks it, a second click clears it."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

import sample_streams
from app.debug_explain import MAX_GROUPS, ROWS_PER_GROUP, node_focus, node_markdown, tree_groups
from engine.dsl import parse
from engine.explain import explain_match, explain_why_not
from engine.explain.tree import Node, explanation_tree
from tests.app_support import ok
from visualizers import escape

SRC = sample_streams.load("stocks_sase").presets["stock_trend_any"]
EVENTS = sample_streams.events("stocks_sase")


def test_rows_name_what_a_click_focuses_with_unique_keys():
    res = explain_match(parse(SRC), EVENTS, 1)
    root = explanation_tree(res, {e.id: e.seq for e in EVENTS})
    groups = tree_groups(root, "t")
    rows = [r for _title, _open, rs in groups for r in rs]
    keys = [r.key for r in rows]
    assert len(keys) == len(set(keys)) and all(k.startswith("t_") for k in keys)
    preds = [r.focus["predicate"] for r in rows if r.focus and "predicate" in r.focus]
    assert preds == ["a[1].volume > 1000", "b.volume < 80% * a[a.len].volume", "b.symbol = a[1].symbol"]
    events = [r.focus["event"] for r in rows if r.focus and "event" in r.focus]
    assert events == [1, 2, 3, 4, 5, 6]
    # the last event's group is open (the match completes there); the skipped events 2..5 are one closed group
    opened = {title: o for title, o, _rows in groups}
    assert opened["event #6 (id 6) · Stock @ 6"]
    assert opened["event #2 (id 2) · Stock @ 2 … event #5 (id 5) · Stock @ 5: 4 events skipped"] is False


def test_a_long_explanation_is_drawn_in_bounded_groups():
    steps = [{"kind": "begin", "event": 0, "type": "A", "ts": 0, "state": "a", "edge": "begin", "to": "a",
              "text": "t", "predicates": []}]
    for i in range(1, 500):  # a Kleene variable taking 499 events, each with two predicates
        steps.append({"kind": "take", "event": i, "type": "A", "ts": i, "state": "a", "edge": "take", "to": "a",
                      "text": "t",
                      "predicates": [{"text": "a[i].x > a[i-1].x", "values": {"a[i].x": i}, "result": True},
                                     {"text": "a[i].y < 3", "values": {"a[i].y": 0}, "result": True}]})
        steps.append({"kind": "skip", "event": 1000 + i, "type": "B", "ts": i, "state": "a", "edge": "ignore",
                      "formula": "¬take", "why": "w", "predicates": []})
    res = {"verdict": "match", "index": 1, "engine": "x", "match": {"a": list(range(500))}, "start": 0, "end": 499,
           "steps": steps}
    groups = tree_groups(explanation_tree(res), "t")
    assert len(groups) == MAX_GROUPS + 1
    assert sum(1 for g in groups if g[2][0].focus is None and "more group" in g[2][0].text) == 1
    assert all(len(rows) <= ROWS_PER_GROUP + 1 for _t, _o, rows in groups)
    assert groups[-1][0].startswith("event id 1499")  # the last one drawn: the run's end


def test_a_failing_reason_is_open_and_marked():
    res = explain_why_not(parse(SRC), EVENTS, "1,3,5")
    groups = tree_groups(explanation_tree(res, {e.id: e.seq for e in EVENTS}), "w")
    reason = next(g for g in groups if g[0].startswith("reason"))
    assert reason[1]
    failed = [r for r in reason[2] if r.failed]
    assert len(failed) == 1 and failed[0].text.startswith(":red[✗]")
    assert "b.volume = 999" in failed[0].text  # full values


def test_markdown_is_escaped_and_values_never_cut():
    long = "x" * 300 + " end"
    n = Node("predicate", "", conjunct="a.k = '`**<b>**`'", values={"a.k": long}, result=True)
    md = node_markdown(n)
    assert md.startswith(":green[✓] " + escape.code("a.k = '`**<b>**`'"))  # a code span shows it literally
    assert md.endswith(" · a.k = " + "x" * 300 + " end")
    assert node_focus(n) == {"predicate": "a.k = '`**<b>**`'"}
    edge = Node("edge", "begin at a → F", state="a", to="F", edge="begin", children=[n, Node("note", "x")])
    assert node_focus(edge) == {"edge": {"state": "a", "to": "F", "edge": "begin"}, "predicates": [n.conjunct]}
    assert node_focus(Node("note", "n")) is None


SCRIPT = '''
import streamlit as st
import sample_streams
from app import debug_explain
from engine.dsl import parse
from engine.explain import explain_match, format_text
src = sample_streams.load("stocks_sase").presets["stock_trend_any"]
events = sample_streams.events("stocks_sase")
res = explain_match(parse(src), events, 1)
debug_explain.pattern_panel(src)
debug_explain.why_fired(res, format_text(res), {e.id: e.seq for e in events}, key="fired")
st.write(repr(debug_explain.figure_focus()))
'''


def test_clicking_a_predicate_marks_it_in_the_pattern():
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    ok(at)
    assert "dbg_focus" not in at.session_state
    # the predicate a[1].volume > 1000: under event #1's begin (group 1 holds event #1)
    keys = [b.key for b in at.button]
    pred_key = next(k for k in keys if k.startswith("fired_0.0.0."))
    at.button(key=pred_key).click().run()
    ok(at)
    assert at.session_state["dbg_focus"] == {"predicate": "a[1].volume > 1000"}
    html = "".join(h.proto.body for h in at.get("html"))
    assert "<mark>a[1].volume &gt; 1000</mark>" in html
    assert any("({'predicate': 'a[1].volume > 1000'}, None)" in m.value for m in at.markdown)
    at.button(key=pred_key).click().run()  # a second click clears it
    assert "dbg_focus" not in at.session_state
    ev_key = next(k for k in keys if k == "fired_0.0")  # event #1
    at.button(key=ev_key).click().run()
    assert at.session_state["dbg_focus"] == {"event": 1}
    assert any("(None, 1)" in m.value for m in at.markdown)
    # a move (event #6's begin at b -> F): on the automaton, and its two predicates in the pattern
    at.button(key="fired_0.5.1").click().run()
    ok(at)
    assert at.session_state["dbg_focus"]["edge"] == {"state": "b", "to": "F", "edge": "begin"}
    html = "".join(h.proto.body for h in at.get("html"))
    assert "<mark>symbol</mark>" in html and "<mark>b.volume &lt; 80% * a[a.len].volume</mark>" in html
    assert "<mark>a[1].volume" not in html
