"""The app's pure parts: canvas <-> pattern, pattern edits, automaton and timeline figures."""
from __future__ import annotations

import json
from itertools import combinations

import pytest

import sample_streams
from app import edit
from engine.dsl import parse, to_text
from engine.match import run_all
from engine.engines.planner import make_matcher
from visualizers.automaton import AutomatonUnavailable, automaton_figure, automaton_graph, edge_table
from visualizers.canvas import canvas_summary, pattern_to_canvas
from visualizers.timeline import export_frame, jsonl_text, match_events_frame, matches_frame, timeline_figure

PRESETS = [(s, p) for s in sample_streams.names() for p in sample_streams.load(s).presets]
STOCK = sample_streams.load("stocks_sase").presets["stock_trend"]


def _pat(sample: str, preset: str):
    return parse(sample_streams.load(sample).presets[preset])


# --------------------------------------------------------------------------- canvas

@pytest.mark.parametrize("sample,preset", PRESETS)
def test_canvas_round_trip_is_identity(sample, preset):
    p = _pat(sample, preset)
    nodes, edges = pattern_to_canvas(p)
    res = edit.apply_canvas(p, nodes, edges)
    assert not res.changed and res.pattern == p
    # parents come before their children (React Flow needs it)
    seen = set()
    for n in nodes:
        if "parentId" in n:
            assert n["parentId"] in seen
        seen.add(n["id"])


def test_canvas_shows_components_groups_and_order():
    p = _pat("chemo", "chemo_cycle")  # SEQ(AND(C c, P+ p[]), B b)
    nodes, edges = pattern_to_canvas(p)
    s = canvas_summary(nodes, edges)
    assert s["nodes"] == ["AND(C c, P+ p[])", "C c", "P+ p[]", "B b"]
    assert s["edges"] == [("g:0", "c:b")]  # AND members are unordered: no edges inside
    group = nodes[0]
    assert group["data"]["group"] == "AND" and not group["deletable"]
    assert {n["parentId"] for n in nodes[1:3]} == {"g:0"}
    neg = {n["id"]: n for n in pattern_to_canvas(_pat("rfid", "shoplifting"))[0]}["c:b"]
    assert neg["data"]["content"].startswith("!Register b") and "dashed" in neg["style"]["border"]


BIG = ("PATTERN SEQ(Stock a, Stock b, Stock c, Stock+ d[], AND(Stock e, Stock f), Stock g, !Stock h, Stock i)\n"
       "WHERE skip_till_next_match AND [symbol] AND a.price > 10 AND d[i].price > d[i-1].price\n"
       "  AND i.volume < a.volume AND b.price > c.price\nWITHIN 2 hours\nOUTPUT NON_OVERLAP")


def test_canvas_shows_predicates_window_strategy_and_output():
    """Own predicates on the node, shared ones numbered on their nodes and listed,
    strategy / partition / window / output in the header."""
    from visualizers.canvas import cross_predicates, pattern_header

    p = parse(STOCK)
    nodes = {n["id"]: n for n in pattern_to_canvas(p)[0]}
    a, b = nodes["c:a"]["data"]["content"], nodes["c:b"]["data"]["content"]
    assert a.startswith("Stock+ a[]") and "`a[1].volume > 1000`" in a and "`a[i].price > avg(a[..i-1].price)`" in a
    assert "b.volume" not in a and "①" in a and "①" in b
    assert cross_predicates(p) == [("①", "b.volume < 80% * a[a.len].volume", ["a", "b"])]
    head = pattern_header(p)
    for part in ("skip_till_next_match", "partition `[symbol]`", "`WITHIN 1 hour`", "`OUTPUT ALL`"):
        assert part in head
    assert "no window" in pattern_header(parse("PATTERN SEQ(A a, B b)"))
    assert "`AGG COUNT`" in pattern_header(_pat("clicks", "login_count"))


