"""The Debug page's inputs: the pattern (the shared one or a preset), the data (a sample, a
generated stream, an upload, a course lesson's stream) and the view kept in the URL.

The URL (``st.query_params``) holds the pattern text, the data choice (a sample's name; a
generated stream's generator, size, seed and rates; an upload by its file name only; a course
lesson's id), the
engine, the match-windows mode, the event shown (1-based, as the slider), the highlighted
match and the breakpoints: opening the URL restores the view and a refresh keeps it. Session keys are prefixed
``dbg_``.
"""
from __future__ import annotations

import zlib
from typing import Any

import streamlit as st

import sample_streams
from app import runner, sessions, state, ui
from engine.events import LoadResult, load_events
from visualizers import escape

__all__ = ["MAX_EVENTS", "DEFAULT_EVENTS", "data_picker", "pattern_picker", "restore_from_url", "write_url",
           "url_step", "set_url_step", "open_debug"]

MAX_EVENTS = 200_000       # events the page runs at most (a larger upload is cut, and the page says so)
DEFAULT_EVENTS = 300       # a generated stream's default size
MAX_GENERATED = 200_000
URL_KEYS = ("pattern", "data", "sample", "gen", "n", "seed", "rates", "file", "lesson", "engine", "windows", "event",
            "match", "break")
SOURCES = {"sample": "Sample", "generated": "Generated stream", "upload": "Upload", "lesson": "Lesson"}


def _ss() -> Any:
    return st.session_state


# --------------------------------------------------------------------------- the URL

def open_debug(params: dict[str, str], what: str = "step through it") -> None:
    """Switch to the Debug page on the view ``params`` names (its URL keys, ``URL_KEYS``), read
    again on arrival; outside the multipage app (a page run on its own) an info says to open it."""
    from streamlit.errors import StreamlitAPIException

    _ss().pop("dbg_url_done", None)  # the Debug page reads its URL again
    try:
        st.switch_page("pages/4_Debug.py", query_params=params)
    except StreamlitAPIException:
        st.info(f"Open the Debug page to {what}.", icon=":material/bug_report:")


def restore_from_url() -> None:
    """Once per session: the view the URL names (pattern, data, engine, step) into session
    state, before any widget is drawn. A pattern the DSL refuses is shown as the Design page
    shows it (the shared pattern stays)."""
    ss = _ss()
    if ss.get("dbg_url_done"):
        return
    ss["dbg_url_done"] = True
    q = st.query_params
    if not any(k in q for k in URL_KEYS):
        return
    text = q.get("pattern")
    if text and q.get("data") == "lesson" and _query_lesson(text, q.get("lesson")):
        return
    if text and text.strip() != state.text().strip():
        if not state.commit_text(text, "load"):
            ss["dbg_url_error"] = "the pattern in the link does not parse; the current pattern is shown instead"
    data = q.get("data")
    if data in SOURCES:
        ss["dbg_source"] = data
    if data == "lesson" and q.get("lesson"):
        ss["dbg_lesson"] = str(q["lesson"])[:64]
    if data == "sample" and q.get("sample") in sample_streams.names():
        ss["dbg_sample"] = q["sample"]
        ss["dbg_sample_for"] = state.sample_name()
    if data == "generated":
        if q.get("gen") in ("stocks", "skewed"):
            ss["dbg_gen"] = q["gen"]
        for key, name, lo, hi in (("dbg_gen_n", "n", 10, MAX_GENERATED), ("dbg_gen_seed", "seed", 0, 10_000)):
            value = _int(q.get(name))
            if value is not None:
                ss[key] = max(lo, min(hi, value))
        if q.get("rates"):
            ss["dbg_gen_rates"] = q["rates"][:200]
    if data == "upload" and q.get("file"):
        ss["dbg_url_file"] = q["file"][:200]
    if q.get("engine"):
        ss["dbg_engine"] = q["engine"]
    if q.get("windows") in ("auto", "on", "off"):
        ss["dbg_match_windows"] = q["windows"]
    if q.get("break"):
        ss["dbg_breaks"] = q["break"][:4000]
    step = _int(q.get("event"))
    if step is not None:
        ss["dbg_url_step"] = max(0, step - 1)
    match = _int(q.get("match"))
    if match is not None:
        ss["dbg_url_match"] = max(0, match)


def _int(text: Any) -> int | None:
    try:
        return int(str(text).replace(",", "").strip())
    except (TypeError, ValueError):
        return None


def url_step() -> int | None:
    """The step the URL asked for (0-based), taken once: the page applies it to a new run."""
    return _ss().pop("dbg_url_step", None)


def write_url(params: dict[str, str]) -> None:
    """The view into the URL: keys set to ``params`` (only the changed ones are sent), the
    other keys of the page dropped."""
    q = st.query_params
    for k in URL_KEYS:
        if k in params:
            if q.get(k) != params[k]:
                q[k] = params[k]
        elif k in q:
            del q[k]


