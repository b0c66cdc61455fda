"""Filters of the Debug page's step views: by partition key, by run, by "runs holding event X".

A filter narrows the live runs, the actions of the step and the shared buffer drawn to the
runs it keeps: runs of a partition key (the values of the pattern's ``[attr]`` equivalence
attributes on the run's first event), a run and the runs split from it (``3`` keeps ``3``,
``3.1``, ``3.1.2``), the runs that hold an event (by id). Session keys ``dbg_filter_*``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from engine.trace import RunView, Step
from visualizers import escape

__all__ = ["Filter", "filter_bar", "partition_key"]


def partition_key(t: Any, run: RunView) -> str | None:
    """The run's partition key as text (``IBM`` or ``IBM, 3``), or None when the pattern
    partitions nothing or the run binds no known event."""
    attrs = list(getattr(t.pattern, "equivalence", []) or [])
    if not attrs:
        return None
    first = next((i for ids in run.bindings.values() for i in ids), None)
    k = t.index_of.get(first) if first is not None else None
    if k is None:
        return None
    e = t.events[k]
    return ", ".join(str(e.attrs.get(a, "")) for a in attrs)


@dataclass
class Filter:
    """What the filter bar asked for (empty strings: no filter)."""

    t: Any
    key: str = ""
    run: str = ""
    event: str = ""

    @property
    def active(self) -> bool:
        return bool(self.key or self.run or self.event)

    def keeps(self, r: RunView) -> bool:
        if self.run and not (r.id == self.run or r.id.startswith(self.run + ".")):
            return False
        if self.event and not any(str(i) == self.event for ids in r.bindings.values() for i in ids):
            return False
        if self.key and partition_key(self.t, r) != self.key:
            return False
        return True

    def runs(self, step: Step) -> list[RunView] | None:
        """The listed runs the filter keeps (None: no filter)."""
        if not self.active:
            return None
        return [r for r in step.runs if self.keeps(r)]

    def action_rows(self, step: Step) -> list[int] | None:
        """Positions of the step's actions the filter keeps: actions of a kept run, and, for
        the event filter, actions on that event (None: no filter)."""
        if not self.active:
            return None
        kept = {r.id for r in step.runs if self.keeps(r)}
        out = []
        for i, a in enumerate(step.actions):
            run = str(a.run) if a.run is not None else None
            if run is not None and (run in kept or (self.run and (run == self.run or run.startswith(self.run + "."))
                                                    and not self.event and not self.key)):
                out.append(i)
            elif self.event and a.event is not None and str(a.event) == self.event and not self.run and not self.key:
                out.append(i)
        return out

    def held_events(self, step: Step) -> set[Any] | None:
        """The events the kept runs hold (None: no filter)."""
        runs = self.runs(step)
        if runs is None:
            return None
        return {i for r in runs for ids in r.bindings.values() for i in ids}


def filter_bar(t: Any) -> Filter:
    """Three inputs in a collapsed expander (open while a filter is set); the filter."""
    ss = st.session_state
    attrs = list(getattr(t.pattern, "equivalence", []) or [])
    on = any(ss.get(k) for k in ("dbg_filter_key", "dbg_filter_run", "dbg_filter_event"))
    with st.expander("Filter runs, actions and buffer" + (" (on)" if on else ""), expanded=on):
        c1, c2, c3 = st.columns(3)
        key = c1.text_input(f"partition key ({', '.join(attrs)})" if attrs else "partition key", key="dbg_filter_key",
                            max_chars=200, disabled=not attrs,
                            help="the values of the pattern's [attr] equivalence attributes, comma-separated"
                            if attrs else "the pattern has no [attr] equivalence: its runs share one partition")
        run = c2.text_input("run (and the runs split from it)", key="dbg_filter_run", max_chars=200,
                            placeholder="e.g. 3 or 3.1")
        event = c3.text_input("runs holding event id", key="dbg_filter_event", max_chars=200,
                              placeholder="e.g. 4711")
        if on:
            st.caption("Filtering by " + ", ".join(escape.markdown(x) for x in (
                f"partition key {key}" if key else "", f"run {run}" if run else "",
                f"runs holding event id {event}" if event else "") if x) + ".")
    return Filter(t, key.strip() if attrs else "", run.strip(), event.strip())
