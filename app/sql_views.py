"""The studio's MATCH_RECOGNIZE views: the query editor with its errors, the compiled program drawn
as an automaton, the conversions beside it, and a run over the preset's table or an uploaded file.
Pages stay thin: they call :func:`design`, :func:`automaton` and :func:`run` when the SQL language
is chosen (:func:`language_switch`). Every string from the query or the data reaches the page as
code, a dataframe cell or an escaped message (visualizers.escape)."""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import figures
from visualizers import escape

ss = st.session_state
LANGUAGES = {"dsl": "Studio pattern", "sql": "SQL (MATCH_RECOGNIZE)"}
DEFAULT_PRESET = "v_shape"


def language_switch() -> str:
    """The language the pages show, kept across pages in ``ss["lang"]`` (a widget's own key is
    dropped on a page that does not draw it): the widget shows it and a click changes it."""
    current = ss.get("lang") if ss.get("lang") in LANGUAGES else "dsl"
    ss["lang"] = current
    ss["lang_widget"] = current

    def picked() -> None:
        ss["lang"] = ss.get("lang_widget") or ss.get("lang") or "dsl"

    st.segmented_control("Language", list(LANGUAGES), format_func=LANGUAGES.get, key="lang_widget",
                         on_change=picked,
                         help="the studio's own pattern language, or a SQL:2016 MATCH_RECOGNIZE query")
    return str(ss["lang"])


def active() -> bool:
    return ss.get("lang") == "sql"


def _presets() -> dict[str, Any]:
    from sample_streams.sql_queries import presets

    return presets()


def text() -> str:
    if "sql_text" not in ss:
        ss["sql_text"] = _presets()[DEFAULT_PRESET].text
        ss["sql_preset"] = DEFAULT_PRESET
    return str(ss["sql_text"])


def parsed() -> tuple[Any, Any]:
    """(the query, None) or (None, the SqlError)."""
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.parser import parse_query

    try:
        return parse_query(text()), None
    except SqlError as err:
        return None, err


def _table_in_use() -> Any:
    """The table the query runs on: an upload kept for SQL, else the preset's sample table."""
    from engine.engines.sql.table_io import read_table

    upload = ss.get("sql_upload_path")
    if upload:
        return read_table(upload), ss.get("sql_upload_name", "upload")
    preset = _presets().get(ss.get("sql_preset") or DEFAULT_PRESET) or _presets()[DEFAULT_PRESET]
    return read_table(preset.data), preset.data.name


def _show_error(err: Any) -> None:
    st.error(escape.message(err.message + (f" — {err.hint}" if err.hint else "")), icon=":material/error:")
    if getattr(err, "span", None):
        st.code(str(err), language=None)


def _bind_error(query: Any) -> Any:
    """The query bound to its table (None, with the error shown, when a name is wrong)."""
    from engine.engines.sql.binding import bind
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.run import inline_table

    table = inline_table(query)
    label = "its own VALUES"
    if table is None:
        table, label = _table_in_use()
    try:
        return bind(query, table.columns), table, label
    except SqlError as err:
        _show_error(err)
        return None, table, label


# --------------------------------------------------------------------------- Design
def design() -> None:
    presets = _presets()
    left, right = st.columns([3, 2], gap="medium")
    with left:
        names = list(presets)
        current = ss.get("sql_preset") if ss.get("sql_preset") in names else names[0]
        choice = st.selectbox("Classic queries", names, index=names.index(current), key="sql_preset_pick",
                              format_func=lambda n: presets[n].title)
        if choice != ss.get("sql_preset"):
            ss["sql_preset"] = choice
            ss["sql_text"] = presets[choice].text
            ss.pop("sql_upload_path", None)
            st.rerun()
        query_editor(choice)
        query, err = parsed()
        if err is not None:
            _show_error(err)
            return
        bound, table, label = _bind_error(query)
        if bound is not None:
            st.caption(f":material/check_circle: Every column is in the table {escape.code(label)} "
                       f"({len(table.rows):,} rows).")
    with right:
        st.markdown("##### Structure")
        _structure(query)
        st.markdown("##### Conversion")
        _conversions(query)
    from app.sql_canvas import section as pattern_canvas  # the pattern on a canvas, edits written back
    pattern_canvas(query)


