"""``--engine aseq``: online aggregation of one AGG pattern without building matches
(A-Seq §3: DPC, SEM, RR, HPC and the consolidated algorithm; §5 exact SUM/AVG/MIN/MAX;
docs/papers.md, "A-Seq").

``feed(e)`` returns :class:`~engine.engines.aseq.values.AggRow` rows, not matches: one at every
TRIG event (an event that fits the last positive component and its own predicates), the
aggregate over every match whose events are at or before it and whose first event is
still in the window (``now - first < W``), of the TRIG's GROUP BY group. With
``emit="changes"`` (A3) also a row whenever a START event leaving the window changes a
group's value: at ``ts`` = the moment it leaves (``start + W``), with ``event`` null.

A pattern A-Seq cannot aggregate without its matches (a predicate between two events
other than START, Kleene, AND/OR, another strategy, ...) runs on the baseline instead
(engine/engines/aseq/baseline.py); ``fallback`` and ``stats.extra["fallback"]`` give the reason.
"""
from __future__ import annotations

from typing import Any

from engine.events import Event
from engine.match import EngineUnsupported, MatcherBase, Tracer
from engine.model import Pattern
from engine.trace import RunView
from engine.engines.aseq.core import ALL, DEFAULT_MAX_LIVE, Counters
from engine.engines.aseq.plan import AseqUnsupported, QueryPlan, compile_query, refusal
from engine.engines.aseq.values import AggRow, finish, group_json

__all__ = ["AseqMatcher", "EMIT_MODES", "rows_for", "make_aggregator"]

EMIT_MODES = ("trig", "changes")