def test_canvas_stays_readable_with_eight_or_more_components():
    from visualizers.canvas import CANVAS_W, MIN_ZOOM, canvas_extent, canvas_height

    p = parse(BIG)
    assert len(p.components()) == 9
    nodes, edges = pattern_to_canvas(p)
    w, h = canvas_extent(nodes)
    zoom = (CANVAS_W - 40) / w
    assert zoom >= 0.7, (w, zoom)  # the fit keeps 13-pixel text at 9 pixels or more
    height = canvas_height(nodes)
    assert h * zoom + 40 <= height <= 820  # and the canvas is tall enough for that zoom
    assert MIN_ZOOM >= 0.6
    ys = sorted({n["position"]["y"] for n in nodes if "parentId" not in n})
    assert len(ys) >= 3  # wrapped into rows
    res = edit.apply_canvas(p, nodes, edges)  # the wrapped drawing still reads back as the same pattern
    assert not res.changed and res.pattern == p
    # one long row would not have fitted
    assert sum(190 + 56 for _ in p.root.items) > CANVAS_W / 0.6


def _canvas(text: str):
    p = parse(text)
    nodes, edges = pattern_to_canvas(p)
    return p, nodes, edges


def test_canvas_new_node_is_appended_by_position_with_a_fresh_variable():
    p, nodes, edges = _canvas(STOCK)
    nodes.append({"id": "st-flow-node_x", "position": {"x": 900, "y": 0}, "data": {"content": "Stock"}})
    res = edit.apply_canvas(p, nodes, edges)
    assert res.changed
    assert [c.var for c in res.pattern.components()] == ["a", "b", "c"]
    assert "added `Stock c`" in res.notes
    # dropped on the far left: it comes first
    nodes[-1]["position"]["x"] = -500
    nodes[-1]["data"]["content"] = "Stock z"
    assert [c.var for c in edit.apply_canvas(p, nodes, edges).pattern.components()] == ["z", "a", "b"]


def test_canvas_new_node_inside_a_group_box_joins_the_group():
    p, nodes, edges = _canvas(sample_streams.load("chemo").presets["chemo_cycle"])
    nodes.append({"id": "n1", "position": {"x": 20, "y": 140}, "data": {"content": "X x"}})
    q = edit.apply_canvas(p, nodes, edges).pattern
    assert to_text(q).startswith("PATTERN SEQ(AND(C c, P+ p[], X x), B b)")


def test_canvas_delete_removes_predicates_that_use_the_variable():
    p, nodes, edges = _canvas(STOCK)
    res = edit.apply_canvas(p, [n for n in nodes if n["id"] != "c:b"], [])
    q = res.pattern
    assert q.variables == ["a"]
    assert all("b." not in to_text(q).split("WHERE")[1] for _ in [0])
    assert any("deleted `b`" in n for n in res.notes)
    parse(to_text(q))  # still a valid pattern


def test_canvas_edit_node_text_renames_everywhere():
    p, nodes, edges = _canvas(STOCK)
    nodes[0]["data"]["content"] = "Stock+ x[]"
    q = edit.apply_canvas(p, nodes, edges).pattern
    assert "x[1].volume > 1000" in to_text(q) and "a[" not in to_text(q)
    nodes[0]["data"]["content"] = "!Stock a"
    q = edit.apply_canvas(p, nodes, edges).pattern
    assert q.components()[0].negated


def test_canvas_drawn_edge_reorders():
    p, nodes, edges = _canvas("PATTERN SEQ(A a, B b, C c)")
    user = {"id": "st-flow-edge_c:c-c:a", "source": "c:c", "target": "c:a"}
    q = edit.apply_canvas(p, nodes, edges + [user]).pattern
    assert [c.var for c in q.components()] == ["c", "a", "b"]  # c -> a wins; b -> c would close a cycle


def test_canvas_unreadable_node_is_an_error():
    p, nodes, edges = _canvas(STOCK)
    nodes.append({"id": "n", "position": {"x": 0, "y": 300}, "data": {"content": "Stock ++ b"}})
    with pytest.raises(edit.EditError, match="cannot read"):
        edit.apply_canvas(p, nodes, edges)


def test_stale_canvas_values_are_recognised():
    from app.canvas import stale

    assert not stale([{"build": 3}, {"build": 3}, {"content": "Stock c"}], 3)
    assert stale([{"build": 2}, {"build": 2}], 3)  # a late echo of an older canvas
    assert not stale([{"content": "Stock c"}], 3)  # only new nodes: nothing to compare


