"""``result.explain(k)``, ``result.why_not(spec)`` and ``result.trace()``: what ``cep explain`` and
``cep trace`` say, over the result's data with ``cep run``'s engine choice (``engine=``,
``match_windows=``), so match ``k`` is the ``k``-th match of the result.

An :class:`Explanation` prints as ``cep explain``'s text (``str``), gives its JSON (``to_dict``)
and renders in a notebook; a :class:`Trace` holds ``cep trace``'s records (``steps``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from engine.commands.arguments import CommandError

if TYPE_CHECKING:  # pragma: no cover
    from engine.api.result import Result

__all__ = ["Explanation", "Trace", "explain_result", "trace_result"]


@dataclass
class Explanation:
    """An answer of ``cep explain``: ``data`` its JSON (``--format json``), ``text`` its text."""

    data: dict[str, Any]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return self.data

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text.rstrip("\n")

    def _repr_html_(self) -> str:
        from engine.api.render import explanation_html

        return explanation_html(self)


@dataclass
class Trace:
    """``cep trace``'s records: one per event step (``step``, ``position``, ``event``,
    ``actions``, ``runs``, ``buffer``, ``matches``), then the close step; ``engine`` ran it."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    engine: str = ""

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.steps)

    def __getitem__(self, k: int) -> dict[str, Any]:
        return self.steps[k]

    def __repr__(self) -> str:
        return f"<Trace: {len(self.steps)} steps (engine {self.engine})>"

    def _repr_html_(self) -> str:
        from engine.api.render import trace_html

        return trace_html(self)


def explain_result(result: Result, match: int | None = None, why_not: str | None = None) -> Explanation:
    """``cep explain --match K`` / ``--why-not SPEC`` over the result's data (see the module)."""
    if result.kind == "sql":
        return _explain_query(result, match, why_not)
    from engine.commands.request import run_guard
    from engine.explain import ExplainError, explain_match, explain_why_not, format_text
    from engine.memory import RunStopped, guarding
    from engine.model import PatternError

    args = result.request.args
    pattern = result.pattern.model  # type: ignore[union-attr]
    events = result.all_events()
    try:
        with guarding(run_guard(args, where=lambda: "explaining")):
            if result.kind == "signatures":
                from engine.explain.intervals import (explain_interval_match, explain_interval_why_not,
                                                      format_interval_text)

                mapping = result.request.column_mapping()
                opts = {"engine": args.engine, "u_max": mapping.u_max, "pmf": mapping.pmf_col}
                data = (explain_interval_match(pattern, events, match, **opts) if match is not None
                        else explain_interval_why_not(pattern, events, why_not, **opts))
                return Explanation(data, format_interval_text(data))
            opts = {"engine": args.engine, "match_windows": args.match_windows}
            data = (explain_match(pattern, events, match, **opts) if match is not None
                    else explain_why_not(pattern, events, why_not, **opts))
    except RunStopped as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    except ExplainError as err:
        raise CommandError(str(err), status=err.status) from None
    except PatternError as err:
        raise CommandError(str(err)) from None
    text = format_text(data)
    if result.kind == "rows":
        text = ("note: an AGG pattern gives aggregate rows; this explains the matches they aggregate (the "
                "pattern without its AGG clause)\n") + text
    return Explanation(data, text)


def _explain_query(result: Result, match: int | None, why_not: str | None) -> Explanation:
    """A MATCH_RECOGNIZE query: ``cep explain``'s SQL answer (engine/explain/sql_match.py,
    engine/explain/sql_whynot.py), the searches it reads traced."""
    from engine.commands.explain import DEFAULT_STEPS
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.trace_window import index_query, searches_near, trace_searches
    from engine.explain import ExplainError
    from engine.explain.sql_match import explain_sql_match, format_sql_match
    from engine.explain.sql_whynot import explain_sql_why_not, format_sql_why_not, parse_rows
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    if result.table is None:
        raise CommandError("a query run on Spark is explained in process: run it without spark=")
    query, table = result.pattern.query, result.table  # type: ignore[union-attr]
    try:
        index = index_query(query, table, result.engine)
        if match is not None:
            total = len(index.matches)
            wanted = [index.match_search[match - 1]] if total and 1 <= match <= total else []
        else:
            rows = parse_rows(why_not)
            wanted = searches_near(index, [r for r in rows if r <= len(table.rows)])
        trace = trace_searches(index, wanted, max_steps=50 * DEFAULT_STEPS)
        if match is not None:
            data = explain_sql_match(trace, match)
            return Explanation(data, format_sql_match(data))
        data = explain_sql_why_not(trace, why_not, len(table.rows))
        return Explanation(data, format_sql_why_not(data))
    except SqlError as err:
        raise CommandError(f"the query: {err}") from None
    except TraceLimit as err:
        raise CommandError(str(err), status=1) from None
    except (SqlRunError, StateExplosion) as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    except ExplainError as err:
        raise CommandError(str(err), status=err.status) from None


def trace_result(result: Result, limit: int | None = None) -> Trace:
    """``cep trace`` over the result's data (``limit``: its ``--limit``, default 5,000 events)."""
    if result.kind == "sql":
        raise CommandError("the trace of a MATCH_RECOGNIZE query is cep trace QUERY.sql --data FILE")
    from engine.match import EngineUnsupported, StateExplosion
    from engine.memory import RunStopped, guarding
    from engine.commands.request import run_guard
    from engine.run_choice import choose_run
    from engine.trace import DEFAULT_LIMIT, Recorder, TraceLimit, record, type_rates

    limit = DEFAULT_LIMIT if limit is None else limit
    if limit < 1:
        raise CommandError("limit must be at least 1")
    args = result.request.args
    pattern = result.pattern.model  # type: ignore[union-attr]
    events = result.all_events()
    if len(events) > limit:
        raise CommandError(f"the data has {len(events):,} events, more than the limit {limit:,}: a trace keeps "
                           "every step in memory. Trace a prefix of the data, or raise limit", status=1)
    interval = any(e.lower is not None for e in events[:1])
    rates = None if interval else type_rates(args.engine, events)
    try:
        choice = choose_run(pattern, args.engine, args.match_windows, rates=rates, interval=interval)
        matcher = choice.build(pattern, tracer=Recorder(), max_runs=args.max_runs)
    except EngineUnsupported as err:
        raise CommandError(str(err)) from None
    steps: list[dict[str, Any]] = []
    try:
        with guarding(run_guard(args, where=lambda: f"after {matcher.stats.events:,} events")):
            for step in record(matcher, events, limit=limit):
                d = step.to_json()
                if isinstance(step.step, int):
                    d = {"step": step.step, "position": step.step + 1, **{k: v for k, v in d.items() if k != "step"}}
                steps.append(d)
    except (StateExplosion, RunStopped, ValueError) as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    except TraceLimit as err:
        raise CommandError(str(err), status=1) from None
    return Trace(steps, choice.engine)
