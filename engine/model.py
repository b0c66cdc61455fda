"""The pattern model (pydantic 2): components, operators, predicates, window, strategy,
output mode, aggregate and RETURN.

The graphical designer and the DSL edit the same :class:`Pattern`; its JSON form is
``Pattern.model_dump_json()``. :meth:`Pattern.check` is the semantic validation; it raises
:class:`PatternError` naming the offending piece (with a source span when the pattern was
parsed from text) and, where a name is close to a known one, a suggestion.
"""
from __future__ import annotations

import difflib
from enum import Enum
from typing import Annotated, Iterator, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.expr import (
    MAX_NESTING,
    MAX_NUMBER,
    PatternError,
    Agg,
    BoolOp,
    Expr,
    Len,
    Node,
    Num,
    Ref,
    Span,
    nesting_error,
    number_problem,
    numeric_refs,
    too_deep,
    uses_iteration,
    variables,
)

ANY_TYPE = "ANY"

# Limits of a pattern, so that no pattern can crash a recursive walk; MAX_NESTING, MAX_NUMBER and MAX_NUMBER_LENGTH are in expr.
MAX_COMPONENTS = 64  # components in the whole pattern
MAX_ALTERNATIVES = 64  # SEQ/AND alternatives after rewriting `?`, `*` and OR (as the NFA^b and lazy compilers count)
MAX_PATTERN_LENGTH = 100_000  # characters of DSL text
MAX_PREDICATES = 256  # WHERE conjuncts plus `[attr]` attributes (each engine places every one per alternative)
MAX_EXPRESSION_NODES = 4096  # nodes of all WHERE and RETURN expressions together


def suggest(name: str, known: list[str] | set[str]) -> str | None:
    """``did you mean `x`?`` for the closest known name, or None."""
    m = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    if not m:
        lower = {k.lower(): k for k in known}
        if name.lower() in lower:
            m = [lower[name.lower()]]
    return f"did you mean `{m[0]}`?" if m else None


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid")
    span: Span | None = Field(default=None, exclude=True, repr=False)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump()  # type: ignore[union-attr]

    __hash__ = None  # type: ignore[assignment]


Quantifier = Literal["one", "plus", "star", "opt"]
QUANT_SUFFIX = {"one": "", "plus": "+", "star": "*", "opt": "?"}


class Component(_Base):
    """One pattern component: ``Type v``, ``Type+ v[]``, ``Type* v[]``, ``Type? v``, ``!Type v``."""

    kind: Literal["component"] = "component"
    type: str
    var: str
    quant: Quantifier = "one"
    negated: bool = False

    @property
    def kleene(self) -> bool:
        return self.quant in ("plus", "star")

    @property
    def optional(self) -> bool:
        return self.quant in ("star", "opt")

    def matches_type(self, event_type: str) -> bool:
        return self.type == ANY_TYPE or self.type == event_type


class Group(_Base):
    """``SEQ(...)`` ordered, ``AND(...)`` all in any order, ``OR(...)`` one of."""

    kind: Literal["group"] = "group"
    op: Literal["SEQ", "AND", "OR"]
    items: list["Item"]


Item = Annotated[Union[Component, Group], Field(discriminator="kind")]
Group.model_rebuild()


class Strategy(str, Enum):
    STRICT = "strict_contiguity"
    PARTITION = "partition_contiguity"
    NEXT = "skip_till_next_match"
    ANY = "skip_till_any_match"


class Selection(str, Enum):
    """Which of the skip_till_any_match matches are reported (match-windows paper §3.5; a
    WHERE conjunct like the strategy): all of them, or per start event the Pareto-earliest,
    the maximal (no single-event extension of a Kleene binding is a match) or both."""

    ALL = "all"
    EARLIEST = "earliest"
    MAXIMAL = "maximal"
    EARLIEST_MAXIMAL = "earliest_maximal"


TIME_UNITS: dict[str, float] = {"ms": 0.001, "s": 1.0, "min": 60.0, "hour": 3600.0, "day": 86400.0}
UNIT_WORDS = {"ms": "ms", "s": "s", "min": "min", "hour": "hour", "day": "day", "events": "events"}


