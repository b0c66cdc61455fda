"""app/figures.py: every figure carries its caption and exports as SVG (or PNG) under a
meaningful file name; the Debug page's figures and the Automaton page's drawing use it."""
from __future__ import annotations

import json
from pathlib import Path

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from app import figures
from tests.app_support import ok

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
DEBUG = str(ROOT / "app" / "pages" / "4_Debug.py")
AUTOMATON = str(ROOT / "app" / "pages" / "2_Automaton.py")


def test_the_config_sets_the_camera_to_svg_with_the_file_name():
    cfg = figures.config("automaton-event-3")
    assert cfg["displaylogo"] is False
    assert cfg["toImageButtonOptions"] == {"format": "svg", "filename": "automaton-event-3"}
    png = figures.config("x", "png")["toImageButtonOptions"]
    assert png["format"] == "png" and png["scale"] == figures.PNG_SCALE
    assert figures.config("x", "gif")["toImageButtonOptions"]["format"] == "svg"  # an unknown format: SVG


@pytest.mark.parametrize("name,stem", [("side-by-side-a-vs-b", "side-by-side-a-vs-b"),
                                       ("../../etc/passwd", "etc-passwd"), ("<script>", "script"),
                                       ("", "figure"), ("a b\nc", "a-b-c")])
def test_file_names_are_safe(name, stem):
    assert figures.file_stem(name) == stem


def test_the_caption_is_written_into_the_figure_once_and_escaped():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    fig.update_layout(height=300)
    figures.with_caption(fig, "Runs of <b>A</b> & B " + "word " * 40)
    figures.with_caption(fig, "Runs of <b>A</b> & B " + "word " * 40)   # a rerun: not added twice
    caps = [a for a in fig.layout.annotations if a.name == figures.CAPTION_NAME]
    assert len(caps) == 1
    assert caps[0].text.startswith("Runs of &lt;b&gt;A&lt;/b&gt; &amp; B") and "<br>" in caps[0].text
    assert fig.layout.height > 300 and fig.layout.margin.b > figures.DEFAULT_BOTTOM
    assert caps[0].yref == "paper" and caps[0].yanchor == "top"


def _charts(at: AppTest) -> dict[str, object]:
    return {c.proto.id: c for c in at.get("plotly_chart")}


def _caption_of(chart) -> str:
    spec = json.loads(chart.proto.spec)
    return next(a["text"] for a in spec["layout"]["annotations"] if a.get("name") == figures.CAPTION_NAME)


def test_the_debug_pages_figures_export_with_their_captions():
    at = AppTest.from_file(DEBUG, default_timeout=120)
    at.run()
    ok(at)
    charts = [c for c in at.get("plotly_chart") if "toImageButtonOptions" in json.loads(c.proto.config)]
    configs = [json.loads(c.proto.config) for c in charts]
    names = {c["toImageButtonOptions"]["filename"] for c in configs}
    assert {"automaton-event-1", "timeline-event-1", "shared-buffer-event-1"} <= names, names
    assert all(c["toImageButtonOptions"]["format"] == "svg" for c in configs)
    captions = {json.loads(c.proto.config)["toImageButtonOptions"]["filename"]: _caption_of(c) for c in charts}
    assert captions["automaton-event-1"].startswith("The automaton of the pattern (NFA^b (SASE+)) at event #1 (id 1)")
    assert captions["shared-buffer-event-1"].startswith("The shared buffer after event #1 (id 1)")
    # one choice for the page's figures (no control under each chart: the page stays short)
    assert not [s for s in at.get("segmented_control") if s.key in ("dbg_automaton_format", "dbg_timeline_format")]
    at.segmented_control(key="dbg_fig_format").set_value("png").run()
    ok(at)
    configs = {json.loads(c.proto.config).get("toImageButtonOptions", {}).get("filename"): json.loads(c.proto.config)
               for c in at.get("plotly_chart")}
    for name in ("automaton-event-1", "timeline-event-1", "shared-buffer-event-1"):
        assert configs[name]["toImageButtonOptions"]["format"] == "png", name


def test_the_automaton_page_offers_its_drawing_as_svg():
    at = AppTest.from_file(AUTOMATON, default_timeout=120)
    at.run()
    ok(at)
    chart = at.get("plotly_chart")[0]
    cfg = json.loads(chart.proto.config)
    assert cfg["toImageButtonOptions"] == {"format": "svg", "filename": "automaton-nfab"}
    assert cfg.get("displayModeBar") is not False
    assert _caption_of(chart).startswith("The automaton of the pattern as NFA^b (SASE+) runs it:")
