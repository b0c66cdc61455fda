"""Differential runs: two patterns, or one pattern under two strategies or two engines, on the
same data (``cep diff``, docs/diff.md).

Each side runs exactly as ``cep run`` runs it (``engine.run_choice.choose_run`` with the same
defaults: ``--match-windows auto``, the data's type rates for ``--engine auto``). A match's
identity is its bindings as ``cep run --format jsonl`` prints them (``{var: [ids]}``, compared
as a JSON object: key order does not matter, variable names do). Each distinct match is
reported once, on side ``a``, ``b`` or ``both``, so the matches of side ``a`` plus ``both`` are
``cep run``'s output for side A as a set (the same for B).

A one-sided match carries ``why_not``: the why-not explanation of its events on the OTHER
side (``engine.explain.explain_why_not``, the machinery of ``cep explain --why-not``, in its
JSON form), with the variables fixed as the match binds them when the other pattern has
those variables, else with the events only (every assignment is tried). Why-not costs a
search per match, so only the first ``why_not_limit`` one-sided matches (in the output
order) get one; the later ones get ``None``.

Order (documented contract): by ``end``, then ``start``, then side (``a``, ``b``, ``both``),
then the match's JSON text. Numbers sort before text; values of other kinds by their text.

MATCH_RECOGNIZE queries (both sides must be queries) compare their output rows as whole JSON
objects (:func:`diff_rows`); they have no why-not here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from engine.events import Event
from engine.json_text import json_text
from engine.model import Pattern

__all__ = ["SIDES", "DEFAULT_WHY_NOT_LIMIT", "Side", "DiffLine", "DiffResult", "run_side", "diff_matches",
           "diff_rows", "match_key", "order_key", "why_not_on"]

SIDES = ("a", "b", "both")
#: one-sided matches that get a why-not (the rest get ``None``)
DEFAULT_WHY_NOT_LIMIT = 200


@dataclass
class Side:
    """One side's run: its pattern, the engine asked for and what ran, and the matches in
    ``cep run``'s order (``error``: why the engine stopped)."""

    pattern: Pattern
    engine: str
    match_windows: str
    run: Any  # engine.explain.common.EngineRun

    @property
    def matches(self) -> list[Any]:
        return self.run.matches

    @property
    def error(self) -> str | None:
        return self.run.error


@dataclass
class DiffLine:
    """One line of ``cep diff --format jsonl``: ``{"side", "match", "start", "end"}`` plus
    ``why_not`` on a one-sided match."""

    side: str
    match: dict[str, Any]
    start: Any
    end: Any
    why_not: dict[str, Any] | None = None
    one_sided: bool = False
    row: bool = False  # a MATCH_RECOGNIZE row: ``match`` is the whole row

    def to_json(self) -> dict[str, Any]:
        if self.row:
            return {"side": self.side, "row": self.match}
        d: dict[str, Any] = {"side": self.side, "match": self.match, "start": self.start, "end": self.end}
        if self.side != "both":
            d["why_not"] = self.why_not
        return d


@dataclass
class DiffResult:
    """The lines in the documented order, the counts per side, and the one-sided matches left
    without a why-not (past the limit)."""

    lines: list[DiffLine]
    counts: dict[str, int] = field(default_factory=dict)
    why_not_skipped: int = 0


def match_key(match: dict[str, Any]) -> str:
    """A match's identity: its bindings as printed, as canonical JSON (sorted keys)."""
    import json

    return json.dumps(match, sort_keys=True, ensure_ascii=False, default=str)


def _sortable(v: Any) -> tuple[int, Any]:
    if isinstance(v, bool) or v is None:
        return (2, str(v))
    if isinstance(v, (int, float)) and v == v:
        return (0, v)
    return (1, str(v))


def order_key(line: DiffLine) -> tuple[Any, ...]:
    """End, then start, then side (a, b, both), then the match's JSON text."""
    return (_sortable(line.end), _sortable(line.start), SIDES.index(line.side), match_key(line.match))