class Window(_Base):
    """``WITHIN 1 hour`` (time), ``WITHIN 500`` (unit of the time column) or ``WITHIN 500 events``."""

    value: float | int = Field(gt=0)
    unit: Literal["ms", "s", "min", "hour", "day", "events"] | None = None

    @property
    def is_count(self) -> bool:
        return self.unit == "events"

    @property
    def size(self) -> float:
        """Window length in the unit the engine compares: seconds for time units, raw
        ts units when unitless, stream positions for count windows."""
        if self.unit is None or self.unit == "events":
            return self.value
        return self.value * TIME_UNITS[self.unit]


class Aggregate(_Base):
    """A-Seq aggregation: ``AGG COUNT | SUM(v.x) | AVG(v.x) | MIN(v.x) | MAX(v.x)``, ``GROUP BY``."""

    func: Literal["COUNT", "SUM", "AVG", "MIN", "MAX"]
    var: str | None = None
    attr: str | None = None
    group_by: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _target(self) -> "Aggregate":
        if self.func == "COUNT":
            if (self.var is None) != (self.attr is None):
                raise ValueError("COUNT takes no argument or a `v.attr`")
        elif self.var is None or self.attr is None:
            raise ValueError(f"{self.func} needs an argument `v.attr`")
        return self


class ReturnItem(_Base):
    """``RETURN v`` (all events of v), or ``RETURN expr [AS name]``."""

    var: str | None = None
    expr: Expr | None = None
    alias: str | None = None

    @model_validator(mode="after")
    def _one(self) -> "ReturnItem":
        if (self.var is None) == (self.expr is None):
            raise ValueError("a RETURN item is either a variable or an expression")
        return self


