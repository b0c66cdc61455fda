"""Progress and cancel on the Run page: a run longer than the page's first wait shows live
progress with Cancel; Cancel stops the engine within a second and keeps what it found; after
the run the progress is gone. A pattern that can explode is announced before it runs."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import run_progress
from tests.app.test_run_support import finish_run
from tests.app_support import select_pattern

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
RUN = str(ROOT / "app" / "pages" / "3_Run.py")
SLOW = "PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal WITHIN 1000"  # about 300 events/s


def _abc(path: Path, n: int = 20_000) -> Path:
    path.write_text("type,ts\n" + "".join(f"{'ABC'[k % 3]},{k}\n" for k in range(n)))
    return path


def _page_on(tmp_path: Path, monkeypatch, text: str) -> AppTest:
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    _abc(tmp_path / "abc.csv")
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend", text=text, remember_preset=False)
    at.run()
    at.radio(key="run_source").set_value("path").run()
    at.text_input(key="run_path").input("abc.csv").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _labels(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_a_long_run_shows_progress_and_cancel_keeps_what_it_found(tmp_path, monkeypatch):
    at = _page_on(tmp_path, monkeypatch, SLOW)
    at.button(key="run_go").click().run()
    assert not at.exception
    job = at.session_state["run_job"]
    assert not job.done, "the run is still going after the page's first wait"
    assert at.button(key="run_cancel").label == "Cancel"
    shown = _labels(at)
    assert {"Elapsed", "Events read", "Runs alive", "Matches so far"} <= set(shown), shown
    assert shown["Events read"].endswith("/ 20,000")
    assert not any(m.label == "Matches" for m in at.metric), "no results while it runs"
    deadline = time.monotonic() + 30
    while job.live.matches < 1 and time.monotonic() < deadline:  # until it has found something
        time.sleep(0.1)
    assert job.live.matches >= 1
    clicked = time.monotonic()
    run_progress_cancel = job.cancel  # what the Cancel button's callback does (run_progress.cancel_current)
    run_progress_cancel()
    assert job.wait(5)
    assert job.finished - clicked < 1.0, f"stopped {job.finished - clicked:.2f} s after Cancel"
    finish_run(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    cancelled = [w.value for w in at.warning if w.value.startswith("Cancelled after")]
    assert cancelled, [w.value for w in at.warning]
    read = job.live.events
    assert f"Cancelled after {read:,} events" in cancelled[0] and 0 < read < 20_000
    found = int(next(m.value for m in at.metric if m.label == "Matches").replace(",", ""))
    assert found >= 1, "the matches found before Cancel are kept"
    assert not [b for b in at.button if b.key == "run_cancel"] and "Elapsed" not in _labels(at), "progress gone"


def test_cancel_callback_cancels_the_sessions_run():
    class FakeJob:
        cancelled = False

        def cancel(self) -> None:
            self.cancelled = True

    import streamlit as st

    job = FakeJob()
    st.session_state["run_job"] = job
    try:
        run_progress.cancel_current()
    finally:
        del st.session_state["run_job"]
    assert job.cancelled


def test_live_progress_lines():
    live = run_progress.LiveProgress(total=20_000)
    live.update(1_234, 5, 17)
    assert dict(live.lines())["Events read"] == "1,234 / 20,000"
    assert dict(live.lines())["Runs alive"] == "17" and dict(live.lines())["Matches so far"] == "5"
    assert abs(live.fraction - 1_234 / 20_000) < 1e-9
    from engine.spark.progress import GroupProgress

    spark = run_progress.LiveProgress(where="spark", spark=GroupProgress(1, 2, 3, 8))
    assert dict(spark.lines())["Stages done"] == "1 / 2" and dict(spark.lines())["Tasks done"] == "3 / 8"


def test_a_pattern_that_can_explode_is_announced_before_it_runs(tmp_path, monkeypatch):
    at = _page_on(tmp_path, monkeypatch, "PATTERN SEQ(A a, B+ b[], C c)")
    warning = next(w.value for w in at.warning if "grow without bound" in w.value)
    assert "WITHIN" in warning and "condition between events" in warning and "another strategy" in warning
    assert at.button(key="run_go").disabled
    at.checkbox(key="run_anyway").check().run()
    assert not at.button(key="run_go").disabled
    at.button(key="run_go").click().run(timeout=60)
    finish_run(at)
    assert not at.exception
    # the state guard stops it: the explosion message, and no progress left on the page
    assert any("state explosion" in e.value for e in at.error), [e.value for e in at.error]
    assert not [b for b in at.button if b.key == "run_cancel"] and "Elapsed" not in _labels(at)
    # a bounded pattern gets no warning
    select_pattern(at, "stocks_sase", "stock_trend", text="PATTERN SEQ(A a, B+ b[], C c) WITHIN 10",
                   remember_preset=False)
    at.run()
    assert not any("grow without bound" in w.value for w in at.warning)
    assert not at.button(key="run_go").disabled


def test_spark_progress_counts_stages_and_tasks_of_the_runs_job_group():
    from types import SimpleNamespace

    from engine.spark.progress import group_progress

    stages = {1: SimpleNamespace(numCompletedTasks=4, numTasks=4), 2: SimpleNamespace(numCompletedTasks=1, numTasks=3)}

    class Tracker:
        def getJobIdsForGroup(self, group):
            return [7] if group == "cep-run-1" else []

        def getJobInfo(self, job_id):
            return SimpleNamespace(stageIds=[1, 2])

        def getStageInfo(self, stage_id):
            return stages.get(stage_id)

    context = SimpleNamespace(statusTracker=lambda: Tracker())
    seen: dict = {}
    now = group_progress(context, "cep-run-1", seen)
    assert (now.stages_done, now.stages, now.tasks_done, now.tasks) == (1, 2, 5, 7)
    assert now.text() == "stages 1/2 · tasks 5/7"
    del stages[1]  # a finished stage the tracker forgot still counts
    assert group_progress(context, "cep-run-1", seen).tasks_done == 5
    assert group_progress(SimpleNamespace(statusTracker=None), "x").tasks == 0  # never raises
