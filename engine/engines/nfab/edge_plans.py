"""NFA^b's edge plans: each chain (SEQ alternative) of the automaton compiled into what a
run's step reads (SASE+ §5.1-§5.2): per state the begin / take / proceed closures over
``(V, event)``, the value-vector columns V they read and how each begin/take updates them,
the columns merging compares (§4.10), and one :class:`StateStep` per state.

Compiled once per pattern (:func:`compiled_chains`) and shared by the matchers of many
partitions.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from engine.events import BUILTIN_FIELDS, Event
from engine.expr import Agg, BoolOp, Cmp, Len, Node, Ref, compile_expr, slot_attr
from engine.model import ANY_TYPE, Pattern
from engine.engines.nfab.compiler import Chain, Nfab, compile_pattern
from engine.engines.nfab.runs import POISONED, ValueVector

__all__ = ["ChainPlan", "StateStep", "compiled_chains", "implied_by_partition", "partition_attribute"]


class StateStep(NamedTuple):
    """The step's view of one waiting state (``NfabMatcher._step``). ``ChainPlan.steps`` holds
    these as plain tuples, unpacked in this order in the step: unpacking a NamedTuple is
    about twice as slow as unpacking a tuple."""

    is_kleene_rest: bool
    type: str | None
    any_type: bool  # the state takes events of any type
    formula: Callable[[Any], bool] | None  # take (kleene_rest) or begin; None: true
    next_state: int
    next_type: str | None
    next_any_type: bool
    proceed: Callable[[Any], bool] | None
    next_begin: Callable[[Any], bool] | None
    next_is_final: bool
    has_updates: bool  # a begin/take here updates V


def partition_attribute(nfa: Nfab) -> str | None:
    """The partition attribute when the key is one attribute of the events' dict for every
    type (``[symbol]``): events of one partition then have equal values of it (a NaN value
    is a partition of its own, see ``NfabMatcher._partitioner``), so an equality of two of
    its references within a run always holds and is not evaluated."""
    key = nfa.key
    uni = key.uniform if key is not None else None
    if uni is not None and len(uni) == 1 and uni[0] not in BUILTIN_FIELDS:
        return uni[0]
    return None


def implied_by_partition(x: Node, attr: str | None, variables: set[str]) -> bool:
    """``v.attr = w.attr`` for the partition attribute between two different events of a
    run: two positive variables of the chain, or ``a[i]`` and ``a[1]`` / ``a[i-1]`` (the take
    edge, i >= 2). True for every run, since a run sees only its partition; an equality of
    an event with itself is kept (NaN). Fast path: such an equality is left out of the edge
    formula; its parity with the oracle, which evaluates it, is
    tests/engines/nfab/test_paths.py::test_partition_equalities_hold_as_the_oracle_evaluates_them."""
    if not (attr is not None and isinstance(x, Cmp) and x.op == "=" and isinstance(x.left, Ref)
            and isinstance(x.right, Ref) and x.left.attr == attr and x.right.attr == attr
            and x.left.var in variables and x.right.var in variables):
        return False
    if x.left.var != x.right.var:
        return True
    return {x.left.index, x.right.index} in ({"i", "1"}, {"i", "i-1"})


class ChainPlan:
    """Compiled, runnable form of one chain: per state the edge closures, the V updates and
    the step's view (``steps``)."""

    def __init__(self, nfa: Nfab, chain: Chain):
        self.chain = chain
        self._partition_attribute = partition_attribute(nfa)
        self._variables = {c.var for c in chain.comps}
        self.states = chain.states
        self.final = chain.final
        self.columns: dict[tuple[Any, ...], int] = {}
        self._column_ops: list[str] = []  # per V column: first, last, len, cnt, sum, min, max
        self._columns_read: dict[int, set[int]] = {}
        # first pass: find V columns by compiling; second pass builds closures
        n = len(self.states)
        self.begin: list[Callable[[Any], bool] | None] = [None] * n
        self.take: list[Callable[[Any], bool] | None] = [None] * n
        self.proceed: list[Callable[[Any], bool] | None] = [None] * n
        self.types: list[str | None] = [s.type for s in self.states]
        for si, s in enumerate(self.states):
            if s.kind in ("singleton", "kleene_first"):
                self.begin[si] = self._compile(s.begin, si, "begin")
            elif s.kind == "kleene_rest":
                self.take[si] = self._compile(s.take, si, "take")
                self.proceed[si] = self._compile(s.proceed, si, "proceed")
        self.width = len(self.columns)
        self.variable_of: list[str | None] = [st.var for st in self.states]
        self.empty_values = ValueVector([None] * self.width)  # start states read no V
        # V updates per state on begin/take
        self.updates: list[list[tuple[str, int, str | None, bool]]] = [[] for _ in range(n)]
        for key, idx in self.columns.items():
            op, var = key[0], key[1]
            attr = key[2] if len(key) > 2 else None
            for si, s in enumerate(self.states):
                if s.var == var and s.kind != "final":
                    self.updates[si].append((op, idx, attr, attr in BUILTIN_FIELDS if attr else False))
        # the step's view of each waiting state, a StateStep as a plain tuple
        self.steps: list[tuple[Any, ...]] = []
        for si, s in enumerate(self.states):
            nsi = si + 1
            next_type = self.types[nsi] if nsi < n else None
            rest = s.kind == "kleene_rest"
            self.steps.append(tuple(StateStep(
                rest, self.types[si], self.types[si] == ANY_TYPE, self.take[si] if rest else self.begin[si],
                nsi, next_type, next_type == ANY_TYPE, self.proceed[si], self.begin[nsi] if nsi < n else None,
                nsi == self.final, bool(self.updates[si]))))
        # per state, the columns read at this state or later: runs that agree on them merge
        self.merge_columns: list[tuple[int, ...]] = []
        for si in range(n):
            used = set()
            for sj in range(si, n):
                used |= self._columns_read.get(sj, set())
            self.merge_columns.append(tuple(sorted(used)))

    def _column(self, si: int, key: tuple[Any, ...]) -> int:
        if key not in self.columns:
            self.columns[key] = len(self.columns)
            self._column_ops.append(key[0])
        idx = self.columns[key]
        self._columns_read.setdefault(si, set()).add(idx)
        return idx

    def _compile(self, exprs: list[Node], si: int, edge: str) -> Callable[[Any], bool] | None:
        exprs = [x for x in exprs if not implied_by_partition(x, self._partition_attribute, self._variables)]
        if not exprs:
            return None
        s = self.states[si]
        cur = s.var

        def attr_getter(a: str) -> Callable[[Any], Any]:
            # the current event is ctx[1]: a getter tagged as expr.slot_attr tags its own, so
            # that a comparison of it with a constant or another tagged value compiles to one
            # closure (engine.expr.fast_compare). Fast path: an attribute that is no built-in
            # field is read from the event's dict directly, inlining Event.get (parity with
            # the oracle: tests/engines/nfab/test_matcher.py::test_nfab_equals_oracle_under_skip_till_any)
            if a in BUILTIN_FIELDS:
                return slot_attr(1, a)

            def get(c: Any) -> Any:
                return c[1].attrs.get(a)
            get.slot_attr = (1, a)  # type: ignore[attr-defined]
            return get

        def v_getter(idx: int) -> Callable[[Any], Any]:
            # V is ctx[0] (a ValueVector). Fast path: columns that never hold POISONED (first,
            # last, len, cnt) are read without ValueVector.get and tagged like event
            # attributes, so that comparisons with them are one closure (same parity test)
            if self._column_ops[idx] in ("first", "last", "len", "cnt"):
                def col(c: Any) -> Any:
                    return c[0].attrs[idx]
                col.slot_attr = (0, idx)  # type: ignore[attr-defined]
                return col

            def g(c: Any) -> Any:
                v = c[0].attrs[idx]
                return None if v is POISONED else v
            return g

        def resolve(n: Node) -> Callable[[Any], Any]:
            if isinstance(n, Ref):
                var, a, ix = n.var, n.attr, n.index
                if var == cur:
                    if edge == "begin" and ix in (None, "1"):
                        return attr_getter(a)
                    if edge == "take" and ix in (None, "i"):
                        return attr_getter(a)
                    if edge == "take" and ix == "1":
                        return v_getter(self._column(si, ("first", var, a)))
                    if edge == "take" and ix == "i-1":
                        return v_getter(self._column(si, ("last", var, a)))
                    if edge == "proceed" and ix == "1":
                        return v_getter(self._column(si, ("first", var, a)))
                    if edge == "proceed" and ix in ("last", None):
                        return v_getter(self._column(si, ("last", var, a)))
                    raise ValueError(f"cannot place {n} on {edge} of {s.name}")
                if ix in (None, "1"):
                    return v_getter(self._column(si, ("first", var, a)))
                if ix == "last":
                    return v_getter(self._column(si, ("last", var, a)))
                raise ValueError(f"`{var}[{ix}]` used outside {var}'s take edge")
            if isinstance(n, Len):
                return v_getter(self._column(si, ("len", n.var)))
            if isinstance(n, Agg):
                var, a, f = n.var, n.attr, n.func
                if f == "count":
                    return v_getter(self._column(si, ("cnt", var, a)))
                if f in ("sum", "avg"):
                    cnt = self._column(si, ("cnt", var, a))
                    sm = self._column(si, ("sum", var, a))
                    if f == "sum":
                        return v_getter(sm)

                    def avg(c: Any) -> Any:
                        V = c[0].attrs
                        s_, k = V[sm], V[cnt]
                        if s_ is POISONED or s_ is None or not k:
                            return None
                        return s_ / k
                    return avg
                return v_getter(self._column(si, (f, var, a)))
            raise TypeError(n)

        expr: Node = exprs[0] if len(exprs) == 1 else BoolOp(op="AND", items=exprs)
        return compile_expr(expr, resolve)

    def update(self, si: int, V: list[Any], e: Event, first: bool) -> None:
        """A begin (``first``) or take at state ``si`` on event ``e``: the columns of V that
        follow this state's variable. Fast path: an attribute that is no built-in field is
        read from the event's dict, inlining Event.get (``builtin`` says which)."""
        attrs = e.attrs
        for op, idx, attr, builtin in self.updates[si]:
            if op == "len":
                V[idx] = (V[idx] or 0) + 1
                continue
            x = (e.get(attr) if builtin else attrs.get(attr)) if attr else None
            if op == "first":
                if first:
                    V[idx] = x
            elif op == "last":
                V[idx] = x
            elif op == "cnt":
                if x is not None:
                    V[idx] = (V[idx] or 0) + 1
                elif V[idx] is None:
                    V[idx] = 0
            elif x is None:
                continue
            else:
                cur = V[idx]
                if cur is POISONED:
                    continue
                try:
                    if cur is None:
                        V[idx] = x + 0 if op == "sum" else x
                        if op != "sum":
                            x < x  # noqa: B015 - type must be orderable
                    elif op == "sum":
                        V[idx] = cur + x
                    elif op == "min":
                        if x < cur:
                            V[idx] = x
                    elif op == "max":
                        if x > cur:
                            V[idx] = x
                except TypeError:
                    V[idx] = POISONED


_COMPILED: dict[str, tuple[Nfab, list[ChainPlan]]] = {}


def compiled_chains(pattern: Pattern) -> tuple[Nfab, list[ChainPlan]]:
    """Compile once per pattern: the automaton and its closures are immutable, so the
    matchers of many partitions (Spark keys) share them."""
    key = pattern.model_dump_json()
    hit = _COMPILED.get(key)
    if hit is None:
        nfa = compile_pattern(pattern)
        hit = (nfa, [ChainPlan(nfa, ch) for ch in nfa.chains])
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        _COMPILED[key] = hit
    return hit
