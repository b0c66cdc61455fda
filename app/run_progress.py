"""What a run reports while it works, for the Run page's live progress.

``LiveProgress`` is written by the run's thread (plain attribute writes, read by the page's
thread) and read by :func:`panel`, a fragment that redraws every ``POLL`` seconds: events
read, live runs, matches so far and the time elapsed (on Spark: stages and tasks done), with
a Cancel button. When the run is over the fragment reruns the page, which then shows the
results (or why the run stopped) and no progress.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LiveProgress", "FAST_WAIT", "POLL", "panel", "cancel_current"]

FAST_WAIT = 0.8   # seconds the page waits for a run before it shows progress (a quick run shows none)
POLL = 0.25       # seconds between two redraws of the progress


@dataclass
class LiveProgress:
    """The counters of a run in progress."""

    total: int = 0                    # events to read (0: unknown)
    events: int = 0                   # events read so far
    matches: int = 0                  # matches found so far
    runs: int | None = None           # live partial matches (runs), when the engine counts them
    where: str = "in-process"         # in-process | spark
    spark: Any = None                 # engine.spark.progress.GroupProgress, on Spark
    cluster: str = ""                 # the cluster or Spark Connect server given at `cep serve` ("" local)
    phase: str = "starting"           # what the run does now, in a few words
    started: float = field(default_factory=time.monotonic)

    def update(self, events: int, matches: int, runs: int | None = None) -> None:
        self.events, self.matches, self.runs = events, matches, runs
        self.phase = "matching"

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def fraction(self) -> float:
        """How far the run is (events read out of all; on Spark tasks done out of known)."""
        if self.where == "spark":
            return min(0.97, getattr(self.spark, "fraction", 0.0))
        return min(1.0, self.events / self.total) if self.total else 0.0

    def lines(self) -> list[tuple[str, str]]:
        """(label, value) pairs to show."""
        out = [("Elapsed", f"{self.elapsed:.1f} s")]
        if self.where == "spark":
            g = self.spark
            out += [("Stages done", f"{g.stages_done:,} / {g.stages:,}" if g else "–"),
                    ("Tasks done", f"{g.tasks_done:,} / {g.tasks:,}" if g else "–")]
            return out
        out += [("Events read", f"{self.events:,}" + (f" / {self.total:,}" if self.total else "")),
                ("Runs alive", f"{self.runs:,}" if isinstance(self.runs, int) else "–"),
                ("Matches so far", f"{self.matches:,}")]
        return out


def runs_alive(matcher: Any) -> int | None:
    """The matcher's live runs, when its statistics count them."""
    stats = getattr(matcher, "stats", None)
    value = getattr(stats, "runs_alive", None)
    return value if isinstance(value, int) else None


def cancel_current() -> None:
    """Cancel the session's current run (the Cancel button's callback)."""
    import streamlit as st

    job = st.session_state.get("run_job")
    if job is not None:
        job.cancel()
        st.session_state["run_cancel_clicked"] = time.monotonic()


def panel() -> None:
    """The progress of the session's current run, redrawn every ``POLL`` s, with Cancel."""
    import streamlit as st

    @st.fragment(run_every=POLL)
    def _panel() -> None:
        ss = st.session_state
        job = ss.get("run_job")
        if job is None:
            return
        live: LiveProgress | None = job.live
        if job.cancel_event.is_set() and not job.done:
            job.wait(1.0)
        if job.done:
            if job.cancel_event.is_set():
                # the cancelled state at once, and again in the redraw that reruns the page (a
                # fragment run that draws nothing clears what it drew before): it stays on
                # screen until the page, drawn a moment later, shows the matches kept
                read = live.events if live is not None else 0
                st.warning(f"Cancelled after {read:,} events; showing the matches found so far…",
                           icon=":material/stop_circle:")
                if ss.get("run_cancel_shown") is not job:
                    ss["run_cancel_shown"] = job
                    return
            ss.pop("run_cancel_shown", None)
            st.rerun(scope="app")  # the page shows the results without the progress
        if job.status == "queued":
            st.info("Waiting for a free run slot (other sessions are running)…", icon=":material/hourglass_top:")
        elif live is not None:
            from visualizers import escape

            where = live.where + (f" on {escape.markdown(live.cluster)}" if live.cluster else "")
            st.progress(live.fraction, text=f"Running {where}: {live.phase}…")
            cols = st.columns(len(live.lines()) + 1)
            for col, (label, value) in zip(cols, live.lines()):
                col.metric(label, value)
        st.button("Cancel", key="run_cancel", icon=":material/stop_circle:", on_click=cancel_current,
                  help="stop the run now; the matches found so far are kept")

    _panel()
