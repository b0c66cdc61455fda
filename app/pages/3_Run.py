"""Run: choose data, check it, run the pattern (in-process or on Spark), and look at the matches."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

import sample_streams
from app import edit, figures, jobs, limits, run_progress, run_results, runner, sessions, state, ui
from engine.risk import explosion_risk
from visualizers import escape
from visualizers.timeline import (ZOOMS, aggregate_figure, aggregate_frame, events_frame, jsonl_text,
                                  match_events_frame, stats_rows, timeline_figure)

ui.page("Run", "▶️", with_sidebar=False)
ss = st.session_state
p = state.pattern()

st.title("Run")
from app import sql_views  # noqa: E402

if sql_views.language_switch() == "sql":
    sql_views.run()
    st.stop()

# --------------------------------------------------------------------------- 1. data
st.markdown("##### 1 · Data")
data_dir = limits.data_dir()  # `cep serve --data-dir`; without it no server file is offered
SOURCES = ["sample", "upload", "path"] if data_dir is not None else ["sample", "upload"]
if ss.get("run_kept_source") not in SOURCES:
    ss["run_kept_source"] = "sample"
if ss.get("run_file_in_use") and ss.get("cep_data") is None:  # a sample was chosen on Design since
    ss["run_kept_source"] = "sample"
    ss["run_file_in_use"] = False
kind = st.radio("Source", SOURCES, horizontal=True, key="run_source",
                index=SOURCES.index(ss.get("run_kept_source", "sample")),
                on_change=lambda: ss.__setitem__("run_kept_source", ss["run_source"]),
                format_func={"sample": "Sample data", "upload": "Upload a file",
                             "path": "A file on this machine"}.get)
src: runner.Source | None = None
hint = None
if kind == "sample":
    smp, src = ui.sample_picker("run")
    hint = smp.mapping
elif kind == "upload":
    up = st.file_uploader("CSV, TSV, JSON Lines (or a JSON array) or Parquet", type=runner.UPLOAD_TYPES,
                          key="run_upload")
    if up is not None:
        try:
            path = runner.save_upload(up.name, up.getvalue())
        except runner.RunError as err:  # over the upload cap
            ui.sidebar()
            st.error(escape.message(err))
            st.stop()
        src = runner.Source("upload", up.name, path, runner.format_of(up.name))
        ss["run_kept_upload"] = src
    elif ss.get("run_kept_upload") is not None:  # uploaded before another page was visited
        src = ss["run_kept_upload"]
        if Path(src.path).is_file():
            st.caption(f"Using **{escape.markdown(src.label)}**, uploaded earlier; upload another file to replace it.")
        else:  # replaced by an upload on another page (one current upload per session)
            ss["run_kept_upload"] = src = None
            st.caption("The file uploaded earlier was replaced by another upload; upload it again.")
else:
    path = st.text_input(f"Path under the data directory {data_dir} (CSV, TSV, JSON Lines or Parquet)",
                         ss.get("run_kept_path", ""), key="run_path", placeholder="events.parquet")
    ss["run_kept_path"] = path
    if path.strip():
        try:
            real = limits.file_in_data_dir(path, data_dir)
        except limits.DataDirRefused as err:
            ui.sidebar()
            st.error(escape.message(err), icon=":material/error:")
            st.stop()
        src = runner.Source("path", path.strip(), str(real), runner.format_of(real.name))

if src is None:
    ui.sidebar()
    st.info("Choose a file to continue.")
    st.stop()

if src.kind != "sample" and state.data_in_use() != (src.kind, src.label):
    state.set_data_in_use(src.kind, src.label, None)  # named at once, even when it cannot be read
try:
    preview = runner.read_preview(src.path, src.fmt, name=src.label)
except runner.RunError as err:
    ui.sidebar()
    st.error(escape.message(err), icon=":material/error:")
    st.stop()

columns = [str(c) for c in preview.columns]
guess = runner.default_mapping(columns, hint)
mk = f"run_map_{src.key}"
NONE = "(none)"
CHOOSE = "(choose a column)"
with st.expander("Column mapping", expanded=kind != "sample"):
    c = st.columns(6)

    def pick(col, label: str, role: str, value: str | None, optional: bool) -> str | None:
        # the file's own columns only; a required role the file has no column for asks for one
        opts = ([NONE] if optional else [] if value in columns else [CHOOSE]) + columns
        v = col.selectbox(label, opts, index=opts.index(value) if value in opts else 0, key=f"{mk}_{role}")
        return None if v in (NONE, CHOOSE) else v

    type_col = pick(c[0], "event type", "type", guess.type_col, False)
    lower = pick(c[3], "interval lower", "lower", guess.lower_col, True)
    upper = pick(c[4], "interval upper", "upper", guess.upper_col, True)
    ts_col = pick(c[1], "time stamp", "ts", guess.ts_col if not guess.is_interval else None, bool(lower))
    id_col = pick(c[2], "event id", "id", guess.id_col, True)
    unit = c[5].selectbox("numeric ts unit", ["s", "ms", "us", "ns"], key=f"{mk}_unit",
                          index=["s", "ms", "us", "ns"].index(guess.ts_unit))
    st.caption("Guessed from the column names; every other column becomes an event attribute. "
               "Without an id column, ids are the row numbers.")
missing = [what for what, chosen in (("event type", type_col), ("time stamp", ts_col or lower)) if chosen is None]
if missing:
    ui.sidebar()
    st.warning(f"This file has no column named like the {' or the '.join(missing)}; choose the column that holds "
               f"{'it' if len(missing) == 1 else 'each'} in the column mapping above (its columns: "
               f"{', '.join(escape.markdown(c) for c in columns)}).", icon=":material/warning:")
    st.stop()
try:
    mapping = runner.mapping_from({"type_col": type_col, "ts_col": ts_col, "id_col": id_col,
                                   "lower_col": lower, "upper_col": upper, "ts_unit": unit})
except ValueError as err:
    ui.sidebar()
    detail = err.errors()[0].get("msg", "") if hasattr(err, "errors") else str(err).splitlines()[0]
    st.error(f"Column mapping: {escape.message(str(detail).removeprefix('Value error, '))}", icon=":material/error:")
    st.stop()

numbered = runner.numbered_preview(preview, src.fmt, src.path)
st.caption(f"Preview of **{escape.markdown(src.label)}** (first {len(preview)} rows as in the file; `row` is the data row the "
           "validation report names" + (", `line` the line of the file" if "line" in numbered.columns else "") + ")")
st.dataframe(numbered, hide_index=True, width="stretch", height=min(38 + 35 * len(preview), 260))


def _load(key: str, mapping_json: str, _src: runner.Source, _mapping) -> object:
    """The data, loaded and validated once per session (``app.sessions``: dropped when the
    session ends or loads other data); loading waits for a run slot like a run."""
    def work(_guard) -> object:
        return runner.load(_src, _mapping)

    with st.spinner("Validating the data…"):
        return sessions.cached("run-data", f"{key}|{mapping_json}",
                               lambda: jobs.run_and_wait(work, label="load", time_limit=10 * limits.run_time_limit()))


try:
    loaded = _load(src.key, runner.mapping_json(mapping), src, mapping)
except (runner.RunError, jobs.RunStopped, limits.EngineFailure) as err:
    ui.sidebar()
    st.error(escape.message(err), icon=":material/error:")
    st.stop()
state.set_data_in_use(src.kind, src.label, loaded.schema, interval=mapping.is_interval)
ss["run_file_in_use"] = src.kind != "sample"
ui.sidebar()  # now that the data in use is known

report = loaded.report
issues = list(report.issues)
try:
    issues += loaded.numeric_issues(p.numeric_attrs())
except Exception:  # noqa: BLE001
    pass
errors = [i for i in issues if i.severity == "error"]
bad_rows = len({i.row for i in errors if i.row is not None}) + sum(1 for i in errors if i.row is None)
if not issues:
    st.success(f"Validation: {report.summary()}", icon=":material/check_circle:")
else:
    report = report.model_copy(update={"issues": issues})
    (st.warning if errors else st.info)(f"Validation: {report.summary()}", icon=":material/warning:" if errors else ":material/info:")
    with st.expander("Validation report", expanded=bool(errors)):
        st.code(report.format(), language=None)

# --------------------------------------------------------------------------- 2. pattern
st.markdown("##### 2 · Pattern")
pc1, pc2 = st.columns([3, 2])
with pc1:
    st.code(state.text().strip(), language="sql")
    ui.link_to_page("pages/1_Design.py", "Edit it on the Design page", ":material/edit:")
with pc2:
    if kind == "sample":
        presets = list(sample_streams.load(src.label).presets)
        if presets:
            st.selectbox("or use a preset of this sample", presets, key="run_preset")

            def _use_preset() -> None:
                state.load_preset(src.label, ss["run_preset"])
            st.button("Use preset", key="run_use_preset", on_click=_use_preset)

problems = edit.data_problems(p, loaded.schema, state.text())
schema_ok = not any(x.severity == "error" for x in problems)
ui.show_data_problems(problems, "Pattern vs data: ")

# --------------------------------------------------------------------------- 3. run
st.markdown("##### 3 · Run")
small = len(loaded.events) <= runner.IN_PROCESS_LIMIT
choices = run_results.engine_choices(p, bool(mapping.is_interval))
if ss.get("run_matcher") not in choices.usable:
    ss["run_matcher"] = "auto"
rc1, rc2, rc3 = st.columns([2, 2, 3])
engine = rc1.radio("Execution", ["local", "spark"], key="run_engine", horizontal=True, index=0 if small else 1,
                   format_func={"spark": "Spark (the scalable path)", "local": "In-process (answers at once)"}.get)
matcher = rc2.selectbox("Engine", choices.usable, key="run_matcher",
                        format_func=lambda n: "auto (the best engine for this pattern)" if n == "auto" else n,
                        help="auto picks the engine; the others are every engine that can run this pattern "
                             "on this data")
cluster = state.spark_cluster()
rc3.caption(f"{len(loaded.events):,} events loaded · Spark session"
            + (f" on {escape.markdown(cluster)}" if cluster else "") + f": {escape.message(state.spark_status())}. "
            + ("Small data runs in-process by default (Spark's job start-up costs seconds); "
               "Spark gives the same matches." if small else "Large data runs on Spark by default."))
if choices.refused:
    with st.expander(f"Engines that cannot run this pattern ({len(choices.refused)})"):
        st.markdown("\n".join(f"- **{escape.markdown(name)}** (not available): "
                              f"{escape.markdown(run_results.plain_reason(why))}"
                              for name, why in choices.refused.items()))
skip_bad = False
if errors:  # as `cep run`: rows with errors stop a run unless the person chooses to skip them
    skip_bad = st.checkbox(f"Skip bad rows ({bad_rows:,} row{'s' if bad_rows != 1 else ''} with errors; "
                           "see the validation report)", key="run_skip_bad_rows",
                           help="rows the validation rejected are left out, "
                                "and a value that is not a number never satisfies a numeric comparison")
    if not skip_bad:
        st.error(f"The data has {bad_rows:,} bad row{'s' if bad_rows != 1 else ''} (see the validation report): "
                 "fix the file, or tick “Skip bad rows” to run without them.", icon=":material/error:")
risk = explosion_risk(p)
anyway = True
if risk is not None:
    st.warning(f"{risk.message} {risk.remedy}", icon=":material/warning:")
    anyway = st.checkbox("Run anyway (the run stops when its memory or time runs out; Cancel stops it sooner)",
                         key="run_anyway")
pattern_key = run_results.pattern_key(p)
data_key = f"{src.key}|{runner.mapping_json(mapping)}|skip={skip_bad}"
engine_label = "spark" if engine == "spark" else matcher
clicked = st.button("Run on Spark" if engine == "spark" else "Run", key="run_go", type="primary",
                    disabled=not schema_ok or (bool(errors) and not skip_bad) or not anyway)
skipped = bad_rows if skip_bad else 0

if clicked:
    for key in ("run_result", "run_error", "run_cleared"):
        ss.pop(key, None)
    old = ss.get("run_job")
    if old is not None:
        old.cancel()
    live = run_progress.LiveProgress(total=len(loaded.events))
    text_now = state.text()

    def work(guard, progress) -> run_results.ResultRecord:
        if engine == "spark":
            out = runner.run_spark(p, src, mapping, rows=len(loaded.events), on_progress=progress, guard=guard,
                                   engine=matcher, live=live)
            out.stats = {**runner.replay_stats(p, loaded, guard=guard), **out.stats}
        else:
            out = runner.run_local(p, loaded, engine=matcher, guard=guard, live=live)
        out.skipped_rows = skipped
        return run_results.ResultRecord(outcome=out, pattern_key=pattern_key, pattern_text=text_now,
                                        data_key=data_key, data_label=src.label, engine=engine_label,
                                        by_id=run_results.matched_events(out.matches, loaded.events))

    job = jobs.submit(work, label="run", signature=(pattern_key, data_key), live=live)
    ss["run_job"] = job
    job.wait(run_progress.FAST_WAIT)  # a quick run shows its results at once, without progress

job = ss.get("run_job")
if job is not None:
    if not job.done:
        run_progress.panel()  # redraws itself, with Cancel; reruns the page when the run is over
        st.stop()
    ss.pop("run_job", None)
    cancelled = job.cancel_event.is_set()
    if job.status == "done":
        rec = job.result
        if cancelled and rec.outcome.stopped:
            rec.cancelled_after = job.live.events if job.live is not None else rec.outcome.events
        ss["run_result"] = rec
    elif cancelled:
        ss["run_error"] = (job.signature, "the run was cancelled"
                           + (" (Spark returns the matches at the end, so none were found yet)"
                              if engine == "spark" else ""))
    else:
        ss["run_error"] = (job.signature, job.error or "the run failed")

err_box = ss.get("run_error")
if err_box is not None and err_box[0] == (pattern_key, data_key):
    st.error(f"The run stopped: {escape.message(err_box[1])}", icon=":material/error:")

rec = ss.get("run_result")
if rec is not None:
    why = rec.stale_reason(pattern_key, data_key)
    if why is not None:  # never the old matches with the new data's events
        ss.pop("run_result", None)
        ss["run_cleared"] = why
        rec = None
if rec is None:
    if ss.get("run_cleared"):
        st.info(f"The earlier results were cleared because {ss['run_cleared']} since that run. "
                "Run again to see the matches of this pattern on this data.", icon=":material/info:")
    st.stop()
out = rec.outcome
by_id = rec.by_id
if rec.engine != engine_label:
    st.caption(f"These results were computed with {escape.markdown(rec.engine)}; run again to use "
               f"{escape.markdown(engine_label)}.")

# --------------------------------------------------------------------------- results
st.markdown("##### Results")
n = len(out.matches)
ran = "on Spark" if out.engine == "spark" else "in-process"
agg = p.aggregate is not None or out.is_aggregate
what = f"{n} aggregate row{'s' if n != 1 else ''}" if agg else f"{n} match{'es' if n != 1 else ''}"
skipped_note = (f" · {out.skipped_rows:,} bad row{'s' if out.skipped_rows != 1 else ''} skipped"
                if out.skipped_rows else "")
st.success(f"{what} · {out.engine} · {out.mode} — ran {ran} in {out.seconds:.2f} s{skipped_note}",
           icon=":material/target:")
if rec.cancelled_after is not None:
    st.warning(f"Cancelled after {rec.cancelled_after:,} events: shown are the {what} found before the run "
               "was cancelled.", icon=":material/stop_circle:")
elif out.stopped:
    st.warning(f"The run stopped early: {escape.message(out.stopped)}. Shown: the {what} found before it stopped.",
               icon=":material/stop_circle:")
m1, m2, m3, m4, m5, m6 = st.columns(6)
m1.metric("Events", f"{out.events:,}")
m2.metric("Rows" if agg else "Matches", f"{n:,}")
peak = out.stats.get("runs_peak")
m3.metric("Runs peak", f"{peak:,}" if isinstance(peak, int) else "–",
          help="live runs at the busiest moment (for a Spark run, from an in-process replay of the same data)")
m4.metric("Time", f"{out.seconds:.2f} s")
if run_results.throughput_shown(out.events, out.seconds):
    m5.metric("Events/s", f"{out.events_per_second:,.0f}")
else:
    m5.metric("Events/s", "–", help=f"shown for runs of at least {run_results.THROUGHPUT_MIN_EVENTS:,} events "
                                    f"that take at least {run_results.THROUGHPUT_MIN_SECONDS:g} s (below that "
                                    "the rate measures start-up, not matching)")
m6.metric("Bad rows skipped", f"{out.skipped_rows:,}", help="rows with errors left out (Skip bad rows)")
for w in out.warnings:
    st.warning(escape.message(w), icon=":material/warning:")

is_dt = bool(loaded.time_is_datetime)
preset = ss.get("cep_preset")
stem = run_results.download_stem(preset, rec.data_label, "spark" if out.engine == "spark" else out.mode)
if agg:  # AGG: one value per trigger event (and group), not matches
    rows_df = aggregate_frame(out.matches, is_dt)
    st.markdown(f"**Aggregate** ({n} rows: the value after each triggering event)")
    st.dataframe(rows_df, hide_index=True, width="stretch", height=min(38 + 35 * max(n, 1), 360))
    agg_stem = stem.removesuffix("-matches") + "-aggregate"
    if n:
        figures.show(aggregate_figure(out.matches, is_dt), f"The aggregate's value after each triggering event "
                     f"({n} row{'s' if n != 1 else ''})", key="run_agg_chart", file_name=f"{agg_stem}-chart")
    d1, d2 = st.columns(2)
    d1.download_button("CSV", rows_df.to_csv(index=False), file_name=f"{agg_stem}.csv", mime="text/csv",
                       key="run_dl_agg_csv", width="stretch")
    d2.download_button("JSON Lines", jsonl_text(out.matches), file_name=f"{agg_stem}.jsonl",
                       mime="application/x-ndjson", key="run_dl_agg_jsonl", width="stretch")
    with st.expander("Statistics"):
        st.dataframe(stats_rows({**out.stats, **{f"spark.{k}": v for k, v in out.info.items()}}),
                     hide_index=True, width="stretch")
    st.stop()

order = [c.var for c in p.positive]
types = {c.var: c.type for c in p.positive}
options = run_results.attribute_options(loaded.schema)
if ss.get("run_attrs_for") != pattern_key:  # the attributes the pattern mentions, until the person picks
    ss["run_attrs"] = [a for a in run_results.mentioned_attributes(p) if a in options]
    ss["run_attrs_for"] = pattern_key
ss["run_attrs"] = [a for a in ss.get("run_attrs", []) if a in options]
attrs = st.multiselect("Attributes to show", options, key="run_attrs",
                       help="a column per variable for each attribute its events carry (several events: "
                            "their values in order)")
table = run_results.match_table(out.matches, by_id, order, p.equivalence, attrs, is_dt, types, loaded.schema)
st.markdown(f"**Matches** ({n})" + (f" · partition key: {', '.join(escape.markdown(a) for a in p.equivalence)}"
                                    if p.equivalence else ""))
sel = st.dataframe(table, hide_index=True, width="stretch", key="run_table", on_select="rerun",
                   selection_mode="single-row", height=min(38 + 35 * max(n, 1), 360))
picked = None
try:
    rows = sel.selection.rows if sel is not None else []
    picked = rows[0] if rows else None
except AttributeError:
    picked = None
if n:
    k = st.selectbox("Events of match", list(range(n)), index=picked if picked is not None else 0,
                     key="run_match_pick", format_func=lambda i: f"#{i + 1}")
    with st.expander(f"Events of match #{k + 1}", expanded=True):
        st.dataframe(match_events_frame(out.matches[k], by_id, is_dt), hide_index=True,
                     width="stretch")
else:
    k = None

tc1, tc2 = st.columns([1, 3])
tc1.markdown("**Timeline**")
zoom = tc2.segmented_control("Zoom to", list(ZOOMS), default="matches", key="run_zoom", format_func=ZOOMS.get,
                             label_visibility="collapsed") or "matches"
fig = timeline_figure(loaded.events, out.matches, is_dt, highlight=k, order=order if out.matches else None,
                      zoom=zoom)
figures.show(fig, f"The stream on a timeline with the pattern's {n} match{'es' if n != 1 else ''}"
             + (f"; match #{k + 1} ringed in orange" if k is not None else ""),
             key="run_timeline", file_name=stem.removesuffix("-matches") + "-timeline")
st.caption((f"Match #{k + 1}: its events are ringed in orange with their variable; events inside its span that "
            "it skipped are grey crosses. " if k is not None else "")
           + ("The timeline shows the first 5,000 events and 200 matches. "
              if len(loaded.events) > 5000 or n > 200 else "")
           + "Drag to zoom, double-click to return to this view.")

st.markdown("**Download the matches**")
st.caption("CSV: one row per event of a match (its match number, variable and position, the partition key, "
           "then the event's id, type, time and attributes). JSON: the matches, each with its variables' full "
           "events. JSON Lines: the event ids per variable, as the command line writes them.")
d1, d2, d3 = st.columns(3)
d1.download_button("CSV", run_results.events_csv(out.matches, by_id, order, p.equivalence, is_dt),
                   file_name=f"{stem}.csv", mime="text/csv", key="run_dl_csv", width="stretch")
d2.download_button("JSON", run_results.events_json(out.matches, by_id, order, p.equivalence, is_dt),
                   file_name=f"{stem}.json", mime="application/json", key="run_dl_json", width="stretch")
d3.download_button("JSON Lines", jsonl_text(out.matches), file_name=f"{stem}.jsonl",
                   mime="application/x-ndjson", key="run_dl_jsonl", width="stretch")

with st.expander("Statistics"):
    st.dataframe(stats_rows({**out.stats, **{f"spark.{k}": v for k, v in out.info.items()}}),
                 hide_index=True, width="stretch")
with st.expander("Loaded events"):
    st.dataframe(events_frame(loaded.events, is_dt, limit=1000), hide_index=True, width="stretch")
