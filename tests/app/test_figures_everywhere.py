"""Every chart of the app goes through app/figures.show (its caption drawn into it, the camera
exporting SVG or PNG under a meaningful name): no module draws a plotly chart by itself.

The Learn page's modules (app/learn.py, app/course*.py) are left out: they are being rewritten
on their own; app/figures.py is the one place that calls st.plotly_chart."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
EXEMPT = {"figures.py", "learn.py"}


def _exempt(path: Path) -> bool:
    return path.name in EXEMPT or path.name.startswith("course")


def _plotly_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "plotly_chart"]


def _show_calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "show" and isinstance(node.func.value, ast.Name) and node.func.value.id == "figures"]


def _modules() -> list[Path]:
    return sorted(p for p in APP.rglob("*.py") if not _exempt(p))


def test_no_app_module_draws_a_plotly_chart_past_figures_show():
    direct = {str(p.relative_to(ROOT)): lines for p in _modules() if (lines := _plotly_calls(p))}
    assert direct == {}, f"use app.figures.show (caption and export) instead of st.plotly_chart: {direct}"


def test_the_scan_sees_plotly_chart_calls_in_every_form(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import streamlit as st\nst.plotly_chart(f)\nc1.plotly_chart(f, key='x')\n"
                      "with col:\n    st.container().plotly_chart(f)\n", encoding="utf-8")
    assert _plotly_calls(sample) == [2, 3, 5]


def test_every_figures_show_call_gives_a_caption_a_key_and_a_file_name():
    calls = [(p, c) for p in _modules() for c in _show_calls(p)]
    assert len(calls) >= 20
    for path, call in calls:
        keywords = {k.arg for k in call.keywords}
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        assert len(call.args) >= 2 or "caption" in keywords, where
        assert "key" in keywords or len(call.args) >= 3, where
        assert "file_name" in keywords or len(call.args) >= 4, where
        caption = call.args[1] if len(call.args) >= 2 else next(k.value for k in call.keywords if k.arg == "caption")
        assert not (isinstance(caption, ast.Constant) and not caption.value), f"{where}: an empty caption"


def _exported(at) -> dict[str, str]:
    """file name -> caption of every chart drawn with an export name."""
    import json

    from app import figures

    out = {}
    for chart in at.get("plotly_chart"):
        cfg = json.loads(chart.proto.config)
        name = cfg.get("toImageButtonOptions", {}).get("filename")
        if name:
            spec = json.loads(chart.proto.spec)
            out[name] = next((a["text"] for a in spec["layout"].get("annotations", [])
                              if a.get("name") == figures.CAPTION_NAME), "")
    return out


def test_the_query_automaton_exports_with_its_caption(no_spark_warmup):
    from streamlit.testing.v1 import AppTest

    from sample_streams.sql_queries import presets

    at = AppTest.from_file(str(APP / "pages" / "2_Automaton.py"), default_timeout=90)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["sql_text"] = presets()["v_shape"].text
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert _exported(at)["query-automaton"].startswith("The query's row pattern compiled for the thread matcher")


def test_the_aggregate_pages_charts_export_with_their_captions(no_spark_warmup):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP / "pages" / "7_Aggregate.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _exported(at)
    timeline = [n for n in shown if n.startswith("aggregation-timeline-step-")]
    assert timeline and shown[timeline[0]].startswith("The stream at step ")
    assert any(n.startswith("aggregation-values-step-") for n in shown), shown