class AseqMatcher(MatcherBase):
    """A-Seq for one pattern (see the module docstring). Options: ``emit`` (``trig`` |
    ``changes``), ``max_runs`` (the guard: live prefix counters + snapshot rows),
    ``share_starts`` (False: one counter vector per START always, engine/engines/aseq/shared_starts.py)."""

    name = "aseq"
    unit = "prefix counters"

    def __init__(self, pattern: Pattern, tracer: Tracer = None, *, emit: str = "trig",
                 max_runs: int | None = None, share_starts: bool = True, **_: Any) -> None:
        super().__init__(pattern, tracer)
        if emit not in EMIT_MODES:
            raise ValueError(f"emit must be one of {', '.join(EMIT_MODES)}")
        why = refusal(pattern)
        if why:
            raise EngineUnsupported(why)
        self.emit = emit
        self.fallback: str | None = None
        self.inner: MatcherBase | None = None
        try:
            self.plan: QueryPlan | None = compile_query(pattern)
        except AseqUnsupported as err:
            from engine.engines.aseq.baseline import BaselineMatcher

            self.plan = None
            self.fallback = str(err)
            self.inner = BaselineMatcher(pattern, tracer, emit=emit, max_runs=max_runs)
            self.stats = self.inner.stats
            self.stats.extra["fallback"] = self.fallback
            return
        limit = max_runs if max_runs is not None else DEFAULT_MAX_LIVE
        self.counters = Counters([(None, self.plan, None)], tracer=tracer, max_live=limit, on_explode=self.explode,
                                 share_starts=share_starts)
        self.last_seq = -1
        self._rows = 0
        self.stats.extra.update(mode="SEM" if self.counters.sem else "DPC")

    # ------------------------------------------------------------------ Matcher

    def feed(self, e: Event) -> list[AggRow]:
        if self.inner is not None:
            return self.inner.feed(e)  # type: ignore[return-value]
        plan = self.plan
        assert plan is not None
        c = self.counters
        self.stats.events += 1
        self.last_seq = e.seq
        rows: list[AggRow] = []
        ex = c.expiry
        # fast path: inlines expire_to's test (nothing leaves) and its coordinate; parity:
        # tests/engines/aseq/test_shared_starts.py (emit changes, equal timestamps, count windows)
        changed = False
        if plan.window is not None and ex and ex[0].exp <= (e.seq if plan.count_window else e.ts):
            changes = c.expire_to(c.coord(e), emit=self.emit == "changes")
            rows += self._change_rows(changes, e.ts if plan.count_window else None, e.seq)
            changed = True
        if c.relevant(e.type):
            for _qi, g, v in c.feed(e, plan.part(e)):
                rows.append(AggRow(e.ts, e.id, _group(g), finish(plan.func, plan.kind, v), seq=e.seq))
            changed = True
        if changed:  # an event no position or negation takes, with nothing leaving, changes no counter
            self._rows += len(rows)
            self._sync()
        return rows

    def attach_tracer(self, tracer: Tracer, last: Event | None = None) -> None:
        """Trace from the next event on (engine/checkpoints.py): the counters (or the baseline
        this pattern falls back to) report to ``tracer`` too."""
        self.tracer = tracer
        if self.inner is not None:
            self.inner.attach_tracer(tracer, last)
        else:
            self.counters.tracer = tracer

    def close(self) -> list[AggRow]:
        if self.inner is not None:
            return self.inner.close()  # type: ignore[return-value]
        rows: list[AggRow] = []
        plan = self.plan
        assert plan is not None
        if self.emit == "changes" and plan.window is not None and not plan.count_window:
            rows = self._change_rows(self.counters.expire_to(float("inf"), emit=True), None, self.last_seq + 1)
        self._rows += len(rows)
        self._sync()
        return rows

    def _change_rows(self, changes: list[tuple], ts: Any, seq: int) -> list[AggRow]:
        plan = self.plan
        assert plan is not None
        out = []
        for t_exp, _qi, g, old, new in changes:
            a, b = finish(plan.func, plan.kind, old), finish(plan.func, plan.kind, new)
            if a != b:
                out.append(AggRow(t_exp if ts is None else ts, None, _group(g), b, seq=seq))
        return out

    def _sync(self) -> None:
        c = self.counters
        st = self.stats
        st.runs_created = c.next_id
        st.runs_alive = c.live
        st.runs_peak = c.peak
        extra = st.extra  # item by item: ``update(**kw)`` builds a dict per event
        extra["rows"] = self._rows
        extra["counter_updates"] = c.updates
        extra["counter_resets"] = c.resets
        extra["prefix_counters_live"] = c.live
        extra["prefix_counters_peak"] = c.peak
        extra["partitions"] = len(c.parts)

    # ------------------------------------------------------------------ trace

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        if self.inner is not None:
            runs, buf = self.inner.trace_state()
            return runs, {**buf, "fallback": self.fallback}
        c = self.counters
        plan = self.plan
        assert plan is not None
        start_var = plan.positions[0].var
        rows = c.rows()
        runs = []
        for r in rows:
            deepest = max((j for j, v in enumerate(r["counts"]) if v), default=0)
            runs.append(RunView(id=str(r["id"]), state=c.nodes[deepest].label,
                                bindings={start_var: [r["start"]]} if r["start"] is not None else {},
                                start=r["ts"]))
        values = []
        for g in list(c.members[0])[:50]:
            values.append({"group": _group(g), "value": finish(plan.func, plan.kind, c.value(0, g))})
        buf = {"kind": "aseq", "columns": [n.label for n in c.nodes], "rows": rows, "rows_total": c.live,
               "values": values, "window": plan.window, "func": plan.func,
               "agg": [plan.agg_pos, plan.agg_attr], "mode": "SEM" if c.sem else "DPC"}
        return runs, buf


def _group(g: Any) -> Any:
    return None if g is ALL else group_json(g)


def make_aggregator(pattern: Pattern, engine: str = "auto", **options: Any) -> MatcherBase:
    """The matcher of an AGG pattern: ``auto``/``aseq`` A-Seq, ``aseq-baseline`` the
    baseline, another name that engine's matches aggregated (as the planner does)."""
    if engine in ("auto", "aseq"):
        return AseqMatcher(pattern, **options)
    if engine == "aseq-baseline":
        from engine.engines.aseq.baseline import BaselineMatcher

        return BaselineMatcher(pattern, **options)
    from engine.engines.aseq.baseline import MatchAggregator

    return MatchAggregator(pattern, source=engine, **options)


def rows_for(pattern: Pattern, events: list[Event], engine: str = "aseq", **options: Any) -> list[AggRow]:
    """Every row of an AGG pattern over ``events`` (feed all, then close)."""
    m: Any = make_aggregator(pattern, engine, **options)
    out: list[AggRow] = []
    for e in events:
        out.extend(m.feed(e))
    out.extend(m.close())
    return out
