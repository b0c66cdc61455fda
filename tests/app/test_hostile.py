"""AppTest: a hostile pattern (a string literal that closes a code span and holds an
``<iframe srcdoc>``) and a hostile CSV (ids, types, a header and values holding ``<iframe>``,
``<img>``, markdown images and links, Streamlit directives, math) on every page: every
markdown element shows the text escaped (no raw tag, link or image outside a code span) and the
hostile text is shown literally somewhere. The browser side is tests/app/browser/test_hostile.py."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_support import ok, select_pattern, shown
from tests.visualizers.test_canvas_escape import _code_spans, _outside_code_spans

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "app" / "pages"
DATA = ROOT / "tests" / "data"
PATTERN = (DATA / "hostile_pattern.cep").read_text()
CELLS = (DATA / "hostile_cells.csv").read_bytes()
# what must never stand in markdown outside a code span: a tag, a link or image, an autolink,
# a Streamlit directive
RAW = re.compile(r"(?<!\\)<(?:iframe|img|a |b>|script)|(?<!\\)\]\(|https?://evil|www\.evil|(?<!\\):red\[|"
                 r"@evil\.example")


def _markdown_values(at: AppTest) -> list[str]:
    """Every element whose text Streamlit renders as markdown."""
    out: list[str] = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader"):
        out += [str(e.value) for e in getattr(at, kind)]
    out += [str(e.label) for e in at.expander]
    return out


def assert_no_markup(at: AppTest) -> list[str]:
    """No hostile markup outside code spans in any markdown element; returns the values."""
    values = _markdown_values(at)
    for v in values:
        bad = RAW.search(_outside_code_spans(v.replace("\\`", "")))
        assert bad is None, (bad.group(0), v)
    return values


def _shown_text(values: list[str]) -> str:
    """What the markdown elements show: escapes removed, code spans' content included."""
    return "\n".join(shown(v) + " " + " ".join(_code_spans(v)) for v in values)


def _open(page: str, text: str = PATTERN) -> AppTest:
    at = AppTest.from_file(str(PAGES / page), default_timeout=120)
    select_pattern(at, "stocks_sase", "", text=text, remember_preset=False)
    at.run()
    ok(at)
    return at


def test_design_shows_the_hostile_pattern_escaped_and_the_canvas_gets_no_html():
    at = _open("1_Design.py")
    values = assert_no_markup(at)
    from app.canvas import KEY  # noqa: F401 - the canvas state lives in the session
    flow = at.session_state["cep_flow"]
    for node in flow.nodes:
        content = node.data["content"]
        assert not RAW.search(_outside_code_spans(content)), content
    a = next(n for n in flow.nodes if n.id == "c:a").data["content"]
    assert any('<iframe srcdoc="<script>' in s for s in _code_spans(a))
    assert values


def test_design_load_of_a_hostile_cep_file():
    at = AppTest.from_file(str(PAGES / "1_Design.py"), default_timeout=120)
    at.run()
    upload = next(u for u in at.file_uploader if "cep" in u.allowed_type or ".cep" in u.allowed_type)
    upload.set_value(("<img src=x onerror=alert(1)>.cep", PATTERN.encode(), "text/plain")).run()
    ok(at)
    assert "<iframe srcdoc=" in at.session_state["cep_text"]
    values = assert_no_markup(at)
    assert "<img src=x onerror=alert(1)>.cep" in _shown_text(values)  # the file name, shown literally


def _run_with_hostile_cells(at: AppTest) -> AppTest:
    at.radio(key="run_source").set_value("upload").run()
    at.file_uploader(key="run_upload").set_value(("hostile ![x](https://evil.example/f.png).csv", CELLS,
                                                  "text/csv")).run()
    ok(at)
    at.button(key="run_go").click().run()
    ok(at)
    return at


def test_run_shows_hostile_cells_and_file_name_escaped():
    at = _run_with_hostile_cells(_open("3_Run.py"))
    values = assert_no_markup(at)
    text = _shown_text(values)
    assert "hostile ![x](https://evil.example/f.png).csv" in text.replace("\u2060", "")
    assert any("2 matches" in s.value for s in at.success), [s.value for s in at.success]
    # the timeline: types and ids reach plotly as text, never as tags
    spec = at.get("plotly_chart")[0].proto.spec
    assert "<iframe" not in spec and "<img" not in spec and "<a href" not in spec
    assert "&lt;img src=x onerror" in spec


def test_debug_steps_through_hostile_cells_escaped():
    at = _open("4_Debug.py")
    at.radio(key="dbg_source").set_value("upload").run()
    at.file_uploader(key="dbg_upload").set_value(("cells.csv", CELLS, "text/csv")).run()
    ok(at)
    assert not at.error, [e.value for e in at.error]
    at.button(key="dbg_next_match").click().run()
    ok(at)
    values = assert_no_markup(at)
    text = _shown_text(values)
    assert "![x](https://evil.example/p.png)" in text.replace("\u2060", "")  # an id, shown literally
    # why not: a spec naming the hostile ids
    at.text_input(key="dbg_whynot_spec").input("a=![x](https://evil.example/p.png);b=www.evil.example/id").run()
    at.button(key="dbg_whynot_go").click().run()
    ok(at)
    assert_no_markup(at)
    for chart in at.get("plotly_chart"):
        spec = chart.proto.spec
        assert "<iframe" not in spec and "<img" not in spec and "<a href" not in spec, spec[:300]


def test_automaton_learn_and_aggregate_escape_the_hostile_pattern():
    at = _open("2_Automaton.py")
    # the sample has no types A and B: warnings (as Run), their text escaped
    assert any("A" in shown(w.value) for w in at.warning), [w.value for w in at.warning]
    assert_no_markup(at)
    at = _open("5_Learn.py")
    at.radio(key="lrn_strat_src").set_value("current").run()
    ok(at)
    assert_no_markup(at)
    at = _open("7_Aggregate.py")
    at.selectbox(key="agg_example").select("The current pattern on the sample data").run()
    ok(at)
    assert_no_markup(at)


def test_automaton_draws_the_hostile_pattern_on_data_that_has_its_attribute():
    at = AppTest.from_file(str(PAGES / "2_Automaton.py"), default_timeout=120)
    select_pattern(at, "stocks_sase", "", text=PATTERN, remember_preset=False)
    at.session_state["cep_data"] = {"kind": "upload", "label": "<img src=x onerror=alert(1)>.csv",
                                    "schema": {"A": {"x": "str"}, "B": {"x": "str"}}, "interval": False}
    at.run()
    ok(at)
    assert not at.error, [e.value for e in at.error]
    assert_no_markup(at)
    spec = at.get("plotly_chart")[0].proto.spec
    assert "<iframe" not in spec and "&lt;iframe srcdoc=" in spec