SQL_FIXES_KEY = "sql_editor_fixes"


def _on_query_editor(component_key: str, key: str) -> None:
    """The editor sent its text: it is the query (the canvas reads it from ``ss[key]``)."""
    from app.pattern_editor import sent_text

    typed = sent_text(ss.get(component_key))
    if typed is not None:
        ss[key] = typed
        ss["sql_text"] = typed


def _apply_sql_fix(key: str, drawn: str, fix: Any) -> None:
    from app.pattern_editor import apply_fix

    if ss.get(key) != drawn:
        return  # the query changed since the button was drawn
    ss[key] = ss["sql_text"] = apply_fix(drawn, fix)
    ss[SQL_FIXES_KEY] = int(ss.get(SQL_FIXES_KEY) or 0) + 1


def _query_markers(shown: str) -> tuple[list[Any], list[str], list[str]]:
    """The query's parse or binding error as editor markers, the columns of its table and its
    pattern variables (those of the last query that parsed while this one does not)."""
    from app import pattern_editor
    from engine.engines.sql.binding import bind
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.row_pattern import variables
    from engine.engines.sql.run import inline_table

    query, err = parsed()
    columns: list[str] = []
    if query is not None:
        ss["sql_editor_variables"] = variables(query.pattern)
        try:
            table = inline_table(query) or _table_in_use()[0]
            columns = list(table.columns)
            bind(query, table.columns)
        except SqlError as why:
            err = why
        except Exception:  # noqa: BLE001 - a table that cannot be read is reported under the editor
            pass
    return pattern_editor.error_markers(err, shown), columns, list(ss.get("sql_editor_variables") or [])


def query_editor(choice: str) -> None:
    """The MATCH_RECOGNIZE editor (app.pattern_editor in SQL mode). Its text is ``ss[key]`` (the canvas
    writes its edits there too, app.sql_canvas) and is the query (``sql_text``)."""
    from app import pattern_editor

    key = f"sql_editor_{choice}"
    if key not in ss:
        ss[key] = text()
    shown = str(ss[key])
    if shown != ss.get("sql_text"):
        ss["sql_text"] = shown
    markers, columns, names = _query_markers(shown)
    component_key = f"sql_code_{choice}"
    pattern_editor.editor(shown, key=component_key, version=str(int(ss.get(SQL_FIXES_KEY) or 0)), mode="sql",
                          completions=pattern_editor.sql_completions(columns, names), markers=markers,
                          height=340, on_change=_on_query_editor, args=(component_key, key))
    st.caption("The query is applied when you press Ctrl+Enter (Cmd+Enter on a Mac), click outside the editor or "
               "stop typing for a moment. Ctrl+Space lists the SQL words, the columns and the pattern variables.")
    for i, fix in enumerate(m.fix for m in markers if m.fix is not None):
        st.button(escape.markdown(fix.label), key=f"sql_fix_{i}", icon=":material/auto_fix_high:",
                  on_click=_apply_sql_fix, args=(key, shown, fix))


def _structure(query: Any) -> None:
    from engine.engines.sql.row_pattern import render, variables

    rows = [{"variable": v, "DEFINE": (query.defines[v].text.strip() if v in query.defines else "true (no DEFINE)")}
            for v in variables(query.pattern)]
    st.code(f"PATTERN ({render(query.pattern)})", language="sql")
    st.dataframe(rows, hide_index=True, width="stretch")
    st.caption("The Automaton page draws the compiled program: states, edges in preference order, the DEFINE "
               "on each edge.")


