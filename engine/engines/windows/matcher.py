"""Algorithm 1 behind the Matcher interface: the engine ``match-windows`` of the planner,
and what ``cep run --match-windows on|off`` builds.

``MatchWindowMatcher(pattern, inner=...)`` runs Algorithm 1 (``algorithm.MatchWindows``)
with a lazily called matcher A (Def. 4):

- ``ses``: the SES automaton (``engine.engines.ses.matcher``), started at first(W) only; it
  selects earliest/maximal matches itself;
- any other engine of the planner that finds all matches (``lazy-tree``, ``lazy-chain``,
  ``eager``, ``nfab`` under skip_till_any_match, ``oracle``): a fresh matcher is fed W and
  closed, and the matches that start at first(W) are kept, then the selection is applied
  per start event (``selection.select_group``), as the paper does with ZStream (§4.8).

``inner="auto"`` takes ``ses`` when it runs the pattern (an SES pattern), else the engine
``auto`` picks for the pattern with all matches. A is given P' (the pattern without the
equalities the partition guarantees) when partitioning is on.

The guard counts the buffered events of all windows (``max_runs``, default 1,000,000) and
passes ``max_runs`` on to A.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from engine.events import Event
from engine.match import EngineUnsupported, Match, MatcherBase, Stats, Tracer, sort_matches
from engine.memory import current_guard
from engine.model import Pattern, Selection
from engine.engines.windows.algorithm import MatchWindows, Techniques, key_text
from engine.engines.windows.analysis import WindowPlan, analyse, is_event_set_pattern, unsound_reason
from engine.engines.ses.selection import select_group

__all__ = ["MatchWindowMatcher", "choose_inner", "supports", "decide", "DEFAULT_MAX_BUFFERED", "MODES",
           "spark_factory"]

DEFAULT_MAX_BUFFERED = 1_000_000
MODES = ("auto", "on", "off")
SELF = "match-windows"  # this engine's name (spec.py)


def _all_matches(p: Pattern) -> Pattern:
    return p if p.selection is Selection.ALL else p.model_copy(update={"selection": Selection.ALL})


def choose_inner(pattern: Pattern, engine: str = "auto") -> str:
    """The matcher A for ``pattern``: ``engine`` if it can find the pattern's matches
    (EngineUnsupported with its reason otherwise); for ``auto``, ``ses`` when it runs the
    pattern, else what ``auto`` picks among the all-matches engines."""
    from engine.engines.planner import ENGINES, SPECS, choose
    from engine.engines.ses.compiler import unsupported_reason as ses_reason
    from engine.engines.ses.spec import ENGINE as SES

    if engine in ("auto", SELF):
        if ses_reason(pattern) is None:
            return SES.name
        plain = _all_matches(pattern)
        for info in SPECS:  # auto's order of preference
            if info.name in (SELF, SES.name) or info.interval or info.supports(plain) is not None:
                continue
            return info.name
        return choose(plain, "auto").name  # raises with every engine's reason
    if engine == SES.name:
        why = ses_reason(pattern)
    elif engine not in ENGINES:
        return choose(pattern, engine).name  # the planner's unknown-engine message
    elif ENGINES[engine].interval:
        why = "it matches events with uncertainty intervals; match windows run on point events"
    else:
        why = ENGINES[engine].supports(_all_matches(pattern))
    if why:
        raise EngineUnsupported(f"engine `{engine}` cannot run this pattern: {why}")
    return engine


def supports(pattern: Pattern) -> str | None:
    """The planner's capability function for ``match-windows``."""
    why = unsound_reason(pattern)
    if why:
        return why
    if pattern.selection is not Selection.ALL:  # a selection is served by SES as A (docs/semantics.md, Selections)
        from engine.engines.ses.compiler import unsupported_reason as ses_reason

        why = ses_reason(pattern)
        if why:
            return f"the {pattern.selection.value} selection needs the SES automaton as A, which refuses it: {why}"
    try:
        choose_inner(pattern, "auto")
    except EngineUnsupported as err:
        return f"no matcher A for the windows: {err}"
    return None