class Pattern(_Base):
    root: Group
    where: list[Expr] = Field(default_factory=list)
    equivalence: list[str] = Field(default_factory=list)
    strategy: Strategy = Strategy.ANY
    selection: Selection = Selection.ALL
    window: Window | None = None
    output: Literal["ALL", "NON_OVERLAP"] = "ALL"
    aggregate: Aggregate | None = None
    returns: list[ReturnItem] = Field(default_factory=list)

    # ------------------------------------------------------------------ structure

    def components(self) -> list[Component]:
        return list(iter_components(self.root))

    def component(self, var: str) -> Component:
        for c in iter_components(self.root):
            if c.var == var:
                return c
        raise KeyError(var)

    @property
    def variables(self) -> list[str]:
        return [c.var for c in self.components()]

    @property
    def positive(self) -> list[Component]:
        return [c for c in self.components() if not c.negated]

    @property
    def negated(self) -> list[Component]:
        return [c for c in self.components() if c.negated]

    def is_flat_seq(self) -> bool:
        """SEQ of components only (no nested groups): the shape NFA^b compiles directly."""
        return self.root.op == "SEQ" and all(isinstance(i, Component) for i in self.root.items)

    def numeric_attrs(self) -> dict[str, set[str]]:
        """Event type -> attributes the pattern uses numerically (for data validation)."""
        out: dict[str, set[str]] = {}
        exprs: list[Node] = list(self.where)
        for r in self.returns:
            if r.expr is not None:
                exprs.append(r.expr)
        pairs: set[tuple[str, str]] = set()
        for e in exprs:
            pairs |= numeric_refs(e)
        if self.aggregate and self.aggregate.var and self.aggregate.func != "COUNT":
            pairs.add((self.aggregate.var, self.aggregate.attr or ""))
        types = {c.var: c.type for c in self.components()}
        for var, attr in pairs:
            if var in types:
                out.setdefault(types[var], set()).add(attr)
        return out

    # ------------------------------------------------------------------ validation

    def check_limits(self) -> "Pattern":
        """The size limits of a pattern, checked without recursion, so that a
        pattern built by hand or read from JSON cannot make a later (recursive) walk crash:
        groups nested at most MAX_NESTING deep, at most MAX_COMPONENTS components and
        MAX_ALTERNATIVES alternatives, at most MAX_PREDICATES predicates (WHERE conjuncts and
        `[attr]`) of MAX_EXPRESSION_NODES terms in all, expression trees at most MAX_NESTING
        high, every number an int or a finite float of magnitude at most MAX_NUMBER, a window
        whose size is a positive finite number. Raises PatternError; returns the pattern."""
        check_group_depth(self.root)
        for k, c in enumerate(iter_components(self.root)):
            if k == MAX_COMPONENTS:
                raise PatternError(f"more than {MAX_COMPONENTS} components", c.span,
                                   "split the pattern, or use a Kleene component `Type+ v[]`")
        n_alt = alternative_count(self.root)
        if n_alt > MAX_ALTERNATIVES:
            raise PatternError(f"the pattern expands into more than {MAX_ALTERNATIVES} alternatives",
                               self.root.span, "every `?`, `*` and OR(...) multiplies the alternatives "
                               "an engine must match; use fewer of them")
        if len(self.where) + len(self.equivalence) > MAX_PREDICATES:
            k = max(0, MAX_PREDICATES - len(self.equivalence))
            raise PatternError(f"more than {MAX_PREDICATES} predicates", self.where[k].span if k < len(self.where)
                               else self.span, "conjuncts of WHERE and `[attr]` attributes count")
        exprs: list[Node] = list(self.where) + [r.expr for r in self.returns if r.expr is not None]
        nodes = 0
        for e in exprs:
            deep = too_deep(e)
            if deep is not None:
                raise nesting_error(deep)
            for n in e.walk():
                nodes += 1
                if nodes > MAX_EXPRESSION_NODES:
                    raise PatternError(f"the predicates have more than {MAX_EXPRESSION_NODES:,} terms in all",
                                       e.span, "every comparison, operator, value and reference is a term")
                if isinstance(n, Num):
                    why = number_problem(n.value)
                    if why:
                        raise PatternError(why, n.span)
        w = self.window
        if w is not None:
            why = number_problem(w.value)
            if why:
                raise PatternError(f"window: {why}", w.span)
            if not w.size > 0:
                raise PatternError("the window must be positive", w.span)
        return self

    def check(self) -> "Pattern":
        """Semantic validation; raises PatternError on the first problem found."""
        self.check_limits()
        comps = self.components()
        if not comps:
            raise PatternError("the pattern has no components", self.root.span)
        seen: dict[str, Component] = {}
        for c in comps:
            if c.var in seen:
                raise PatternError(f"duplicate variable `{c.var}`", c.span,
                                   "each component needs its own variable name")
            seen[c.var] = c
            if c.negated and c.quant != "one":
                raise PatternError(f"a negated component cannot be quantified (`!{c.type}{QUANT_SUFFIX[c.quant]}`)",
                                   c.span)
        if not any(not c.negated for c in comps):
            raise PatternError("the pattern needs at least one positive (non-negated) component", self.root.span)
        if all(c.optional for c in comps if not c.negated):
            raise PatternError("every positive component is optional, so a match could be empty", self.root.span,
                               "make at least one component required")
        _check_group(self.root, self.window is not None, top=True)
        if self.selection is not Selection.ALL:
            _check_selection(self)

        kleene = {c.var for c in comps if c.kleene}
        negs = {c.var for c in comps if c.negated}
        for e in self.where:
            self._check_expr(e, seen, kleene)
            nv = variables(e) & negs
            if len(nv) > 1:
                raise PatternError(f"a predicate may mention at most one negated variable, found {_names(nv)}",
                                   e.span)
            it = uses_iteration(e)
            if len(it) > 1:
                raise PatternError(f"`[i]` of two Kleene variables ({_names(it)}) in one predicate is ambiguous",
                                   e.span, "split it into one predicate per variable")
            if nv and it:
                raise PatternError("a predicate of a negated variable cannot iterate over a Kleene variable",
                                   e.span)
        for attr in self.equivalence:
            if not attr:
                raise PatternError("empty attribute in `[...]`", self.span)
        if self.aggregate is not None:
            a = self.aggregate
            if a.var is not None:
                if a.var not in seen:
                    raise PatternError(f"aggregate over undefined variable `{a.var}`", a.span,
                                       suggest(a.var, set(seen)))
                if a.var in negs:
                    raise PatternError(f"aggregate over negated variable `{a.var}`", a.span)
        for r in self.returns:
            if r.var is not None:
                if r.var not in seen:
                    raise PatternError(f"RETURN of undefined variable `{r.var}`", r.span, suggest(r.var, set(seen)))
            else:
                assert r.expr is not None
                self._check_expr(r.expr, seen, kleene)
                if variables(r.expr) & negs:
                    raise PatternError("RETURN cannot use a negated variable", r.expr.span)
                if uses_iteration(r.expr):
                    raise PatternError("`[i]`, `[i-1]` and `[..i-1]` only make sense in WHERE", r.expr.span,
                                       "use a[1], a[last] or avg(a[].x) in RETURN")
        return self

    def _check_expr(self, e: Node, seen: dict[str, Component], kleene: set[str]) -> None:
        for n in e.walk():
            if isinstance(n, (Ref, Len, Agg)):
                if n.var not in seen:
                    raise PatternError(f"undefined variable `{n.var}`", n.span, suggest(n.var, set(seen)))
                is_k = n.var in kleene
                if isinstance(n, Ref) and n.index is not None and not is_k:
                    raise PatternError(f"`{n.var}[{n.index}]` on `{n.var}`, which is not a Kleene variable",
                                       n.span, f"write `{n.var}.{n.attr}`, or declare `{seen[n.var].type}+ {n.var}[]`")
                if isinstance(n, (Len, Agg)) and not is_k:
                    what = f"{n.var}.len" if isinstance(n, Len) else f"{n.func}({n.var}...)"
                    raise PatternError(f"`{what}` on `{n.var}`, which is not a Kleene variable", n.span)
                if seen[n.var].negated and isinstance(n, (Len, Agg)):
                    raise PatternError(f"`{n.var}` is negated; only `{n.var}.attr` can be used", n.span)

    def check_schema(self, schema: dict[str, dict[str, str]]) -> list[str]:
        """Check names against a data schema (event type -> attribute -> kind).

        Raises PatternError for an attribute that no event of the variable's type has;
        returns warnings (e.g. an event type that does not occur in the data)."""
        from engine.events import BUILTIN_FIELDS

        warnings: list[str] = []
        types = {c.var: c for c in self.components()}
        all_attrs = set().union(*schema.values()) if schema else set()
        for c in self.components():
            if c.type != ANY_TYPE and c.type not in schema:
                hint = suggest(c.type, set(schema))
                warnings.append(f"event type `{c.type}` does not occur in the data" + (f"; {hint}" if hint else ""))

        def attrs_of(var: str) -> set[str]:
            c = types[var]
            if c.type == ANY_TYPE:
                return all_attrs
            return set(schema.get(c.type, {}))

        def check_ref(var: str, attr: str, span: Span | None) -> None:
            if var not in types:
                return
            known = attrs_of(var)
            c = types[var]
            if c.type != ANY_TYPE and c.type not in schema:
                return  # already warned; no events of that type, nothing to check against
            if attr not in known and attr not in BUILTIN_FIELDS:
                raise PatternError(f"unknown attribute `{attr}` on `{var}` (type {c.type})", span,
                                   suggest(attr, known) or (f"known: {', '.join(sorted(known))}" if known else None))

        nodes: list[Node] = list(self.where) + [r.expr for r in self.returns if r.expr is not None]
        for e in nodes:
            for n in e.walk():
                if isinstance(n, (Ref, Agg)):
                    check_ref(n.var, n.attr, n.span)
        if self.aggregate and self.aggregate.var and self.aggregate.attr:
            check_ref(self.aggregate.var, self.aggregate.attr, self.aggregate.span)
        # a key or GROUP BY name is checked against the attributes of the pattern's own types that
        # occur (an attribute only other types have is not one its events carry); with none of
        # them in the data there is nothing to check against (already warned), as for references
        bound = [c for c in self.components() if c.type == ANY_TYPE or c.type in schema]
        own_attrs = all_attrs if any(c.type == ANY_TYPE for c in bound) else \
            set().union(*(schema[c.type] for c in bound)) if bound else set()
        for attr in self.equivalence + (self.aggregate.group_by if self.aggregate else []):
            if bound and attr not in own_attrs and attr not in BUILTIN_FIELDS:
                raise PatternError(f"unknown attribute `{attr}`", self.span, suggest(attr, own_attrs))
        return warnings


