"""Several AGG queries at once, sharing their prefix counters (A-Seq §4).

A *workload* is a list of named AGG patterns: a file of ``QUERY name`` blocks (each block a
pattern in the DSL), or several pattern files (named by their file names)::

    QUERY q1
    PATTERN SEQ(VKindle a, BKindle b, VCase c, BCase d)
    AGG COUNT
    WITHIN 1 hour

    QUERY q2
    PATTERN SEQ(VKindle a, BKindle b, VKindleFire f)
    AGG COUNT
    WITHIN 1 hour

:class:`WorkloadMatcher` returns the rows of every query, tagged with its name, equal to
running each query alone (tests/test_aseq_workload.py). How queries share (A13, A14):

- queries share counters only with queries of the same window and the same partitions
  (partition key, GROUP BY included): a *sharing group*, one :class:`~engine.engines.aseq.core.Counters`;
- inside a group, positive positions become nodes of a prefix tree (PreTree, §4.1) keyed by
  the path, the type, the position's own predicates and the negations of the gap after it
  (a node is shared only if its counter means the same for every query: A13);
- a windowed query whose first position no other query shares, and whose tail is a path
  from the START of another query (length >= 2), is cut there and connected with
  snapshots (Chop-Connect, §4.2; A14's greedy rule, applied again to the head for more
  pieces, the multi-connect of Example 9); START-anchored predicates stay unshared;
- a query A-Seq cannot aggregate without matches runs alone on the baseline.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.events import Event
from engine.match import EngineUnsupported, MatcherBase, Tracer
from engine.model import Pattern
from engine.partition import PartitionKey
from engine.engines.aseq.core import ALL, DEFAULT_MAX_LIVE, Counters
from engine.engines.aseq.plan import AseqUnsupported, QueryPlan, compile_query, refusal
from engine.engines.aseq.values import AggRow, finish, group_json

__all__ = ["Query", "WorkloadError", "parse_workload", "is_workload", "WorkloadMatcher",
           "sharing_plan"]

_HEADER = re.compile(r"^\s*QUERY\s+([A-Za-z_][\w.-]*)\s*$", re.IGNORECASE)


class WorkloadError(ValueError):
    """A workload that cannot be read (a query's pattern error names the query and line)."""


@dataclass
class Query:
    name: str
    pattern: Pattern
    text: str = ""


def is_workload(text: str) -> bool:
    """Does ``text`` hold ``QUERY name`` blocks?"""
    return any(_HEADER.match(line) for line in text.splitlines())


def parse_workload(text: str, origin: str = "<workload>") -> list[Query]:
    """The queries of a workload file (see the module docstring)."""
    from engine.dsl import DslError, parse

    blocks: list[tuple[str, int, list[str]]] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if m:
            blocks.append((m.group(1), n, []))
        elif blocks:
            blocks[-1][2].append(line)
        elif line.strip() and not line.strip().startswith("--"):
            raise WorkloadError(f"{origin}: line {n}: text before the first `QUERY name` line")
    if not blocks:
        raise WorkloadError(f"{origin}: no `QUERY name` block")
    out: list[Query] = []
    seen: set[str] = set()
    for name, line, body in blocks:
        if name in seen:
            raise WorkloadError(f"{origin}: line {line}: query `{name}` is defined twice")
        seen.add(name)
        src = "\n".join(body)
        try:
            p = parse(src)
        except DslError as err:
            from engine.dsl import render_error

            span = (err.span[0] + line, err.span[1], err.span[2]) if err.span else None
            raise WorkloadError(f"{origin}: query `{name}`: {render_error(err.message, span, text, err.hint)}"
                                ) from None
        if p.aggregate is None:
            raise WorkloadError(f"{origin}: query `{name}` has no AGG clause; a workload runs AGG patterns")
        out.append(Query(name, p, src))
    return out


# --------------------------------------------------------------------------- sharing plan

def _merge_keys(a: PartitionKey | None, b: PartitionKey | None) -> PartitionKey | None | bool:
    """One partition key for two queries, or False when they partition differently (a type
    both use keyed by other attributes, one keyed and one not)."""
    if a is None or b is None:
        return None if a is None and b is None else False
    if a.default != b.default:
        return False
    for t in set(a.by_type) & set(b.by_type):
        if a.by_type[t] != b.by_type[t]:
            return False
    return PartitionKey(by_type={**a.by_type, **b.by_type}, default=a.default, width=max(a.width, b.width))


def _pos_key(p: Any) -> tuple:
    return (p.type, p.sig, p.reset_sig)


def sharing_plan(plans: list[QueryPlan], chop: bool = True) -> list[list[int] | None]:
    """Cut points per query (None: not cut) by A14's greedy rule (module docstring)."""
    paths = [[_pos_key(p) for p in plan.positions] for plan in plans]
    cuts: list[list[int] | None] = [None] * len(plans)
    if not chop:
        return cuts
    for qi, plan in enumerate(plans):
        if plan.window is None or plan.anchored or len(paths[qi]) < 3:
            continue
        others = [paths[j] for j in range(len(plans)) if j != qi]
        if any(o[0] == paths[qi][0] for o in others):
            continue  # the START is shared already: prefix sharing (PreTree) applies
        mine = paths[qi]
        pts: list[int] = []
        end = len(mine)
        while True:
            found = None
            for j in range(1, end - 1):  # the longest tail mine[j:end] (length >= 2) ...
                tail = mine[j:end]
                if any(o[:len(tail)] == tail for o in others):  # ... that is another query's path
                    found = j
                    break
            if found is None:
                break
            pts.insert(0, found)
            end = found
        if pts:
            cuts[qi] = pts
    return cuts


class WorkloadMatcher(MatcherBase):
    """All queries of a workload over one stream; rows tagged with the query's name (see
    the module docstring). ``share=False`` runs every query on its own counters (the
    unshared reference); ``chops`` fixes the cut points of named queries; ``share_starts=False``
    keeps one counter vector per START (engine/engines/aseq/shared_starts.py)."""

    name = "aseq-workload"
    unit = "prefix counters"

    def __init__(self, queries: list[Query], tracer: Tracer = None, *, emit: str = "trig", share: bool = True,
                 chop: bool = True, chops: dict[str, list[int]] | None = None, max_runs: int | None = None,
                 share_starts: bool = True, **_: Any) -> None:
        if not queries:
            raise ValueError("an empty workload")
        super().__init__(queries[0].pattern, tracer)
        self.queries = queries
        self.emit = emit
        self.order = {q.name: i for i, q in enumerate(queries)}
        limit = max_runs if max_runs is not None else DEFAULT_MAX_LIVE
        plans: dict[int, QueryPlan] = {}
        self.alone: dict[int, MatcherBase] = {}
        self.fallback: dict[str, str] = {}
        for i, q in enumerate(queries):
            why = refusal(q.pattern)
            if why:
                raise EngineUnsupported(f"query `{q.name}`: {why}")
            try:
                plans[i] = compile_query(q.pattern)
            except AseqUnsupported as err:
                from engine.engines.aseq.baseline import BaselineMatcher

                self.fallback[q.name] = str(err)
                self.alone[i] = BaselineMatcher(q.pattern, None, emit=emit, max_runs=max_runs)
        # sharing groups: equal windows and compatible partitions (A13)
        found: list[tuple[tuple, Any, list[int]]] = []
        for i, plan in plans.items():
            for k, (win, key, members) in enumerate(found):
                merged = _merge_keys(key, plan.key) if share and win == (plan.window, plan.count_window) else False
                if merged is not False:
                    found[k] = (win, merged, members + [i])
                    break
            else:
                found.append(((plan.window, plan.count_window), plan.key, [i]))
        self.groups: list[tuple[list[int], Counters, Any]] = []
        for _win, gkey, members in found:
            mplans = [plans[i] for i in members]
            cuts = sharing_plan(mplans, chop=chop and share)
            if chops:
                for k, i in enumerate(members):
                    if queries[i].name in chops:
                        cuts[k] = list(chops[queries[i].name]) or None
            specs = [(queries[i].name, plans[i], cuts[k]) for k, i in enumerate(members)]
            c = Counters(specs, tracer=tracer, max_live=limit, on_explode=self.explode, share_starts=share_starts)
            self.groups.append((members, c, _Group(mplans[0], gkey)))
        self.last_seq = -1
        self._rows = 0

    def feed(self, e: Event) -> list[AggRow]:
        self.stats.events += 1
        self.last_seq = e.seq
        tagged: list[tuple[int, int, AggRow]] = []
        for members, c, plan in self.groups:
            if plan.window is not None:
                for t_exp, qi, g, old, new in c.expire_to(c.coord(e), emit=self.emit == "changes"):
                    qp = c.queries[qi].plan
                    a, b = finish(qp.func, qp.kind, old), finish(qp.func, qp.kind, new)
                    if a != b:
                        ts = e.ts if plan.count_window else t_exp
                        tagged.append((members[qi], 0, AggRow(ts, None, _g(g), b, c.queries[qi].name, e.seq)))
            if c.relevant(e.type):
                for qi, g, v in c.feed(e, plan.part(e)):
                    qp = c.queries[qi].plan
                    tagged.append((members[qi], 1, AggRow(e.ts, e.id, _g(g), finish(qp.func, qp.kind, v),
                                                          c.queries[qi].name, e.seq)))
        for i, m in self.alone.items():
            for r in m.feed(e):
                tagged.append((i, 0 if r.event is None else 1, _tag(r, self.queries[i].name)))
        tagged.sort(key=lambda x: (x[0], x[1]))
        rows = [r for _i, _k, r in tagged]
        self._rows += len(rows)
        self._sync()
        return rows

    def close(self) -> list[AggRow]:
        tagged: list[tuple[int, float, AggRow]] = []
        if self.emit == "changes":
            for members, c, plan in self.groups:
                if plan.window is None or plan.count_window:
                    continue
                for t_exp, qi, g, old, new in c.expire_to(float("inf"), emit=True):
                    qp = c.queries[qi].plan
                    a, b = finish(qp.func, qp.kind, old), finish(qp.func, qp.kind, new)
                    if a != b:
                        tagged.append((members[qi], t_exp, AggRow(t_exp, None, _g(g), b, c.queries[qi].name,
                                                                  self.last_seq + 1)))
        for i, m in self.alone.items():
            for r in m.close():
                tagged.append((i, r.ts, _tag(r, self.queries[i].name)))
        tagged.sort(key=lambda x: (x[0], x[1]))
        self._sync()
        return [r for _i, _t, r in tagged]

    def _sync(self) -> None:
        st = self.stats
        st.runs_alive = sum(c.live for _m, c, _p in self.groups)
        st.runs_peak = max(st.runs_peak, st.runs_alive)
        st.extra.update(rows=self._rows, counter_updates=sum(c.updates for _m, c, _p in self.groups),
                        sharing_groups=len(self.groups), pretree_nodes=sum(len(c.nodes) for _m, c, _p in self.groups),
                        chopped=[c.queries[k].name for _m, c, _p in self.groups for k in range(len(c.queries))
                                 if c.queries[k].chopped],
                        **({"fallback": dict(self.fallback)} if self.fallback else {}))

    def tree(self) -> list[dict[str, Any]]:
        """The PreTree of every sharing group: nodes (id, parent, label, users) and the
        queries' paths, for drawing (visualizers/aseq_view.py)."""
        out = []
        for _members, c, _plan in self.groups:
            out.append({"nodes": [{"id": n.id, "parent": n.parent, "label": n.label, "type": n.type,
                                   "users": list(n.users), "resets": [r.type for r in n.resets]} for n in c.nodes],
                        "queries": [{"name": q.name, "pieces": q.pieces} for q in c.queries]})
        return out

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        groups = []
        for _members, c, _plan in self.groups:
            groups.append({"columns": [n.label for n in c.nodes], "rows": c.rows(),
                           "queries": [q.name for q in c.queries]})
        return [], {"kind": "aseq-workload", "groups": groups}


class _Group:
    """What a sharing group needs of its queries' plans: the window and the merged key."""

    def __init__(self, plan: QueryPlan, key: PartitionKey | None) -> None:
        self.window = plan.window
        self.count_window = plan.count_window
        self.key = key

    def part(self, e: Event) -> Any:
        return self.key.of(e) if self.key is not None else None


def _g(g: Any) -> Any:
    return None if g is ALL else group_json(g)


def _tag(r: AggRow, name: str) -> AggRow:
    return AggRow(r.ts, r.event, r.group, r.value, name, r.seq)