# --------------------------------------------------------------------------- edits

def test_edits_build_the_stock_query_without_dsl():
    p = parse("PATTERN SEQ(Stock+ a[])")
    p = edit.add_component(p, edit.Component(type="Stock", var="b"))
    p = edit.set_strategy(p, "skip_till_next_match")
    p = edit.set_equivalence(p, ["symbol"])
    for pred in ("a[1].volume > 1000", edit.predicate_text("a", "i", "price", True) + " > "
                 + edit.predicate_text("a", "agg:avg", "price", True),
                 "b.volume < 80% * " + edit.predicate_text("a", "last", "volume", True)):
        p = edit.add_predicate(p, pred)
    p = edit.set_window(p, 1, "hour")
    q = edit.normalise(p)
    ms = run_all(make_matcher(q), sample_streams.events("stocks_sase"))
    assert len(ms) == 3


def test_edits_group_ungroup_move_and_delete():
    p = parse("PATTERN SEQ(A a, B b, C c) WHERE a.x > 1 AND b.x > a.x")
    g = edit.wrap_items(p, (), [1, 2], "AND")
    assert to_text(g).startswith("PATTERN SEQ(A a, AND(B b, C c))")
    assert edit.groups(g)[1] == ((1,), "AND(B b, C c)")
    assert to_text(edit.set_group_op(g, (1,), "OR")).startswith("PATTERN SEQ(A a, OR(B b, C c))")
    assert edit.ungroup(g, (1,)) == p
    m = edit.move_item(p, (0,), 1)
    assert [c.var for c in m.components()] == ["b", "a", "c"]
    d, notes = edit.delete_component(p, "a")
    assert d.where == [] and len(notes) == 2
    with pytest.raises(edit.EditError):
        edit.add_component(p, edit.Component(type="A", var="a"))
    u = edit.update_component(p, "b", edit.Component(type="B", var="bb", quant="plus"))
    assert "bb.x > a.x" in to_text(u) and "B+ bb[]" in to_text(u)


def test_parse_component_text():
    c, given = edit.parse_component_text("`Stock+ a[]`\n\n_one or more_")
    assert (c.type, c.var, c.quant, given) == ("Stock", "a", "plus", True)
    c, given = edit.parse_component_text("!Register")
    assert c.negated and not given
    with pytest.raises(edit.EditError):
        edit.parse_component_text("   ")


# --------------------------------------------------------------------------- automaton

def test_automaton_strategy_changes_only_ignore_labels():
    p = parse(STOCK)
    tables = {s: edge_table(automaton_graph(p, strategy=s)) for s in
              ("strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match")}
    ign = {s: t[t["edge"] == "ignore"]["shown"].tolist() for s, t in tables.items()}
    assert ign["strict_contiguity"][0].startswith("false")
    assert ign["partition_contiguity"][0].startswith("¬(e.symbol = a.symbol)")
    assert ign["skip_till_next_match"][0].startswith("¬(Stock: a[i].price > avg")
    assert ign["skip_till_any_match"][0] == "e.ts - a.ts < 1 hour"
    others = {s: t[t["edge"] != "ignore"]["shown"].tolist() for s, t in tables.items()}
    assert len({json.dumps(v) for v in others.values()}) == 1


def test_automaton_optimisation_switches():
    p = parse(STOCK)

    def shown(push, peek):
        t = edge_table(automaton_graph(p, push_window=push, peek=peek))
        return dict(zip(t["edge"] + ":" + t["from"], t["shown"]))

    basic, both = shown(False, False), shown(True, True)
    assert basic["proceed:a[i]"] == "true"
    assert both["proceed:a[i]"].startswith("(Stock: b.volume") and both["proceed:a[i]"].endswith("< 1 hour")
    assert shown(True, False)["proceed:a[i]"] == "e.ts - a.ts < 1 hour"
    assert shown(False, True)["proceed:a[i]"].endswith("∨ ¬(θ*take ∨ θ*ignore))")
    assert "1 hour" not in basic["take:a[i]"] and "1 hour" in both["take:a[i]"]
    assert "1 hour" in basic["begin:b"]  # the edge into F always has the window