def decide(pattern: Pattern, mode: str, engine: str = "auto") -> tuple[bool, str]:
    """Whether ``cep run --match-windows MODE`` runs Algorithm 1, and why (for --stats).

    ``off``: never. ``on``: wherever it is sound (an error where it is not). ``auto`` (the
    default): on for event-set patterns (an AND group, or an earliest/maximal selection)
    where it is sound and A is the SES automaton, or where the pattern has a selection
    (which only A with a selection can serve); off otherwise: the other patterns keep their
    engine's own output order and trace, and an all-matches engine named with ``--engine``
    runs alone (called per window it can be slower, docs/benchmarks_windows.md)."""
    if mode == "off" or engine == SELF:
        return False, "off"
    why = unsound_reason(pattern)
    if mode == "on":
        if why:
            raise EngineUnsupported(f"--match-windows on: {why}")
        choose_inner(pattern, engine)
        return True, "on"
    if why or not is_event_set_pattern(pattern):
        return False, why or "not an event-set pattern"
    try:
        inner = choose_inner(pattern, engine)
    except EngineUnsupported as err:
        return False, str(err)
    if inner != "ses" and pattern.selection is Selection.ALL:
        return False, f"{inner} runs alone (all matches)"
    return True, "on for an event-set pattern"


class MatchWindowMatcher(MatcherBase):
    """Algorithm 1 (match windows, filtering, partitioning, NMC, lazy calls of A)."""

    name = SELF
    unit = "buffered events"

    def __init__(self, pattern: Pattern, tracer: Tracer = None, *, inner: str = "auto",
                 techniques: Techniques | None = None, filter: bool = True, partition: bool = True,
                 nmc: bool = True, literal: bool = False, max_runs: int | None = None, **options: Any) -> None:
        super().__init__(pattern, tracer)
        why = unsound_reason(pattern)
        if why:
            raise EngineUnsupported(f"engine `{SELF}` cannot run this pattern: {why}")
        self.techniques = techniques or Techniques(filter=filter, partition=partition, nmc=nmc, literal=literal)
        self.plan: WindowPlan = analyse(pattern)
        self.inner = choose_inner(pattern, inner)
        self.max_buffered = max_runs or DEFAULT_MAX_BUFFERED
        target = self.plan.reduced if self.techniques.partition else pattern
        self._opts = {k: v for k, v in options.items() if k in ("max_work",)}
        if max_runs is not None:
            self._opts["max_runs"] = max_runs
        self._kleene = frozenset(c.var for c in pattern.positive if c.kleene)
        self._call = self._ses_call(target) if self.inner == "ses" else self._engine_call(target)
        self.algo = MatchWindows(self.plan, self._call, self.techniques, tracer, guard=self._guard,
                                 limit=self.max_buffered)
        self._column_attr: str | None | bool = False  # ``feed_columns``' attribute (``batch.only_attribute``), once
        if tracer is None:
            # Without a trace there is nothing to do around Algorithm 1's step: skip a call per event.
            self.feed = self.algo.feed  # type: ignore[method-assign]

    # ------------------------------------------------------------------ A

    def _ses_call(self, target: Pattern) -> Callable[[Sequence[Event], Sequence[int] | None], list[Match]]:
        from engine.engines.ses.matcher import SesMatcher

        self.a = SesMatcher(target, self.tracer, **self._opts)  # its begin/take actions join the trace

        def call(window: Sequence[Event], bits: Sequence[int] | None) -> list[Match]:
            found = self.a.match_window(window, bits)  # negated variables' bits are above the SES ones
            return sort_matches(found) if len(found) > 1 else found

        return call

    def _engine_call(self, target: Pattern) -> Callable[[Sequence[Event], Sequence[int] | None], list[Match]]:
        from engine.engines.planner import ENGINES

        factory = ENGINES[self.inner].load()
        plain = _all_matches(target)
        selection = self.pattern.selection
        self.a = None

        def call(window: Sequence[Event], bits: Sequence[int] | None) -> list[Match]:
            m = factory(plain, **self._opts)
            first = window[0].seq
            found: list[Match] = []
            tick = current_guard().tick  # the run's guard (engine.memory): one tick per event of W
            for e in window:
                tick()
                found.extend(x for x in m.feed(e) if x.start_seq == first)
            found.extend(x for x in m.close() if x.start_seq == first)
            self._inner_stats(m)
            if selection is not Selection.ALL and len(found) > 1:
                found = select_group(selection, found, self._kleene, {e.id: e.seq for e in window})
            return sort_matches(found)

        return call

    def _inner_stats(self, m: Any) -> None:
        s = self._stats
        s.runs_created += m.stats.runs_created
        s.predicate_evals += m.stats.predicate_evals
        s.runs_peak = max(s.runs_peak, m.stats.runs_peak)

    # ------------------------------------------------------------------ Matcher

    @property  # type: ignore[override]
    def stats(self) -> Stats:
        """The statistics, brought up to date when read (not on every event)."""
        self._sync()
        return self._stats

    @stats.setter
    def stats(self, value: Stats) -> None:
        self._stats = value

    def _guard(self, buffered: int) -> None:
        if buffered > self.max_buffered:
            self.explode(f"{buffered:,} events buffered in match windows", f"{self.max_buffered:,}")

    def feed(self, event: Event) -> list[Match]:
        """Algorithm 1's step for ``event`` (without a tracer ``__init__`` binds ``algo.feed`` here)."""
        self.algo.changed.clear()
        return self.algo.feed(event)

    def attach_tracer(self, tracer: Tracer, last: Event | None = None) -> None:
        """Trace from the next event on (engine/checkpoints.py): ``feed`` is this class's again
        (not Algorithm 1's bound step), and Algorithm 1 and A get the tracer."""
        self.__dict__.pop("feed", None)
        self.tracer = tracer
        self.algo.attach_tracer(tracer)
        if self.a is not None:
            self.a.attach_tracer(tracer, last)

    #: ``feed_many(events, out)`` appends to ``out`` as it goes (``cep run`` feeds chunks this way)

    def feed_many(self, events: Sequence[Event], out: list[Match] | None = None) -> list[Match]:
        """Feed a batch of events in stream order: equal to ``feed`` on each (``MatchWindows.feed_many``).
        The matches are appended to ``out`` (a new list when None) as they are found, so a
        caller still has those found before an exception; returns ``out``."""
        if out is None:
            out = []
        if self.tracer is not None:
            for e in events:
                out.extend(self.feed(e))
            return out
        return self.algo.feed_many(events, out)

    def feed_columns(self, events: Any, start: int, stop: int, out: list[Match]) -> None:
        """``feed_many`` of the events ``start:stop`` of an ``engine.events.EventColumns`` (``cep
        run`` feeds its chunks this way): where Algorithm 1 takes the batch as arrays and β_e
        reads one attribute (``batch.feed_columns``), only the events A reads and the window
        keeps are built; else the chunk's events are built and fed."""
        algo = self.algo
        if self.tracer is None and algo._batch and algo.on_window is None and not events.built:
            from engine.engines.windows.batch import feed_columns, only_attribute

            if self._column_attr is False:
                self._column_attr = only_attribute(algo)
            if self._column_attr is not None and feed_columns(algo, events, start, stop, self._column_attr, out):
                return
        self.feed_many(events[start:stop], out)

    def close(self) -> list[Match]:
        if self.tracer is not None:
            self.algo.changed.clear()
        return self.algo.close()

    def _sync(self) -> None:
        s = self._stats
        if not hasattr(self, "algo"):
            return
        ws = self.algo.stats
        s.events = ws.events_in
        s.matches = ws.matches
        s.buffer_entries = self.algo.buffered
        s.buffer_peak = ws.peak_buffered
        if self.a is not None:
            s.runs_created = self.a.stats.runs_created
            s.predicate_evals = self.a.stats.predicate_evals
            s.runs_peak = self.a.stats.runs_peak
        s.extra.update(ws.as_dict())
        s.extra["matcher"] = self.inner
        s.extra["techniques"] = self.techniques.label
        s.extra["partition_key"] = ",".join(self.plan.key.columns()) if self.plan.key else ""
        s.phase_seconds["preprocess"] = ws.seconds_pre
        s.phase_seconds["matcher"] = ws.seconds_matcher

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        from engine.trace import RunView

        runs = []
        for kw in self.algo.live_windows():
            if kw.events:
                first = kw.events[0]
                runs.append(RunView(id=f"W{first.id}", state=f"window {key_text(kw.key)}",
                                    bindings={}, start=first.ts))
        changed = {key_text(k): self.algo.snapshot(k) for k in self.algo.changed}
        return runs, {"kind": "windows", "changed": changed, "windows": len(runs),
                      "buffered": self.algo.buffered}


def spark_factory(engine: str = "auto", **options: Any) -> Callable[[Pattern], Any]:
    """A picklable factory for ``engine.spark.pipeline.run``: Algorithm 1 with A = ``engine``
    for each key (the pipeline partitions by the same derived key)."""

    def make(pattern: Pattern, engine: str = engine, options: dict = dict(options)) -> Any:
        return MatchWindowMatcher(pattern, inner=engine, **options)

    return make
