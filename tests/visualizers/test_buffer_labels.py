"""The shared-buffer figure never overprints its text: each label's box (text length × font
size, in pixels from the figure's own layout: height, margins, axis ranges, the narrowest
width it is drawn at) meets no other label, entry, header or mark, on random buffers, at the
narrowest width and wider; one partition drawn, the others counted in the title."""
from __future__ import annotations

import html
import re
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from visualizers.trace.buffers import shared_buffer_figure

CHAR = 0.6      # an average advance for digits and brackets, of the font size
LINE = 1.2      # a text line's height, of the font size


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", str(text)))


def boxes(fig: dict, width: float) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every text box and entry square of the figure in pixels (y up)."""
    lay = fig["layout"]
    m = lay["margin"]
    xr, yr = lay["xaxis"]["range"], lay["yaxis"]["range"]
    legend = lay["meta"]["legend_space"]
    kx = (width - m["l"] - m["r"]) / (xr[1] - xr[0])
    ky = (lay["height"] - m["t"] - m["b"] - legend) / (yr[1] - yr[0])
    out = []
    for tr in fig["data"]:
        mode = tr.get("mode", "")
        if "text" not in mode and tr.get("name") != "entries":
            continue
        size = tr.get("textfont", {}).get("size", 12)
        positions = tr.get("textposition", "middle center")
        for i, (x, y) in enumerate(zip(tr["x"], tr["y"])):
            if x is None:
                continue
            px, py = (x - xr[0]) * kx, (y - yr[0]) * ky
            if tr.get("name") == "entries":
                s = tr["marker"]["size"] / 2
                w = max(s, len(_plain(tr["text"][i])) * size * CHAR / 2)
                out.append(("entry " + _plain(tr["text"][i]), (px - w, py - s, px + w, py + s)))
                continue
            text = _plain(tr["text"][i])
            pos = positions[i] if isinstance(positions, list) else positions
            vert, _, hor = pos.partition(" ")
            w, h = len(text) * size * CHAR, size * LINE
            left = {"left": px - w, "center": px - w / 2}.get(hor, px)
            bottom = {"top": py, "bottom": py - h}.get(vert, py - h / 2)
            out.append((text, (left, bottom, left + w, bottom + h)))
    return out


def overlaps(fig: dict, width: float) -> list[tuple[str, str]]:
    bad = []
    for (ta, a), (tb, b) in combinations(boxes(fig, width), 2):
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
            bad.append((ta, tb))
    return bad


def outside(fig: dict, width: float) -> list[str]:
    """Version labels not wholly inside the plot area (plotly clips them there)."""
    lay = fig["layout"]
    m = lay["margin"]
    w = width - m["l"] - m["r"]
    h = lay["height"] - m["t"] - m["b"] - lay["meta"]["legend_space"]
    return [t for t, b in boxes(fig, width) if t.startswith("[") and not (b[0] >= 0 and b[1] >= 0 and b[2] <= w
                                                                          and b[3] <= h)]


@st.composite
def buffers(draw):
    """A random shared buffer: entries in 1..5 stacks on 1..30 events, each pointing to 1..4
    earlier entries (or to nothing) with Dewey labels, some written on this step."""
    n_stacks = draw(st.integers(1, 5))
    stacks = [f"s{i}" for i in range(n_stacks)]
    n_events = draw(st.integers(1, 30))
    entries = {}
    ids = []
    for ev in range(1, n_events + 1):
        for s in draw(st.lists(st.sampled_from(stacks), min_size=1, max_size=n_stacks, unique=True)):
            eid = f"{s}@{ev}"
            preds = []
            for _ in range(draw(st.integers(1, 4))):
                to = draw(st.sampled_from(ids)) if ids and draw(st.booleans()) else None
                for _ in range(draw(st.integers(1, 6))):
                    label = ".".join(str(draw(st.integers(1, 120))) for _ in range(draw(st.integers(1, 3))))
                    preds.append({"label": label, "to": to})
            entries[eid] = {"id": eid, "state": s, "event": ev, "preds": preds, "step": ev}
            ids.append(eid)
    added = {i for i in ids if i.endswith(f"@{n_events}")}
    return entries, stacks, {ev: ev for ev in range(1, n_events + 1)}, added


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(buf=buffers(), wider=st.sampled_from([1.0, 1.37, 2.5]))
def test_no_two_labels_meet(buf, wider):
    entries, stacks, seq_of, added = buf
    fig = shared_buffer_figure(entries, stacks, seq_of, added).to_dict()
    width = fig["layout"]["meta"]["label_min_width"] * wider
    assert overlaps(fig, width) == []
    assert outside(fig, width) == []
    # every arrow's versions are in its hover text, labelled on the figure or not
    hover = " ".join(t for tr in fig["data"] if tr.get("name") == "versions" for t in tr["hovertext"])
    for e in entries.values():
        for p in e["preds"]:
            if p["to"] is not None and p["to"] in entries and e["event"] > len(seq_of) - 25 and \
                    entries[p["to"]]["event"] > len(seq_of) - 25:
                assert p["label"] in hover


def test_the_busy_case_of_the_issue_places_labels_apart():
    """Two runs' label lists on arrows between the same rows (the issue's `[1, 2, 5, +18]`
    over `[3, 4, 13, +16]`)."""
    entries = {"a@1": {"id": "a@1", "state": "a", "event": 1, "preds": [{"label": "1", "to": None}]},
               "b@1": {"id": "b@1", "state": "b", "event": 1, "preds": [{"label": "2", "to": None}]}}
    for ev in range(2, 12):
        for s in ("a", "b"):
            entries[f"{s}@{ev}"] = {"id": f"{s}@{ev}", "state": s, "event": ev, "preds": [
                {"label": str(v), "to": f"{t}@{ev - 1}"} for t in ("a", "b") for v in range(1 + ev, 22 + ev)]}
    fig = shared_buffer_figure(entries, ["a", "b"], {i: i for i in range(1, 12)}).to_dict()
    assert overlaps(fig, fig["layout"]["meta"]["label_min_width"]) == []
    labels = [t for tr in fig["data"] if tr.get("mode") == "text" and tr.get("textposition") == "middle right"
              for t in tr["text"]]
    assert labels  # some are drawn, the rest are in the hover text


def test_one_partition_drawn_the_others_counted():
    entries = {}
    part = {}
    for ev in range(1, 9):
        sym = "GOOG" if ev % 2 else "IBM"
        part[ev] = f"symbol={sym}"
        prev = ev - 2
        entries[f"a@{ev}"] = {"id": f"a@{ev}", "state": "a", "event": ev,
                              "preds": [{"label": str(ev), "to": f"a@{prev}" if prev > 0 else None}]}
    seq = {i: i for i in range(1, 9)}
    fig = shared_buffer_figure(entries, ["a"], seq, {"a@8"}, partition_of=part).to_dict()
    (ent,) = [t for t in fig["data"] if t.get("name") == "entries"]
    assert ent["text"] == ["e2", "e4", "e6", "e8"]   # the partition this step wrote to
    assert fig["layout"]["title"]["text"] == "partition symbol=IBM<br>+ 4 entries in 1 other partition"
    fig = shared_buffer_figure(entries, ["a"], seq, {"a@8"}, partition_of=part, partition="symbol=GOOG").to_dict()
    (ent,) = [t for t in fig["data"] if t.get("name") == "entries"]
    assert ent["text"] == ["e1", "e3", "e5", "e7"]
    path = [("a@7", "a@5", "7"), ("a@5", "a@3", "5")]
    fig = shared_buffer_figure(entries, ["a"], seq, {"a@8"}, path=path, partition_of=part).to_dict()
    (ent,) = [t for t in fig["data"] if t.get("name") == "entries"]
    assert ent["text"] == ["e1", "e3", "e5", "e7"]   # the chosen match's partition wins


# --------------------------------------------------------------------------- the lazy engines' buffers

def head_boxes(fig: dict, width: float) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The annotations' boxes in pixels (y up): the column headers (bottom at their y plus
    their lift) and the "+N older" notes (top at their y), centred on their column, as wide
    as their longest line."""
    lay = fig["layout"]
    m = lay["margin"]
    xr, yr = lay["xaxis"]["range"], lay["yaxis"]["range"]
    kx = (width - m["l"] - m["r"]) / (xr[1] - xr[0])
    ky = (lay["height"] - m["t"] - m["b"] - 40) / (yr[1] - yr[0])
    out = []
    for a in lay["annotations"]:
        lines = [_plain(t) for t in a["text"].split("<br>")]
        size = a["font"]["size"]
        w = max(len(t) for t in lines) * size * CHAR
        h = len(lines) * size * LINE
        px, py = (a["x"] - xr[0]) * kx, (a["y"] - yr[0]) * ky + a.get("yshift", 0)
        bottom = py if a.get("yanchor") == "bottom" else py - h
        out.append((a["text"], (px - w / 2, bottom, px + w / 2, bottom + h)))
    return out


@settings(max_examples=80, deadline=None)
@given(names=st.lists(st.text("abcxyz", min_size=1, max_size=12), min_size=1, max_size=8, unique=True),
       typed=st.booleans(), data=st.data())
def test_lazy_headers_never_meet(names, typed, data):
    from engine.trace import Step
    from visualizers.trace.buffers import lazy_buffer_figure

    bufs = {v: list(range(data.draw(st.integers(0, 40)))) for v in names if data.draw(st.booleans())}
    order = data.draw(st.permutations(names)) if data.draw(st.booleans()) else []
    types = {v: "Type" + v.upper() for v in names} if typed else None
    step = Step(step=1, event={}, buffer={"kind": "lazy", "buffers": bufs, "order": [order] if order else [],
                                          "partial": 1})
    fig = lazy_buffer_figure(step, names, types).to_dict()
    width = fig["layout"]["meta"]["label_min_width"]
    heads = head_boxes(fig, width)
    assert len([a for a in fig["layout"]["annotations"] if a["yanchor"] == "bottom"]) == len(names)
    bad = [(ta, tb) for (ta, a), (tb, b) in combinations(heads, 2)
           if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
    assert bad == []
