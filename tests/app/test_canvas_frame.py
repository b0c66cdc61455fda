"""The invisible frame the Design canvases are fitted to (visualizers.canvas.frame_node): it holds
every node, leaves a band on its left for the zoom controls, and depends on the pattern only, so
the same pattern is always shown at the same zoom."""
from __future__ import annotations

import pytest

import sample_streams
from engine.dsl import parse
from engine.engines.sql.parser import parse_query
from sample_streams.sql_queries import presets as sql_presets
from visualizers.canvas import (CANVAS_W, CONTROLS_BAND, FIT_PADDING, MAX_ZOOM, MIN_ZOOM, frame_node, framed_height,
                                is_frame, pattern_to_canvas, without_frame)
from visualizers.sql_canvas import query_to_canvas

CONTROLS_RIGHT = 15 + 28  # React Flow's controls: 15 px from the left, a 26 px column with its border


SQL_WIDTH = 860  # app.sql_canvas.WIDTH


def _studio() -> list[tuple[str, list[dict], float]]:
    out = []
    for name in sample_streams.names():
        for preset, text in sample_streams.load(name).presets.items():
            out.append((f"{name}/{preset}", pattern_to_canvas(parse(text))[0], CANVAS_W))
    return out


def _sql() -> list[tuple[str, list[dict], float]]:
    return [(f"sql/{name}", query_to_canvas(parse_query(q.text))[0], SQL_WIDTH) for name, q in sql_presets().items()]


def _fit(frame: dict, width: float, height: float) -> tuple[float, float, float]:
    """React Flow's fitView of the frame alone: (zoom, x and y of the frame's corner on screen)."""
    fw = float(frame["style"]["width"].removesuffix("px"))
    fh = float(frame["style"]["height"].removesuffix("px"))
    zoom = min(2.0, max(MIN_ZOOM, min(width / (fw * FIT_PADDING), height / (fh * FIT_PADDING))))
    return zoom, (width - fw * zoom) / 2, (height - fh * zoom) / 2


@pytest.mark.parametrize("name, nodes, width", _studio() + _sql(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_frame_holds_the_pattern_and_a_band_for_the_controls(name, nodes, width):
    height = framed_height(nodes, width)
    frame = frame_node(nodes, width, height)
    assert is_frame(frame["id"]) and without_frame([frame, *nodes]) == nodes
    assert frame["style"]["opacity"] == 0 and frame["style"]["pointerEvents"] == "none"
    assert not frame["draggable"] and not frame["selectable"] and not frame["deletable"]
    fx, fy = frame["position"]["x"], frame["position"]["y"]
    fw = float(frame["style"]["width"].removesuffix("px"))
    fh = float(frame["style"]["height"].removesuffix("px"))
    top = [n for n in nodes if "parentId" not in n]
    for n in top:
        x, y = n["position"]["x"], n["position"]["y"]
        w = float(str(n["style"].get("width", "0")).removesuffix("px"))
        assert fx + CONTROLS_BAND <= x + 1e-6 and x + w <= fx + fw + 1e-6
        assert fy <= y and y <= fy + fh
    zoom, left, _top = _fit(frame, width, height)
    assert MIN_ZOOM <= zoom <= MAX_ZOOM + 1e-9
    # on screen, the leftmost node starts right of the controls
    first = min(n["position"]["x"] for n in top)
    assert left + (first - fx) * zoom >= CONTROLS_RIGHT, (name, zoom, left)


def test_the_same_pattern_gives_the_same_frame_and_a_new_size_a_new_id():
    p = parse("PATTERN SEQ(Stock a, Stock b)")
    q = parse("PATTERN SEQ(Stock a, Stock b, Stock c, Stock d)")
    a1 = frame_node(pattern_to_canvas(p)[0])
    a2 = frame_node(pattern_to_canvas(p)[0])
    b = frame_node(pattern_to_canvas(q)[0])
    assert a1 == a2
    assert b["id"] != a1["id"]  # measured again by the browser before it fits the view