def _conversions(query: Any) -> None:
    """The query in the studio's language, Flink SQL and a FlinkCEP program (``cep convert``), each
    refusal with the construct named, each Flink deviation as a warning."""
    from engine.dsl import to_text
    from engine.engines.sql.conversion.flink_java import to_flink_java
    from engine.engines.sql.conversion.flink_sql import to_flink_sql
    from engine.engines.sql.conversion.to_dsl import query_to_pattern

    def dsl() -> tuple[str, list[str]]:
        return to_text(query_to_pattern(query)), []

    def flink_sql() -> tuple[str, list[str]]:
        out = to_flink_sql(query)
        return out.text, out.warnings

    def flink_java() -> tuple[str, list[str]]:
        return to_flink_java(query)

    for label, make, language in (("Studio pattern", dsl, "sql"), ("Flink SQL", flink_sql, "sql"),
                                  ("FlinkCEP (Java)", flink_java, "java")):
        with st.expander(label, expanded=label == "Studio pattern"):
            try:
                text, warnings = make()
            except ValueError as why:  # a refusal names the construct (ConversionError)
                st.info(escape.message(why), icon=":material/block:")
                continue
            for w in warnings:
                st.warning(escape.message(w), icon=":material/warning:")
            st.code(text, language=language)


# --------------------------------------------------------------------------- Automaton
def automaton() -> None:
    from engine.engines.spec import GraphUnavailable
    from engine.engines.sql.graph import automaton_graph
    from visualizers.automaton import automaton_figure, edge_table

    query, err = parsed()
    if err is not None:
        _show_error(err)
        st.stop()
    st.caption("The row pattern compiled for the thread matcher: a state per place a variable labels a row; "
               "**take** edges label the next row when the variable's DEFINE holds; **proceed** ends the match. "
               "The numbers on the edges out of a state are the order the matcher tries them in (SQL:2016 "
               "preferment: greedy tries one more row first, reluctant stops first, `|` tries its left branch).")
    try:
        g = automaton_graph(query)
    except GraphUnavailable as why:
        st.info(escape.message(why))
        st.stop()
    figures.show(automaton_figure(g), "The query's row pattern compiled for the thread matcher: a state per place "
                 "a variable labels a row, take edges in the order the matcher tries them",
                 key="sql_automaton", file_name="query-automaton", width="content")
    st.dataframe(edge_table(g), hide_index=True, width="stretch")


# --------------------------------------------------------------------------- Run
def run() -> None:
    from engine.engines.sql.errors import SqlRunError
    from engine.engines.sql.run import run_query
    from engine.engines.sql.table_io import TableError
    from engine.match import StateExplosion

    query, err = parsed()
    if err is not None:
        _show_error(err)
        st.stop()
    up = st.file_uploader("Run on a file instead of the preset's table (CSV, TSV, JSON Lines, Parquet)",
                          type=["csv", "tsv", "jsonl", "json", "parquet"], key="sql_upload")
    if up is not None:
        from app import runner
        try:
            ss["sql_upload_path"] = runner.save_upload(up.name, up.getvalue())
            ss["sql_upload_name"] = up.name
        except runner.RunError as why:
            st.error(escape.message(why))
            st.stop()
    try:
        bound, table, label = _bind_error(query)
    except TableError as why:
        st.error(escape.message(why))
        st.stop()
    if bound is None:
        st.stop()
    st.caption(f"Table {escape.code(label)}: {len(table.rows):,} rows, columns "
               + ", ".join(escape.code(c) for c in table.columns))
    engine = st.radio("Engine", ["sql", "sql-oracle"], horizontal=True, key="sql_engine",
                      format_func={"sql": "threads in preference order", "sql-oracle": "oracle (backtracking)"}.get)
    if not st.button("Run the query", type="primary", key="sql_run"):
        return
    try:
        result = run_query(query, table, engine)
    except (SqlRunError, StateExplosion) as why:
        st.error(escape.message(why))
        return
    from engine.engines.sql.output import json_row
    from engine.json_text import json_text

    rows = [json_row(r) for r in result.rows]
    st.markdown(f"**{len(rows):,} rows** from {result.stats['matches']:,} matches in "
                f"{result.stats['partitions']:,} partitions ({result.stats['seconds'] * 1000:.1f} ms)")
    st.dataframe(rows, hide_index=True, width="stretch")
    st.download_button("Download JSON Lines", "".join(json_text(r) + "\n" for r in rows), file_name="rows.jsonl",
                       mime="application/x-ndjson", key="sql_download")
