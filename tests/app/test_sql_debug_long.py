"""AppTest of the Debug page's MATCH_RECOGNIZE view on a generated 100k-row ticker: the run is indexed
untraced once, a jump to a late match traces only the window around it and selects the step that
reports it, Next and Back step through the window (and on into the next rows), the lists stay short
(the rest behind "show"), and the explanation is ``cep explain``'s for that match."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app.debug_sql_window import generated_ticker
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import run_query
from sample_streams.sql_queries import presets

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

PAGES = Path(__file__).resolve().parents[2] / "app" / "pages"


def test_jump_to_a_late_match_of_a_100k_row_ticker() -> None:
    text = presets()["v_shape"].text
    result = run_query(parse_query(text), generated_ticker(100_000, 0))
    k = len(result.matches) - 1
    at = AppTest.from_file(str(PAGES / "4_Debug.py"), default_timeout=120)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["sql_text"] = text
    at.session_state["sql_debug_data"] = "generated"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    caption = " ".join(c.value for c in at.caption)
    assert "100,000 rows" in caption and f"{len(result.matches):,} matches" in caption
    at.number_input(key="sql_jump_match").set_value(k).run()
    t0 = time.perf_counter()
    at.button(key="sql_go_match").click().run()
    assert time.perf_counter() - t0 < 20
    assert not at.exception, [e.value for e in at.exception]
    key, m = result.matches[k - 1]
    # the selected step reports match k: its actions name it, with its MATCH_NUMBER
    actions = next(d.value for d in at.dataframe if "action" in d.value.columns)
    assert any(f"match {m.number}: " in why for why in actions["why"])
    label = at.select_slider(key="sql_step")
    assert "result" in label.format_func(label.value)
    # the explanation is match k's, naming its first row as every view does
    code = " ".join(c.value for c in at.code)
    assert f"match #{k} in symbol={key[0]} from row #" in code
    # Next steps on; Back comes back to the same step
    at.button(key="sql_next").click().run()
    at.button(key="sql_back").click().run()
    assert not at.exception
    assert "result" in label.format_func(at.select_slider(key="sql_step").value)
    # the lists are short: at most 10 rows each, the rest behind an expander
    assert all(len(d.value) <= 10 for d in at.dataframe if "thread" in d.value.columns or "action" in d.value.columns)


def test_jump_to_a_late_row() -> None:
    at = AppTest.from_file(str(PAGES / "4_Debug.py"), default_timeout=120)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["sql_text"] = presets()["v_shape"].text
    at.session_state["sql_debug_data"] = "generated"
    at.session_state["sql_debug_rows"] = 20_000
    at.run()
    at.number_input(key="sql_jump_row").set_value(19_990).run()
    at.button(key="sql_go_row").click().run()
    assert not at.exception, [e.value for e in at.exception]
    rows = next(d.value for d in at.dataframe if "row" in d.value.columns and "symbol" in d.value.columns)
    assert rows["row"][0].startswith("row #19,990 (id 19989)")


def test_ids_from_the_data_stay_text(tmp_path: Path) -> None:
    from tests.app_support import shown

    hostile = "**bold** <img src=x onerror=alert(1)> $x$"
    data = tmp_path / "t.csv"
    data.write_text("id,symbol,ts,price\n" + "".join(
        f"\"{hostile if i == 1 else i}\",ACME,{i},{p}\n" for i, p in enumerate([5, 4, 3, 4, 5], 1)))
    at = AppTest.from_file(str(PAGES / "4_Debug.py"), default_timeout=120)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["sql_text"] = presets()["v_shape"].text
    at.session_state["sql_upload_path"] = str(data)
    at.session_state["sql_upload_name"] = "t.csv"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    named = [t for t in texts if "row #1 (id" in shown(t)]
    assert named and all(f"row #1 (id {hostile})" in shown(t) for t in named)
    # every markdown character of the id is escaped: no unescaped <, ** or $
    assert not any(re.search(r"(?<!\\)(<|\*\*bold|\$x)", t) for t in named), named


def test_breakpoints_continue_to_the_next_row_match_or_id_in_file_order() -> None:
    """The query view's breakpoints are `cep trace --break`'s for queries: a bad spec is refused
    with its message; Continue goes to the first one after the current row."""
    text = presets()["v_shape"].text
    table = generated_ticker(2_000, 0)
    result = run_query(parse_query(text), table)
    at = AppTest.from_file(str(PAGES / "4_Debug.py"), default_timeout=120)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["sql_text"] = text
    at.session_state["sql_debug_data"] = "generated"
    at.session_state["sql_debug_rows"] = 2_000
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.text_area(key="sql_breaks").set_value("runs>3").run()
    at.button(key="sql_continue").click().run()
    assert "runs>3" in " ".join(e.value for e in at.error)
    at.text_area(key="sql_breaks").set_value("event:1500").run()
    at.button(key="sql_continue").click().run()
    assert not at.exception, [e.value for e in at.exception]
    step = at.session_state["sql_window"].steps[at.session_state["sql_step"]]
    assert step.event is not None and step.event["id"] == 1500


def test_continue_to_break_goes_to_the_nearest_breakpoint_ahead() -> None:
    from app import debug_sql_window as W
    from engine.engines.sql.trace_window import index_query

    query = parse_query(presets()["v_shape"].text)
    index = index_query(query, generated_ticker(2_000, 0))
    state: dict = {}
    k = len(index.matches) // 2
    start = index.match_start(k)
    assert 1 < start < 1_999
    # the match starts before row 1,999: it is the nearest breakpoint ahead of row 1
    assert W.continue_to_break(state, index, [f"event:1999", f"match:{k}"]).startswith(f"match #{k:,}")
    window = state["sql_window"]
    assert window.steps[state["sql_step"]].step == index.step_of_match(k)
    # from there, row 1,999 is next, then nothing
    assert W.continue_to_break(state, index, [f"event:1999", f"match:{k}"]) == index.label(1999)
    assert state["sql_window"].steps[state["sql_step"]].event["id"] == 1999
    assert W.continue_to_break(state, index, ["event:1999"]).startswith("no breakpoint after")
