"""Streamlit AppTest for every page: what a person sees after clicking and typing.

The Spark warm-up of the app is switched off here (``CEP_SPARK_WARMUP=0``); the one
Spark run uses the test session's SparkSession (``conftest.spark``)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import sample_streams
from engine.dsl import parse

ROOT = Path(__file__).resolve().parent.parent
HOME = str(ROOT / "app" / "Home.py")
DESIGN = str(ROOT / "app" / "pages" / "1_Design.py")
AUTOMATON = str(ROOT / "app" / "pages" / "2_Automaton.py")
RUN = str(ROOT / "app" / "pages" / "3_Run.py")
STOCK = sample_streams.load("stocks_sase").presets["stock_trend"]


@pytest.fixture(autouse=True)
def _no_warmup(monkeypatch):
    monkeypatch.setenv("CEP_SPARK_WARMUP", "0")


def _app(path: str, timeout: float = 60) -> AppTest:
    at = AppTest.from_file(path, default_timeout=timeout)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _preset(at: AppTest, sample: str, preset: str) -> AppTest:
    at.session_state["cep_sample"] = sample
    txt = sample_streams.load(sample).presets[preset]
    at.session_state["cep_pattern"] = parse(txt)
    at.session_state["cep_text"] = txt
    at.session_state["cep_rev"] = at.session_state["cep_rev"] + 1 if "cep_rev" in at.session_state else 1
    return at


def _texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [c.value for c in at.code])


@pytest.mark.parametrize("path", [HOME, DESIGN, AUTOMATON, RUN])
def test_every_page_renders_without_exception(path):
    at = _app(path)
    assert at.title[0].value in ("CEP Studio", "Design", "Automaton", "Run")
    assert not at.error


# --------------------------------------------------------------------------- Home

def test_home_cards_open_design_with_preset():
    at = _app(HOME)
    buttons = [b for b in at.button if b.label == "Open in Design"]
    assert len(buttons) == 5
    assert sorted(s.value for s in at.subheader) == ["Chemotherapy", "Cluster monitoring", "Contamination",
                                                     "Shoplifting", "Stock trend"]
    at.button(key="open_rfid_shoplifting").click().run()
    assert not at.exception
    assert at.title[0].value == "Design"  # switched page
    assert at.session_state["cep_sample"] == "rfid"
    assert at.session_state["cep_pattern"] == parse(sample_streams.load("rfid").presets["shoplifting"])


# --------------------------------------------------------------------------- Design

def _canvas_texts(at: AppTest) -> list[str]:
    fs = at.session_state["cep_flow"]
    return [n.data.get("text") for n in fs.nodes]


def _canvas_edges(at: AppTest) -> list[tuple[str, str]]:
    return [(e.source, e.target) for e in at.session_state["cep_flow"].edges]


def test_design_starts_with_stock_preset_on_canvas_and_editor():
    at = _app(DESIGN)
    assert at.text_area(key="dsl_editor").value == STOCK
    assert _canvas_texts(at) == ["Stock+ a[]", "Stock b"]
    assert _canvas_edges(at) == [("c:a", "c:b")]


def test_design_editing_dsl_updates_model_and_canvas():
    at = _app(DESIGN)
    new = "PATTERN SEQ(Stock+ a[], AND(Stock b, Stock c), !Stock d, Stock e)\nWHERE [symbol]\nWITHIN 10 s\n"
    at.text_area(key="dsl_editor").input(new).run()
    assert not at.exception
    assert at.session_state["cep_pattern"] == parse(new)
    assert _canvas_texts(at) == ["Stock+ a[]", "AND(Stock b, Stock c)", "Stock b", "Stock c", "!Stock d", "Stock e"]
    assert _canvas_edges(at) == [("c:a", "g:1"), ("g:1", "c:d"), ("c:d", "c:e")]
    assert at.text_area(key="dsl_editor").value == new  # the person's text is kept
    assert not at.error


def test_design_broken_pattern_shows_error_with_line_column_and_caret():
    at = _app(DESIGN)
    bad = "PATTERN SEQ(Stock+ a[], Stock b)\nWHERE a[1].volume >> 1000\n"
    at.text_area(key="dsl_editor").input(bad).run()
    assert not at.exception
    assert at.error, "an error box is shown"
    msg = at.error[0].value
    assert "line 2, column" in msg
    carets = [c.value for c in at.code if "^" in c.value]
    assert carets and "WHERE a[1].volume >> 1000" in carets[0]
    # the model keeps the last valid pattern, the editor keeps the broken text
    assert at.session_state["cep_pattern"] == parse(STOCK)
    assert at.text_area(key="dsl_editor").value == bad
    # unknown variable: a suggestion
    at.text_area(key="dsl_editor").input("PATTERN SEQ(Stock+ a[], Stock b)\nWHERE bb.price > 1\n").run()
    assert "undefined variable `bb`" in at.error[0].value and "did you mean `b`" in at.error[0].value


def test_design_forms_change_the_pattern_and_the_dsl():
    at = _app(DESIGN)
    at.selectbox(key="ca_type").set_value("Stock")
    at.text_input(key="ca_var").input("c")
    at.button(key="ca_add").click().run()
    assert not at.exception
    assert "PATTERN SEQ(Stock+ a[], Stock b, Stock c)" in at.text_area(key="dsl_editor").value
    assert _canvas_texts(at)[-1] == "Stock c"
    # strategy and window
    at.radio(key="ws_strategy").set_value("skip_till_any_match").run()
    assert at.session_state["cep_pattern"].strategy.value == "skip_till_any_match"
    at.number_input(key="ws_value").set_value(30.0)
    at.selectbox(key="ws_unit").set_value("min").run()
    assert "WITHIN 30 min" in at.text_area(key="dsl_editor").value
    # a typed predicate, then a broken one (error, pattern unchanged)
    at.text_input(key="pt_text").input("c.price > b.price")
    at.button(key="pt_add").click().run()
    assert "AND c.price > b.price" in at.text_area(key="dsl_editor").value
    at.text_input(key="pt_text").input("c.price >")
    at.button(key="pt_add").click().run()
    assert at.error and "line 1" in at.error[0].value
    # the predicate builder: b.volume < 80% * a[last].volume
    at.selectbox(key="pl_var").set_value("b").run()
    at.selectbox(key="pl_attr").set_value("volume")
    at.selectbox(key="pb_op").set_value("<")
    at.radio(key="pr_kind").set_value("attribute").run()
    at.selectbox(key="pr_var").set_value("a").run()
    at.selectbox(key="pr_idx").set_value("last")
    at.selectbox(key="pr_attr").set_value("volume")
    at.text_input(key="pr_factor").input("80%").run()
    at.button(key="pb_add").click().run()
    assert not at.exception
    assert "b.volume < 80% * a[a.len].volume" in at.text_area(key="dsl_editor").value
    # delete a component from the form: its predicates go too
    at.selectbox(key="ce_pick").set_value("c").run()
    at.button(key="ce_delete").click().run()
    txt = at.text_area(key="dsl_editor").value
    assert "Stock c" not in txt and "c.price" not in txt


def test_design_build_the_stock_query_with_forms_only():
    """Done-when scenario: the SASE+ stock query built without typing DSL gives 3 matches."""
    from engine.matchers.base import run_all
    from engine.planner import make_matcher

    at = _app(DESIGN)
    at.button(key="design_new").click().run()
    assert at.text_area(key="dsl_editor").value.startswith("PATTERN SEQ(Stock a)")
    rev = at.session_state["cep_rev"]
    at.selectbox(key=f"ce_quant_a_{rev}").set_value("plus")
    at.button(key="ce_update").click().run()
    at.selectbox(key="ca_type").set_value("Stock")
    at.button(key="ca_add").click().run()  # variable defaults to the next free name, b
    at.radio(key="ws_strategy").set_value("skip_till_next_match").run()
    at.checkbox(key="ws_has_window").check().run()
    at.number_input(key="ws_value").set_value(1.0).run()
    at.selectbox(key="ws_unit").set_value("hour").run()
    at.multiselect(key="pe_attrs").set_value(["symbol"]).run()

    def build(left, op, right=None, number=None, factor=""):
        at.selectbox(key="pl_var").set_value(left[0]).run()
        at.selectbox(key="pl_idx").set_value(left[1])
        at.selectbox(key="pl_attr").set_value(left[2])
        at.selectbox(key="pb_op").set_value(op)
        if number is not None:
            at.radio(key="pr_kind").set_value("number").run()
            at.number_input(key="pr_num").set_value(number)
        else:
            at.radio(key="pr_kind").set_value("attribute").run()
            at.selectbox(key="pr_var").set_value(right[0]).run()
            at.selectbox(key="pr_idx").set_value(right[1])
            at.selectbox(key="pr_attr").set_value(right[2])
            at.text_input(key="pr_factor").input(factor)
        at.run()
        at.button(key="pb_add").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]

    build(("a", "1", "volume"), ">", number=1000.0)
    build(("a", "i", "price"), ">", ("a", "agg:avg", "price"))
    build(("b", "each", "volume"), "<", ("a", "last", "volume"), factor="80%")
    assert at.session_state["cep_pattern"] == parse(STOCK)
    assert _canvas_texts(at) == ["Stock+ a[]", "Stock b"]
    ms = run_all(make_matcher(at.session_state["cep_pattern"]), sample_streams.events("stocks_sase"))
    assert len(ms) == 3


def test_design_group_form():
    at = _app(DESIGN)
    at.text_area(key="dsl_editor").input("PATTERN SEQ(A a, B b, C c)").run()
    at.multiselect(key="gw_items").set_value([1, 2])
    at.selectbox(key="gw_op").set_value("OR")
    at.button(key="gw_go").click().run()
    assert not at.exception
    assert at.text_area(key="dsl_editor").value.startswith("PATTERN SEQ(A a, OR(B b, C c))")
    assert "OR(B b, C c)" in _canvas_texts(at)


def test_design_load_preset_and_save_buttons():
    at = _app(DESIGN)
    at.selectbox(key="design_preset").set_value(("shipments", "contamination"))
    at.button(key="design_load_preset").click().run()
    assert not at.exception
    assert at.session_state["cep_sample"] == "shipments"
    assert at.text_area(key="dsl_editor").value.startswith("PATTERN SEQ(Alert a, Shipment+ b[])")
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Save .cep", "Save .json"]


# --------------------------------------------------------------------------- Automaton

def _edges(at: AppTest):
    return at.dataframe(key="au_edges").value if hasattr(at, "dataframe") else None


def _edge_frame(at: AppTest):
    frames = [d.value for d in at.dataframe]
    return next(f for f in frames if "edge" in f.columns)


def test_automaton_strategy_switch_changes_ignore_labels():
    at = _app(AUTOMATON)
    df = _edge_frame(at)
    assert df["edge"].tolist() == ["begin", "take", "ignore", "proceed", "begin", "ignore"]
    ign = df[df["edge"] == "ignore"]["shown"].tolist()
    assert ign[0].startswith("¬(Stock: a[i].price")
    at.radio(key="au_strategy").set_value("strict_contiguity").run()
    ign = _edge_frame(at).query("edge == 'ignore'")["shown"].tolist()
    assert ign == ["false ∧ e.ts - a.ts < 1 hour"] * 2
    at.toggle(key="au_push").set_value(False).run()
    ign = _edge_frame(at).query("edge == 'ignore'")["shown"].tolist()
    assert ign == ["false", "false"]
    at.toggle(key="au_peek").set_value(False).run()
    assert _edge_frame(at).query("edge == 'proceed'")["shown"].tolist() == ["true"]
    assert at.get("plotly_chart"), "the automaton is drawn"
    # the view does not change the designed pattern
    assert at.session_state["cep_pattern"].strategy.value == "skip_till_next_match"


def test_automaton_unsupported_pattern_says_why():
    at = AppTest.from_file(AUTOMATON, default_timeout=60)
    _preset(at, "chemo", "chemo_cycle")
    at.run()
    assert not at.exception
    assert any("NFA^b cannot compile" in w.value for w in at.warning)


# --------------------------------------------------------------------------- Run

def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.parametrize("sample,preset,expected", [
    ("stocks_sase", "stock_trend", 3),
    ("stocks_sase", "stock_trend_any", 68),
    ("rfid", "shoplifting", 3),
    ("shipments", "contamination", 7),
    ("chemo", "chemo_cycle", 10),
])
def test_run_preset_in_process_shows_expected_matches(sample, preset, expected):
    at = AppTest.from_file(RUN, default_timeout=60)
    _preset(at, sample, preset)
    at.run()
    assert not at.exception
    at.radio(key="run_engine").set_value("local").run()
    at.button(key="run_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _metric(at, "Matches") == str(expected)
    table = next(d.value for d in at.dataframe if "#" in d.value.columns)
    assert len(table) == expected
    assert at.get("plotly_chart"), "timeline drawn"
    assert [b.label for b in at.get("download_button")] == ["CSV", "JSON Lines", "Parquet"]


def test_run_use_preset_button_switches_pattern():
    at = _app(RUN)
    at.selectbox(key="run_preset").set_value("stock_trend_any")
    at.button(key="run_use_preset").click().run()
    assert at.session_state["cep_pattern"].strategy.value == "skip_till_any_match"


def test_run_bad_data_is_a_message_not_a_traceback(tmp_path):
    bad = tmp_path / "events.csv"
    bad.write_text("kind_of,when\nA,1\n")
    at = _app(RUN)
    at.radio(key="run_source").set_value("path").run()
    at.text_input(key="run_path").input(str(bad)).run()
    assert not at.exception
    errs = [e.value for e in at.error]
    assert errs and any("type" in e for e in errs), errs
    at.text_input(key="run_path").input(str(tmp_path / "missing.csv")).run()
    assert not at.exception and "file not found" in at.error[0].value
    odd = tmp_path / "events.xyz"
    odd.write_text("x")
    at.text_input(key="run_path").input(str(odd)).run()
    assert not at.exception and "format" in at.error[0].value


def test_run_rows_with_errors_are_reported(tmp_path):
    f = tmp_path / "stocks.csv"
    f.write_text("id,type,ts,symbol,price,volume\n1,Stock,1,GOOG,100,1010\n2,Stock,oops,GOOG,120,990\n"
                 "3,Stock,3,GOOG,abc,1005\n")
    at = _app(RUN)
    at.radio(key="run_source").set_value("path").run()
    at.text_input(key="run_path").input(str(f)).run()
    assert not at.exception
    assert any("Validation" in w.value for w in at.warning)
    report = "\n".join(c.value for c in at.code)
    assert "row" in report and "ts" in report


@pytest.mark.spark
def test_run_stock_preset_on_spark(spark):
    at = AppTest.from_file(RUN, default_timeout=240)
    _preset(at, "stocks_sase", "stock_trend")
    at.run()
    at.button(key="run_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _metric(at, "Matches") == "3"
    assert any("spark" in s.value for s in at.success)