def set_url_step(k: int, match_no: int) -> None:
    """The step (1-based in the URL) and highlighted match, from the step views."""
    q = st.query_params
    if q.get("event") != str(k + 1):
        q["event"] = str(k + 1)
    want = str(match_no) if match_no > 0 else None
    if want is None and "match" in q:
        del q["match"]
    elif want is not None and q.get("match") != want:
        q["match"] = want


# --------------------------------------------------------------------------- data

def _presets() -> list[tuple[str, str]]:
    return [(s, p) for s in sample_streams.names() for p in sample_streams.load(s).presets]


def _load_source(key: str, _src: runner.Source, mapping_json: str, _mapping: Any) -> LoadResult:
    """The data, loaded once per session (``app.sessions``)."""
    with st.spinner("Loading the data…"):
        return sessions.cached("debug-data", f"{key}|{mapping_json}", lambda: runner.load(_src, _mapping))


def _generated(kind: str, n: int, seed: int, skew: str) -> LoadResult:
    """A generated stream, kept per session like ``_load_source``."""
    with st.spinner("Generating the stream…"):
        return sessions.cached("debug-data", f"gen:{kind}:{n}:{seed}:{skew}",
                               lambda: _generate(kind, n, seed, skew))


def _generate(kind: str, n: int, seed: int, skew: str) -> LoadResult:
    from sample_streams import generators as G

    if kind == "stocks":
        df = G.stocks(n, symbols=2, seed=seed, start_price=100, volume=(500, 1500))
    else:
        df = G.skewed_types(n, parse_rates(skew), seed=seed)
    return load_events(df)


def _query_lesson(text: str, lesson_id: Any) -> bool:
    """A link to a lesson whose pattern is a MATCH_RECOGNIZE query: the query's debugger on the
    lesson's stream as its table (kept as the SQL views' upload). False when ``text`` is no query."""
    from engine.engines.sql.detect import is_sql

    if not is_sql(text):
        return False
    from app import course
    from engine.lessons import lesson_csv

    ss = _ss()
    ss["lang"] = "sql"
    ss["sql_text"] = text
    lesson = next((x for x in course.all_lessons() if x.id == str(lesson_id or "")[:64]), None)
    if lesson is None:
        ss["dbg_url_error"] = "the link names a lesson the course does not have; the query runs on its preset table"
        return True
    try:
        ss["sql_upload_path"] = runner.save_upload(f"lesson-{lesson.id}.csv", lesson_csv(lesson).encode())
        ss["sql_upload_name"] = f"the lesson {lesson.title}"
    except runner.RunError as err:
        ss["dbg_url_error"] = str(err)
    return True


def parse_rates(text: str) -> dict[str, float]:
    """``A:10, B:1`` -> rates per type (parts that do not parse are left out; none: the default)."""
    out: dict[str, float] = {}
    for part in text.replace(";", ",").split(","):
        if ":" in part:
            k, v = part.split(":", 1)
            try:
                rate = float(v)
            except ValueError:
                continue
            if rate > 0 and rate == rate and rate != float("inf"):
                out[k.strip()] = rate
    return out or {"A": 10.0, "B": 1.0, "C": 5.0}