def _names(vs: set[str]) -> str:
    return ", ".join(f"`{v}`" for v in sorted(vs))


def iter_components(item: Component | Group) -> Iterator[Component]:
    """Components in pattern order (iterative: no recursion, whatever the nesting)."""
    stack: list[Component | Group] = [item]
    while stack:
        i = stack.pop()
        if isinstance(i, Component):
            yield i
        else:
            stack.extend(reversed(i.items))


def check_group_depth(root: Component | Group) -> None:
    """PatternError when groups nest deeper than MAX_NESTING (the root is level 1); iterative."""
    stack: list[tuple[Component | Group, int]] = [(root, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Component):
            continue
        if depth > MAX_NESTING:
            raise PatternError(f"nesting deeper than {MAX_NESTING} levels", item.span,
                               "operators SEQ/AND/OR may nest at most that deep")
        stack.extend((i, depth + 1) for i in reversed(item.items))


def alternative_count(item: Component | Group, cap: int = MAX_ALTERNATIVES) -> int:
    """How many SEQ/AND alternatives rewriting ``?``, ``*`` and OR gives (as
    :func:`engine.alternatives.expand` counts them: ``?``/``*`` two, OR the sum, SEQ/AND the
    product), saturated at ``cap + 1``; computed bottom-up without recursion."""
    values: list[int] = []
    stack: list[tuple[Component | Group, bool]] = [(item, False)]
    while stack:
        i, done = stack.pop()
        if isinstance(i, Component):
            values.append(2 if (i.optional and not i.negated) else 1)
            continue
        if not done:
            stack.append((i, True))
            stack.extend((c, False) for c in reversed(i.items))
            continue
        k = len(i.items)
        kids = values[len(values) - k:] if k else []
        del values[len(values) - k:]
        if i.op == "OR":
            n = sum(kids)
        else:
            n = 1
            for v in kids:
                n = min(n * v, cap + 1)
        values.append(min(n, cap + 1))
    return values[-1]


def _check_group(g: Group, has_window: bool, top: bool) -> None:
    """Structural checks. ``top``: the root, or an alternative of a top-level OR; only
    there may a SEQ hold negations (between two positive components, or trailing with WITHIN)."""
    if not g.items:
        raise PatternError(f"empty {g.op}()", g.span)
    for k, i in enumerate(g.items):
        if not (isinstance(i, Component) and i.negated):
            continue
        shown = f"`!{i.type} {i.var}`"
        if g.op != "SEQ":
            raise PatternError(f"negation {shown} inside {g.op}(...) is not supported", i.span,
                               "negation must be an element of a SEQ, between two positive components")
        if not top:
            raise PatternError(f"negation {shown} inside a nested SEQ is not supported", i.span,
                               "put the negation in the outermost SEQ")
        if not any(_has_required(b) for b in g.items[:k]):
            raise PatternError(f"negation {shown} at the start of the pattern", i.span,
                               "a leading negation has no event to anchor it; move it after a positive component")
        if not any(_has_required(a) for a in g.items[k + 1:]) and not has_window:
            raise PatternError(f"trailing negation {shown} needs WITHIN", i.span,
                               "add e.g. `WITHIN 1 hour`: the match is reported when the window closes")
    for i in g.items:
        if isinstance(i, Group):
            _check_group(i, has_window, top=top and g.op == "OR")


def _check_selection(p: "Pattern") -> None:
    """earliest / maximal select among all matches (match-windows §3.5), per start event."""
    sel = p.selection.value
    if p.strategy is not Strategy.ANY:
        raise PatternError(f"`{sel}` selects among all matches (skip_till_any_match), not {p.strategy.value}",
                           p.span, "drop the strategy or the selection")
    if p.output != "ALL" or p.aggregate is not None:
        raise PatternError(f"`{sel}` cannot be combined with OUTPUT NON_OVERLAP or AGG", p.span)
    for c in iter_components(p.root):
        if c.optional and not c.negated:
            raise PatternError(f"`{sel}` needs every component to be bound: `{c.var}` is optional", c.span,
                               "use `+` instead of `*`, or drop `?`")
    stack: list[Component | Group] = [p.root]
    while stack:
        g = stack.pop()
        if isinstance(g, Group):
            if g.op == "OR":
                raise PatternError(f"`{sel}` is defined for SEQ/AND patterns, not OR(...)", g.span)
            stack.extend(g.items)


def _has_required(item: Component | Group) -> bool:
    if isinstance(item, Component):
        return not item.negated and not item.optional
    if item.op == "OR":
        return all(_has_required(i) for i in item.items)
    return any(_has_required(i) for i in item.items)


def conjuncts_of(e: Node) -> list[Node]:
    """Split a top-level AND into its conjuncts."""
    if isinstance(e, BoolOp) and e.op == "AND":
        out: list[Node] = []
        for i in e.items:
            out.extend(conjuncts_of(i))
        return out
    return [e]


__all__ = [
    "ANY_TYPE", "Aggregate", "Component", "Group", "Item", "Pattern", "PatternError", "ReturnItem",
    "Selection", "Strategy", "Window", "conjuncts_of", "iter_components", "suggest", "alternative_count",
    "MAX_NESTING", "MAX_NUMBER", "MAX_COMPONENTS", "MAX_ALTERNATIVES", "MAX_PATTERN_LENGTH", "MAX_PREDICATES",
    "MAX_EXPRESSION_NODES",
]