def run_side(pattern: Pattern, events: Sequence[Event], engine: str = "auto", match_windows: str = "auto",
             max_runs: int | None = None, guard: Any = None) -> Side:
    """Run ``pattern`` over ``events`` as ``cep run`` does; EngineUnsupported (from
    ``choose_run``) names why the engine cannot run it. ``guard`` (an
    ``engine.memory.MemoryGuard``) is ticked per event and per match, as ``cep run`` ticks it;
    a ``RunStopped`` it raises goes to the caller."""
    from engine.explain.common import EngineRun
    from engine.match import StateExplosion
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    rates = type_rates(engine, events)
    choice = choose_run(pattern, engine, match_windows, rates=rates)
    matcher = choice.build(pattern, max_runs=max_runs, guard=guard)
    tick = guard.tick if guard is not None else (lambda: None)
    try:
        matches: list[Any] = []
        for e in events:
            found = matcher.feed(e)
            matches.extend(found)
            for _ in found:
                tick()
            tick()
        matches.extend(matcher.close())
        run = EngineRun(choice.engine, matches, None, rates, engine, match_windows, choice.inner)
    except (StateExplosion, ValueError) as err:  # ValueError: the oracle refusing a large input
        run = EngineRun(choice.engine, [], f"stopped: {err}", rates, engine, match_windows, choice.inner)
    return Side(pattern, engine, match_windows, run)


def _why_not_spec(match: dict[str, list[Any]], other: Pattern) -> str:
    """``a=1,2;b=6`` when ``other`` has every bound variable as a positive component, else
    the ids ``1,2,6``."""
    bound = {v: ids for v, ids in match.items() if ids}
    positive = {c.var for c in other.positive}
    if bound and set(bound) <= positive:
        return ";".join(f"{v}={','.join(str(i) for i in ids)}" for v, ids in bound.items())
    return ",".join(str(i) for ids in bound.values() for i in ids)


def why_not_on(match: dict[str, list[Any]], other: Side, events: Sequence[Event]) -> dict[str, Any]:
    """Why ``match`` (one side's bindings) is not a match of the ``other`` side: ``cep explain
    --why-not`` on the other side's run, the variables fixed as the match binds them."""
    from engine.explain import ExplainError, explain_why_not

    spec = _why_not_spec(match, other.pattern)
    try:
        return explain_why_not(other.pattern, events, spec, engine=other.engine, match_windows=other.match_windows,
                               run=other.run)
    except ExplainError as err:  # e.g. ids that are not unique in the data
        return {"verdict": "unknown", "events": spec, "reason": {"kind": "error", "text": str(err)}}


def diff_matches(a: Side, b: Side, events: Sequence[Event], why_not: bool = True,
                 why_not_limit: int = DEFAULT_WHY_NOT_LIMIT) -> DiffResult:
    """The matches of ``a`` and ``b`` by identity, in the documented order, the first
    ``why_not_limit`` one-sided ones with the why-not of the other side (``why_not``: False
    computes none, e.g. for counts)."""
    seen: dict[str, dict[str, Any]] = {}
    sides: dict[str, set[str]] = {}
    for name, side in (("a", a), ("b", b)):
        for m in side.matches:
            j = m.to_json()
            k = match_key(j["match"])
            seen.setdefault(k, j)
            sides.setdefault(k, set()).add(name)
    lines = []
    for k, j in seen.items():
        s = sides[k]
        side = "both" if len(s) == 2 else next(iter(s))
        lines.append(DiffLine(side, j["match"], j.get("start"), j.get("end"), one_sided=side != "both"))
    lines.sort(key=order_key)
    counts = {name: sum(1 for x in lines if x.side == name) for name in SIDES}
    skipped = 0
    done = 0
    for line in lines:
        if not line.one_sided or not why_not:
            continue
        if done >= why_not_limit:
            skipped += 1
            continue
        other = b if line.side == "a" else a
        line.why_not = why_not_on(line.match, other, events)
        done += 1
    return DiffResult(lines, counts, skipped if why_not else 0)


def diff_rows(rows_a: Iterable[dict[str, Any]], rows_b: Iterable[dict[str, Any]]) -> DiffResult:
    """MATCH_RECOGNIZE rows compared as whole JSON objects, in side A's row order, then the
    rows only in B in B's order."""
    keys_a = {match_key(r): r for r in rows_a}
    keys_b = {match_key(r): r for r in rows_b}
    lines = [DiffLine("both" if k in keys_b else "a", r, None, None, row=True) for k, r in keys_a.items()]
    lines += [DiffLine("b", r, None, None, row=True) for k, r in keys_b.items() if k not in keys_a]
    counts = {name: sum(1 for x in lines if x.side == name) for name in SIDES}
    return DiffResult(lines, counts)


def line_text(line: DiffLine) -> str:
    """One line of ``--format jsonl``."""
    return json_text(line.to_json(), "a diff line")