def data_picker() -> tuple[str, LoadResult, dict[str, str]] | None:
    """Sample, generated stream, upload or a lesson's stream; returns (data key, loaded, its URL
    parameters) or None."""
    ss = _ss()
    kind = st.radio("Data", list(SOURCES), horizontal=True, key="dbg_source", format_func=SOURCES.get)
    if kind == "lesson":
        return _lesson_data()
    if kind == "sample":
        smp, src = ui.sample_picker("dbg")
        name = src.label
        mapping = runner.default_mapping([str(c) for c in smp.frame().columns], smp.mapping)
        return (src.key, _load_source(src.key, src, runner.mapping_json(mapping), mapping),
                {"data": "sample", "sample": name})
    if kind == "generated":
        ss.setdefault("dbg_gen_n", DEFAULT_EVENTS)
        ss.setdefault("dbg_gen_seed", 0)
        ss.setdefault("dbg_gen_rates", "A:10, B:1, C:5")
        c1, c2, c3 = st.columns(3)
        gen = c1.selectbox("Generator", ["stocks", "skewed"], key="dbg_gen",
                           format_func={"stocks": "stock ticks",
                                        "skewed": "skewed event types (some types rare)"}.get)
        n = int(c2.number_input("Events", 10, MAX_GENERATED, step=100, key="dbg_gen_n"))
        seed = int(c3.number_input("Seed", 0, 10_000, key="dbg_gen_seed"))
        skew = ""
        if gen == "skewed":
            skew = st.text_input("Rates per type", key="dbg_gen_rates", max_chars=200)
        else:
            st.caption("Two symbols, price random walk (55 % up), volume uniform in 500..1500, ts = sequence number.")
        params = {"data": "generated", "gen": gen, "n": str(n), "seed": str(seed)}
        if skew:
            params["rates"] = skew
        return f"gen:{gen}:{n}:{seed}:{skew}", _generated(gen, n, seed, skew), params
    up = st.file_uploader("CSV, TSV, JSON Lines or Parquet", type=runner.UPLOAD_TYPES, key="dbg_upload")
    named = ss.get("dbg_url_file")
    if up is None:
        if named:
            st.info(f"The link names the upload {escape.code(named)}; a link carries the file's name, not the "
                    "file: upload it again to continue.", icon=":material/upload_file:")
        else:
            st.info("Choose a file to continue.")
        return None
    try:
        path = runner.save_upload(up.name, up.getvalue())
    except runner.RunError as err:  # over the upload cap
        st.error(escape.message(err))
        return None
    if named and named != up.name:
        st.caption(f"The link named {escape.code(named)}; this is {escape.code(up.name)}.")
    src = runner.Source("upload", up.name, path, runner.format_of(up.name))
    try:
        cols = [str(c) for c in runner.read_preview(src.path, src.fmt).columns]
        mapping = runner.default_mapping(cols)
        loaded = _load_source(src.key, src, runner.mapping_json(mapping), mapping)
    except (runner.RunError, ValueError) as err:
        ui.error(err)
        return None
    st.caption(f"Columns guessed: type {escape.code(mapping.type_col)}, ts "
               f"{escape.code(mapping.ts_col or mapping.lower_col)}, id {escape.code(mapping.id_col or '(row number)')} "
               "(change them on the Run page's column mapping).")
    return src.key, loaded, {"data": "upload", "file": up.name}


def _lesson_data() -> tuple[str, LoadResult, dict[str, str]] | None:
    """A course lesson's small stream (the Learn page's lessons, this session's uploads too)."""
    from app import course
    from engine.lessons import lesson_csv

    ss = _ss()
    lessons = course.all_lessons()
    ids = [lesson.id for lesson in lessons]
    if not ids:
        st.info("The course has no lessons.")
        return None
    named = ss.get("dbg_lesson")
    if named and named not in ids:
        st.warning(f"The link names the lesson {escape.code(named)}, which the course does not have (an uploaded "
                   "lesson must be uploaded again on the Learn page in a new session).", icon=":material/link_off:")
        return None
    if ss.get("dbg_lesson") not in ids:
        ss["dbg_lesson"] = ids[0]
    titles = {lesson.id: lesson.title for lesson in lessons}
    lesson_id = st.selectbox("Lesson", ids, key="dbg_lesson", format_func=lambda i: titles.get(i, i),
                             help="the small stream of a lesson of the course (Learn page)")
    lesson = lessons[ids.index(lesson_id)]
    text = lesson_csv(lesson)
    try:
        loaded = sessions.cached("debug-data", f"lesson:{lesson.source}:{zlib.crc32(text.encode())}", lambda: _load_csv(text))
    except ValueError as err:
        ui.error(err)
        return None
    st.caption(f"{len(loaded.events)} events of the lesson {escape.markdown(lesson.title)}.")
    return f"lesson:{lesson_id}:{zlib.crc32(text.encode())}", loaded, {"data": "lesson", "lesson": lesson_id}


def _load_csv(text: str) -> LoadResult:
    import io

    import pandas as pd

    return load_events(pd.read_csv(io.StringIO(text)))


def pattern_picker() -> None:
    """The pattern is the shared one (Design); a preset can replace it."""
    ss = _ss()
    if ss.get("dbg_url_error"):
        st.warning(escape.message(ss["dbg_url_error"]), icon=":material/link_off:")
        ui.pattern_error(("load",))
    st.code(state.text().strip(), language="sql")
    presets = _presets()
    labels = [f"{s} · {p}" for s, p in presets]
    cur = f"{state.sample_name()} · {ss.get('cep_preset')}" if ss.get("cep_preset") else None
    if "dbg_preset" not in ss or ss.get("dbg_preset") not in labels:
        ss["dbg_preset"] = cur if cur in labels else labels[0]
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    c1.selectbox("or a preset", labels, key="dbg_preset", help="a preset's pattern and its sample")

    def _use() -> None:
        s, p = presets[labels.index(ss["dbg_preset"])]
        state.load_preset(s, p)
        ss["dbg_source"] = "sample"
        ss.pop("dbg_url_error", None)

    c2.button("Load", key="dbg_use_preset", on_click=_use, width="stretch", help="load this preset's pattern and sample")
    ui.link_to_page("pages/1_Design.py", "Edit the pattern on the Design page", ":material/edit:")