def test_automaton_figure_draws_edge_kinds_and_final_double_circle():
    g = automaton_graph(parse(sample_streams.load("rfid").presets["shoplifting"]))
    fig = automaton_figure(g)
    dashes = {t.line.dash for t in fig.data if t.mode == "lines" and t.line is not None}
    assert {"solid", "dash", "dot"} <= dashes
    states = next(t for t in fig.data if t.name == "states")
    assert set(states.text) == {"a", "c", "F", "!b"}
    ring = [t for t in fig.data if t.name == "final ring"]
    assert len(ring) == 1 and list(ring[0].marker.size) == [60]  # F's outer circle, 12 px wider than F
    edges = next(t for t in fig.data if t.name == "edges")
    assert any("no Register" in h for h in edges.hovertext)


def _circles(fig):
    """State circles of an automaton figure as pixel boxes (y down)."""
    from visualizers.automaton import SCALE

    st = next(t for t in fig.data if t.name == "states")
    x0, y1 = fig.layout.xaxis.range[0], fig.layout.yaxis.range[1]
    sizes = st.marker.size if isinstance(st.marker.size, (list, tuple)) else [st.marker.size] * len(st.x)
    return [((x - x0) * SCALE - s / 2, (y1 - y) * SCALE - s / 2, (x - x0) * SCALE + s / 2, (y1 - y) * SCALE + s / 2)
            for x, y, s in zip(st.x, st.y, sizes)]


