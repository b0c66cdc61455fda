"""The step controls of the pages that step through a computed trace (Debug, Aggregate,
Uncertain time): a step slider, Back / Forward, buttons to the previous / next step that
emitted something (a match, an aggregate row, a signature), and Play / Pause at a chosen speed.

A page describes its controls once with a :class:`Stepper` (its session-key prefix, where
its trace is kept, its jump buttons) and calls :meth:`Stepper.controls` at the top of its
step views and :meth:`Stepper.play_bar` where the play controls go. The session keys are
``<prefix>_step``, ``<prefix>_playing``, ``<prefix>_play_from`` and ``<prefix>_speed``; the
buttons ``<prefix>_back``, ``<prefix>_fwd``, ``<prefix>_play`` and each jump's own key.

Play keeps time: while playing, the step is where the clock says it should be (the
fragment that holds the step views reruns every ``1/speed`` seconds), so a slow browser
shows fewer frames but never plays slower than the chosen speed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import streamlit as st

__all__ = ["Jump", "Stepper", "SPEEDS"]

SPEEDS = [0.5, 1.0, 2.0, 4.0, 8.0]   # steps per second
DEFAULT_SPEED = 2.0


@dataclass(frozen=True)
class Jump:
    """A button to the previous (``direction`` -1) or next (+1) step with output."""

    key: str
    label: str
    direction: int
    help: str
    icon: str = ""

    def __post_init__(self) -> None:
        if not self.icon:
            object.__setattr__(self, "icon", ":material/skip_next:" if self.direction > 0
                               else ":material/skip_previous:")


@dataclass(frozen=True)
class Stepper:
    """The step controls of one page (see the module)."""

    prefix: str                 # session keys <prefix>_step, _playing, _play_from, _speed
    holder: str                 # session key of the computed trace (an object with ``steps``)
    jumps: tuple[Jump, ...]     # to the previous / next step with output, in button order
    slider_help: str = "0 is the first event; the last step is the end of the stream"
    one_based: bool = False     # the slider counts steps from 1 (the session's step stays 0-based)
    slider_label: str = "Step"
    stop_at: Any = None         # (from, to) -> the first step in from+1..to where Play must stop, or None

    # ------------------------------------------------------------------ state

    @property
    def step_key(self) -> str:
        return f"{self.prefix}_step"

    @property
    def playing_key(self) -> str:
        return f"{self.prefix}_playing"

    @property
    def speed_key(self) -> str:
        return f"{self.prefix}_speed"

    def _ss(self) -> Any:
        return st.session_state

    def count(self) -> int:
        """The number of steps of the trace in session state (its ``total_steps`` when it
        has one: a run read in windows keeps no list of every step)."""
        held = self._ss()[self.holder]
        total = getattr(held, "total_steps", None)
        return int(total) if total is not None else len(held.steps)

    def clamp(self, k: Any) -> int:
        return max(0, min(int(k), self.count() - 1))

    def current(self) -> int:
        return int(self._ss().get(self.step_key, 0))

    def playing(self) -> bool:
        return bool(self._ss().get(self.playing_key, False))

    def speed(self) -> float:
        return float(self._ss().get(self.speed_key, DEFAULT_SPEED))

    # ------------------------------------------------------------------ callbacks

    def go(self, delta: int) -> None:
        """Back (-1) or Forward (+1); stops playing."""
        ss = self._ss()
        ss[self.step_key] = self.clamp(self.current() + delta)
        ss[self.playing_key] = False

    def jump(self, direction: int) -> None:
        """To the previous / next step that emitted something (matches, rows, signatures)."""
        ss = self._ss()
        held = ss[self.holder]
        k = self.current()
        if hasattr(held, "next_output"):  # found by bisection over the steps with output
            j = held.next_output(k, direction)
            if j is not None:
                ss[self.step_key] = j
            ss[self.playing_key] = False
            return
        steps = held.steps
        rng = range(k + 1, len(steps)) if direction > 0 else range(k - 1, -1, -1)
        for j in rng:
            if steps[j].matches:
                ss[self.step_key] = j
                break
        ss[self.playing_key] = False

    @property
    def slider_key(self) -> str:
        """The slider's own key when it counts from 1 (else the step key itself)."""
        return f"{self.prefix}_slider" if self.one_based else self.step_key

    def slid(self) -> None:
        """The 1-based slider moved: the step follows."""
        ss = self._ss()
        ss[self.step_key] = self.clamp(int(ss[self.slider_key]) - 1)

    def toggle_play(self) -> None:
        ss = self._ss()
        playing = not self.playing()
        if playing and self.current() >= self.count() - 1:
            ss[self.step_key] = 0
        ss[self.playing_key] = playing
        ss[f"{self.prefix}_play_from"] = (time.monotonic(), self.current())

    def speed_changed(self) -> None:
        self._ss()[f"{self.prefix}_play_from"] = (time.monotonic(), self.current())

    # ------------------------------------------------------------------ widgets

    def keep_time(self) -> None:
        """While playing, move to the step the clock says (a rerun of the whole page at the
        end, where playing stops)."""
        ss = self._ss()
        if not self.playing():
            return
        n = self.count()
        t_start, k_start = ss.get(f"{self.prefix}_play_from", (time.monotonic(), self.current()))
        target = k_start + int((time.monotonic() - t_start) * self.speed())
        if self.stop_at is not None:
            hit = self.stop_at(self.current(), min(target, n - 1))
            if hit is not None:  # a breakpoint: stop there (a rerun of the whole page: the timer goes)
                ss[self.step_key] = hit
                ss[self.playing_key] = False
                st.rerun(scope="app")
        if target >= n - 1:
            ss[self.step_key] = n - 1
            ss[self.playing_key] = False
            st.rerun(scope="app")
        ss[self.step_key] = max(self.current(), target)

    def controls(self) -> tuple[int, Any]:
        """The slider and the buttons; returns the current step and the column beside the
        buttons (for the page's line about the step)."""
        ss = self._ss()
        self.keep_time()
        ss[self.step_key] = self.clamp(ss.get(self.step_key, 0))
        n = self.count()
        # no on_change=pause here: while playing, the browser may echo an older slider value back
        if self.one_based:
            ss[self.slider_key] = int(ss[self.step_key]) + 1
            st.slider(self.slider_label, 1, max(n, 2), key=self.slider_key, help=self.slider_help,
                      on_change=self.slid, disabled=n < 2)
        else:
            st.slider(self.slider_label, 0, n - 1, key=self.step_key, help=self.slider_help)
        k = int(ss[self.step_key])
        cols = st.columns([1] * (2 + len(self.jumps)) + [6 - len(self.jumps)])
        cols[0].button("Back", key=f"{self.prefix}_back", on_click=self.go, args=(-1,), width="stretch",
                       disabled=k == 0, icon=":material/chevron_left:")
        cols[1].button("Forward", key=f"{self.prefix}_fwd", on_click=self.go, args=(1,), width="stretch",
                       disabled=k >= n - 1, icon=":material/chevron_right:")
        for col, j in zip(cols[2:], self.jumps):
            col.button(j.label, key=j.key, on_click=self.jump, args=(j.direction,), width="stretch", icon=j.icon,
                       help=j.help)
        return k, cols[-1]

    def play_bar(self, caption: str, aside: Any = None) -> float | None:
        """Play / Pause, the speed and ``caption`` (or, when given, ``aside()`` drawn in its
        place: a page's own controls on the same row); returns the fragment's ``run_every``
        (None when paused). Outside the fragment: toggling changes the fragment's timer."""
        playing = self.playing()
        p1, p2, p3 = st.columns([1, 3, 4] if aside is None else [1, 2, 6], vertical_alignment="center")
        p1.button("Pause" if playing else "Play", key=f"{self.prefix}_play", on_click=self.toggle_play,
                  type="primary", icon=":material/pause:" if playing else ":material/play_arrow:", width="stretch")
        p2.select_slider("Speed (steps per second)", SPEEDS, value=DEFAULT_SPEED, key=self.speed_key,
                         on_change=self.speed_changed, label_visibility="collapsed",
                         format_func=lambda v: f"{v:g} steps/s")
        if aside is None:
            p3.caption(caption)
        else:
            with p3:
                aside()
        return 1.0 / self.speed() if playing else None