def _hits(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


@pytest.mark.parametrize("sample,preset", PRESETS)
@pytest.mark.parametrize("engine", ["nfab", "lazy-chain", "lazy-tree", "eager", "ses", "uncertain-event",
                                    "uncertain-point"])
def test_automaton_labels_never_overlap(sample, preset, engine):
    """Every engine that can draw a preset draws it with no label on another label
    or on a state, within the width the page has (labels get shorter before they collide)."""
    from visualizers.automaton import COMPACT_EDGES, MAX_WIDTH, label_boxes

    p = _pat(sample, preset)
    try:
        g = automaton_graph(p, engine, interval=engine.startswith("uncertain"))
    except AutomatonUnavailable:
        assert engine in ("nfab", "ses", "uncertain-event", "uncertain-point"), \
            "the lazy engines draw every preset (under skip_till_any_match if need be)"
        return
    fig = automaton_figure(g, compact=g.number_of_edges() > COMPACT_EDGES)  # as the Automaton page draws it
    boxes = label_boxes(fig)
    assert boxes, "the edges are labelled"
    circles = _circles(fig)
    for i, (na, a) in enumerate(boxes):
        for nb, b in boxes[i + 1:]:
            assert not _hits(a, b), (na, nb)
        for c in circles:
            assert not _hits(a, c), na
    assert fig.layout.width <= MAX_WIDTH + 40
    assert g.graph["label_overlaps"] == 0


def test_automaton_overlapping_labels_are_detected():
    """The check above can fail: two labels forced onto one spot are reported."""
    from visualizers.automaton import _Label, _place

    a = _Label("a", [("take", True)], "#000", (100.0, 100.0), "above", "", [])
    b = _Label("b", [("take", True)], "#000", (100.0, 100.0), "above", "", [])
    assert _place([a, b], []) == 0 and not _hits(a.box, b.box)  # the second one moves away
    wall = [(-1e4, -1e4, 1e4, 1e4)]
    assert _place([_Label("c", [("x", True)], "#000", (0.0, 0.0), "above", "", [])], wall) == 1


def test_automaton_windows_in_the_unit_written():
    p = _pat("chemo", "chemo_cycle")
    for engine in ("lazy-chain", "lazy-tree", "eager"):
        shown = " ".join(edge_table(automaton_graph(p, engine))["shown"])
        assert "span < 16 days" in shown and "1.3824e+06" not in shown
    rfid = edge_table(automaton_graph(_pat("rfid", "shoplifting")))
    assert any("< 12 hours" in s for s in rfid["shown"]) and not any("12 hour " in s or s.endswith("12 hour")
                                                                    for s in rfid["shown"])


def test_eager_automaton_is_the_bound_set_lattice():
    g = automaton_graph(_pat("chemo", "chemo_cycle"), "eager")  # SEQ(AND(C c, P+ p[]), B b)
    takes = sorted((u, v) for u, v, d in g.edges(data=True) if d.get("move") == "take")
    assert takes == [("q{c,p}", "F"), ("q{c}", "q{c,p}"), ("q{p}", "q{c,p}"), ("q{}", "q{c}"), ("q{}", "q{p}")]
    loops = {u for u, v, d in g.edges(data=True) if d.get("move") == "iterate"}
    assert loops == {"q{p}", "q{c,p}"}  # p keeps iterating until b is bound
    first_p = next(d for u, v, d in g.edges(data=True) if (u, v) == ("q{}", "q{p}"))
    assert "p[i]" not in first_p["formula"]  # the rising condition is on the iteration, not the first p


def test_ses_and_uncertain_drawings_explain_their_states_and_moves():
    """The SES automaton of the chemotherapy preset and the uncertain engines of
    the cluster preset, each with a legend row for every state kind, move and term drawn."""
    from visualizers.automaton import legend_rows

    ses = automaton_graph(_pat("chemo", "chemo_cycle"), "ses")
    legend = legend_rows(ses)
    assert {"initial", "state", "final", "reject", "begin", "take", "iterate", "next_set", "skip", "expire"} \
        <= set(legend["kind"])
    assert "(i,S)" in " ".join(legend["drawn as"]) and all(legend["meaning"].str.len() > 10)
    assert "span < 16 days" in " ".join(edge_table(ses)["shown"]) and ses.graph["runs_as_designed"]
    for engine, moves in (("uncertain-event", {"begin", "take", "stay", "prune", "emit", "drop"}),
                          ("uncertain-point", {"begin", "take", "stay", "expire", "collapse", "drop"})):
        g = automaton_graph(_pat("cluster", "query1"), engine, interval=True)
        legend = legend_rows(g)
        assert moves <= set(legend["kind"]), engine
        assert {"frontier F", "STAM / STNM"} <= set(legend.query("`drawn as` == 'term'")["kind"]), engine
        assert "signature" in set(legend["kind"])
        assert "drawn is what" in g.graph["note"] and "point automaton" not in g.graph["note"]
        fig = automaton_figure(g)
        assert "interval data" in fig.layout.title.text and "point automaton" not in fig.layout.title.text


def test_strategy_and_selection_notes_reach_ses_and_uncertain_engines():
    chemo = _pat("chemo", "chemo_cycle")
    g = automaton_graph(chemo, "ses", strategy="skip_till_next_match")
    assert not g.graph["runs_as_designed"] and "skip_till_next_match" in g.graph["note"]
    assert g.graph["strategy"] == "skip_till_any_match"
    earliest = _pat("chemo", "chemo_earliest")
    assert automaton_graph(earliest, "ses").graph["runs_as_designed"]  # SES selects earliest/maximal
    lazy = automaton_graph(earliest, "lazy-tree")
    assert not lazy.graph["runs_as_designed"] and "earliest_maximal" in lazy.graph["note"]
    cluster = _pat("cluster", "query1")
    nxt = automaton_graph(cluster, "uncertain-point", strategy="skip_till_next_match", interval=True)
    assert nxt.graph["runs_as_designed"] and any("NELT" in f for f in edge_table(nxt)["shown"])
    strict = automaton_graph(cluster, "uncertain-event", strategy="strict_contiguity", interval=True)
    assert not strict.graph["runs_as_designed"] and "strict_contiguity" in strict.graph["note"]
    assert "point timestamps" in automaton_graph(cluster, "uncertain-event").graph["note"]


def test_default_engine_is_what_runs_the_pattern_on_the_data():
    from visualizers.automaton import default_engine

    assert default_engine(_pat("chemo", "chemo_earliest")) == "ses"
    assert default_engine(_pat("chemo", "chemo_cycle")) == "lazy-tree"
    assert default_engine(_pat("cluster", "query1"), interval=True) == "uncertain-event"
    assert default_engine(parse(STOCK)) == "nfab"


def test_big_lazy_tree_folds_into_the_bound_set_lattice():
    """The cluster preset's lazy tree (an order of the variables per state)
    folds into one state per bound set, with the same moves, and is drawn at a readable size."""
    from visualizers.automaton import fold_states, foldable

    g = automaton_graph(_pat("cluster", "query1"), "lazy-tree")
    assert foldable(g) > 0
    f = fold_states(g)
    states = {n for n, d in f.nodes(data=True) if d["kind"] == "state"}
    assert states == {"q{" + ",".join(c) + "}" for k in (1, 2, 3) for c in combinations("abcd", k)}
    assert f.graph["folded"] == (g.number_of_nodes(), f.number_of_nodes())

    def moves(h):
        out = set()
        for u, v, d in h.edges(data=True):
            bu = frozenset(h.nodes[u].get("path") or ())
            bv = frozenset(h.nodes[v].get("path") or ()) if h.nodes[v]["kind"] == "state" else h.nodes[v]["kind"]
            out.add((bu, bv, d["move"], d.get("var"), d["formula"]))
        return out

    assert moves(f) == moves(g)  # folding merges equal moves only
    assert fold_states(f) is f and foldable(automaton_graph(parse(STOCK))) == 0
    tall, short = automaton_figure(g), automaton_figure(f)
    assert short.layout.height < tall.layout.height / 2 and f.graph["label_overlaps"] == 0


def test_compact_drawing_leaves_out_shared_loops_and_rejects_only():
    from visualizers.automaton import COMPACT_EDGES, common_moves

    g = automaton_graph(_pat("cluster", "query1"), "uncertain-event", interval=True)
    assert g.number_of_edges() > COMPACT_EDGES
    assert common_moves(g) == {"stay": 14, "prune": 14}
    fig = automaton_figure(g, compact=True)
    assert g.graph["omitted"] == {"stay": 14, "prune": 14}
    drawn = {a.name for a in fig.layout.annotations if a.name}
    assert not any(":stay" in n or "->R:prune" in n for n in drawn)
    assert any("->R:drop" in n for n in drawn)  # R stays: α → R is not a shared move
    full = automaton_figure(g)
    assert g.graph["omitted"] == {} and len(full.layout.annotations) > len(fig.layout.annotations)
    assert (edge_table(g)["move"] == "prune").sum() == 14  # the table keeps what the drawing leaves out


def test_automaton_refuses_with_reason():
    with pytest.raises(AutomatonUnavailable, match="AND"):
        automaton_graph(_pat("chemo", "chemo_cycle"))


# --------------------------------------------------------------------------- timeline and tables

def test_matches_tables_and_timeline():
    p = parse(STOCK)
    ev = sample_streams.events("stocks_sase")
    ms = run_all(make_matcher(p), ev)
    df = matches_frame(ms)
    assert df["a"].tolist() == ["1 2 3 4 5", "3 4", "1 2 3 4 5 6 7"] and df["b"].tolist() == ["6", "6", "8"]
    me = match_events_frame(ms[1], {e.id: e for e in ev})
    assert me["variable"].tolist() == ["a[1]", "a[2]", "b"]
    fig = timeline_figure(ev, ms, highlight=0)
    names = {t.name for t in fig.data}
    assert {"Stock", "variable a", "variable b"} <= names
    assert len(fig.layout.shapes) == 1  # the highlighted match band
    assert [json.loads(line)["match"] for line in jsonl_text(ms).splitlines()][0] == {"a": [1, 2, 3, 4, 5], "b": [6]}
    # downloads: one column per variable, as `cep run --format csv` writes them
    exp = export_frame(ms, ["a", "b"])
    assert list(exp.columns) == ["match", "start", "end", "a", "b"]
    assert exp.to_dict("records")[1] == {"match": 2, "start": 3, "end": 6, "a": "3 4", "b": "6"}


def test_downloads_open_as_one_column_per_variable(tmp_path):
    import pandas as pd

    ms = run_all(make_matcher(_pat("rfid", "shoplifting")), sample_streams.events("rfid"))
    exp = export_frame(ms, ["a", "c"], is_datetime=True)
    exp.to_csv(tmp_path / "m.csv", index=False)
    exp.to_parquet(tmp_path / "m.parquet", index=False)
    for back in (pd.read_csv(tmp_path / "m.csv"), pd.read_parquet(tmp_path / "m.parquet")):
        assert list(back.columns) == ["match", "start", "end", "a", "c"]
        assert back["match"].tolist() == list(range(1, len(ms) + 1))
        assert [str(x) for x in back["a"]] == [str(m.ids("a")[0]) for m in ms]
    assert str(exp["start"][0]).startswith("2024-03-01")  # date-times stay date-times
    # a variable named like a fixed column does not overwrite it
    clash = export_frame(run_all(make_matcher(parse("PATTERN SEQ(Stock start, Stock b) WHERE [symbol]")),
                                 sample_streams.events("stocks_sase")))
    assert list(clash.columns) == ["match", "start", "end", "start_ids", "b"]


def test_timeline_marks_only_the_selected_match_and_greys_what_it_skipped():
    """Match #2 of the stock query is a=[3,4], b=6: event 5 lies inside its span but is not in it."""
    ev = sample_streams.events("stocks_sase")
    ms = run_all(make_matcher(parse(STOCK)), ev)
    assert ms[1].as_dict() == {"a": [3, 4], "b": [6]}
    fig = timeline_figure(ev, ms, highlight=1)
    traces = {t.name: t for t in fig.data}
    mine = traces["match #2: its events"]
    assert list(mine.customdata) == [3, 4, 6] and list(mine.text) == ["a[1]", "a[2]", "b"]
    assert list(traces["match #2: skipped"].customdata) == [5]
    # the other events are drawn once, faded, and not as the match's
    assert sorted(traces["Stock"].customdata) == [1, 2, 7, 8]
    assert traces["Stock"].marker.opacity < 1
    assert not any(n and n.startswith(("match #1", "match #3")) for n in traces)
    # no selection: every event in its type's trace, nothing greyed
    plain = {t.name: t for t in timeline_figure(ev, ms).data}
    assert sorted(plain["Stock"].customdata) == [e.id for e in ev]
    assert not any(n and n.startswith("match #") for n in plain)


def test_timeline_zooms_to_the_matches():
    """On the clicks sample every login match lies in ts 1..26 of a stream that runs to 4200."""
    ev = sample_streams.events("clicks")
    login = _pat("clicks", "login_count").model_copy(update={"aggregate": None})  # the matches, not their count
    ms = run_all(make_matcher(login), ev)
    first, last = min(m.start for m in ms), max(m.end for m in ms)
    assert ev[-1].ts > 100 * last
    x0, x1 = timeline_figure(ev, ms).layout.xaxis.range
    assert x0 <= first and x1 >= last
    assert x1 - x0 < 1.3 * (last - first)  # the matches fill the width
    sel = timeline_figure(ev, ms, highlight=3, zoom="match").layout.xaxis.range
    assert sel[0] <= ms[3].start and sel[1] >= ms[3].end and sel[1] - sel[0] < 1.3 * (ms[3].end - ms[3].start) + 1e-9
    assert timeline_figure(ev, ms, zoom="all").layout.xaxis.range is None  # the whole stream (autorange)


def test_stats_rows_keep_counters_integer():
    from visualizers.timeline import stats_rows

    df = stats_rows({"events": 28.0, "matches": 3, "runs": {"peak": 12.0}, "seconds": 0.44123, "mode": "keyed"})
    assert dict(zip(df["stat"], df["value"])) == {"events": "28", "matches": "3", "runs.peak": "12",
                                                  "seconds": "0.4412", "mode": "keyed"}


def test_timeline_with_datetimes_and_no_matches():
    ev = sample_streams.events("rfid")
    fig = timeline_figure(ev, [], is_datetime=True)
    assert fig.data and str(fig.data[0].x[0]).startswith("2024-03-01")
