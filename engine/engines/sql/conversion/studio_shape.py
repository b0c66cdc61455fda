"""Which studio patterns have an exact MATCH_RECOGNIZE form, and their parts.

A studio pattern converts when it is a sequence of components (nested SEQs flattened) under
strict or partition contiguity, and every match is fixed by its first event: then the studio's
"every match" (OUTPUT ALL) is MATCH_RECOGNIZE's one preferred match per starting row (AFTER MATCH
SKIP TO NEXT ROW), and OUTPUT NON_OVERLAP is AFTER MATCH SKIP PAST LAST ROW. A match is fixed by
its first event when, wherever the pattern offers a choice (continue a Kleene component, take an
optional one, or go on), the candidates exclude each other on the next row: they have different
event types, or one's condition is the negation of the other's (a Kleene whose next component's
condition is the complement of its continuation). Under contiguity the next row is forced, so one
choice at most succeeds, and MATCH_RECOGNIZE's backtracking finds the same one."""
from __future__ import annotations

from dataclasses import dataclass

from engine.expr import Agg, BinOp, BoolOp, Cmp, Len, Neg, Node, Not, Ref, variables
from engine.model import ANY_TYPE, Component, Group, Pattern, Selection, Strategy, conjuncts_of
from engine.engines.sql.conversion.refusals import MATCH_RECOGNIZE, at_span, placed, refuse

NEGATED_OPERATOR = {"=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


@dataclass
class Shape:
    """A convertible pattern's parts: the components in order, and each WHERE conjunct with the
    component whose DEFINE holds it (the latest component it mentions)."""

    components: list[Component]
    placed: list[tuple[Node, str]]


def flatten(group: Group) -> list[Component]:
    """The components of nested SEQs in order; AND, OR and negation are refused by name."""
    out: list[Component] = []
    stack: list[Component | Group] = [group]
    while stack:
        item = stack.pop()
        if isinstance(item, Component):
            if item.negated:
                raise refuse(f"negation `!{item.type} {item.var}`", MATCH_RECOGNIZE,
                             "a row pattern states which rows match, not which are absent",
                             _where(f"component `{item.var}`", item.span),
                             "a DEFINE can exclude rows only on the row itself")
            out.append(item)
            continue
        if item.op != "SEQ":
            raise refuse(f"{item.op}(...)", MATCH_RECOGNIZE,
                         "AND matches its parts in any order and OR reports every alternative that matches, "
                         "where MATCH_RECOGNIZE keeps one preferred match per starting row",
                         at_span(item.span), hint="PERMUTE and | pick one ordering or branch, which is not the same set of matches")
        stack.extend(reversed(item.items))
    return out


def analyse(pattern: Pattern) -> Shape:
    """The pattern's shape, or a ConversionError naming the first construct without an exact form."""
    if pattern.strategy in (Strategy.NEXT, Strategy.ANY):
        raise refuse(pattern.strategy.value, MATCH_RECOGNIZE,
                     "MATCH_RECOGNIZE labels consecutive rows of a partition and cannot skip a row inside a match",
                     hint="use strict_contiguity, or partition_contiguity with [attr]")
    if pattern.selection is not Selection.ALL:
        raise refuse(f"selection `{pattern.selection.value}`", MATCH_RECOGNIZE,
                     "it selects among the matches of skip_till_any_match")
    if pattern.aggregate is not None:
        raise refuse(f"AGG {pattern.aggregate.func}", MATCH_RECOGNIZE,
                     "A-Seq aggregates count matches without building them; MATCH_RECOGNIZE outputs matches",
                     hint="count the output rows instead")
    if pattern.window is not None and pattern.window.is_count:
        raise refuse("WITHIN n events", MATCH_RECOGNIZE, "WITHIN INTERVAL measures time, not stream positions")
    if pattern.strategy is Strategy.STRICT and pattern.equivalence:
        raise refuse("strict_contiguity with [attr]", MATCH_RECOGNIZE,
                     "adjacent in the whole stream and equal on attr is not a PARTITION BY",
                     hint="partition_contiguity with [attr] is PARTITION BY attr")
    comps = flatten(pattern.root)
    if not comps:
        raise refuse("an empty pattern", MATCH_RECOGNIZE, "there is nothing to match")
    if comps[0].optional:
        raise refuse(f"optional first component `{comps[0].var}`", MATCH_RECOGNIZE,
                     "the studio reports the match with and without it, MATCH_RECOGNIZE one of them per row",
                     _where(f"component `{comps[0].var}`", comps[0].span))
    last = comps[-1]
    if last.quant != "one":
        raise refuse(f"`{last.type}{'+' if last.quant == 'plus' else '*' if last.quant == 'star' else '?'}` "
                     "as the last component", MATCH_RECOGNIZE,
                     "the studio reports a match for every length it can take, MATCH_RECOGNIZE only the "
                     "preferred one", _where(f"component `{last.var}`", last.span),
                     "end the pattern with a single component")
    order = {c.var: k for k, c in enumerate(comps)}
    placed: list[tuple[Node, str]] = []
    for conjunct in pattern.where:
        for part in conjuncts_of(conjunct):
            names = variables(part)
            target = max(names, key=lambda v: order[v]) if names else comps[0].var
            placed.append((part, target))
    shape = Shape(comps, placed)
    _check_choices(shape)
    return shape


def _where(what: str, span: tuple[int, int, int] | None) -> str:
    place = at_span(span)
    return f"{what}, {place}" if place else what


def own_conjuncts(shape: Shape, var: str) -> list[Node]:
    return [e for e, target in shape.placed if target == var]


def _check_choices(shape: Shape) -> None:
    """Every choice point's candidates exclude each other on the next row (see the module)."""
    comps = shape.components
    for k, c in enumerate(comps):
        if c.quant == "one":
            continue
        followers: list[Component] = []
        for d in comps[k + 1:]:
            followers.append(d)
            if not d.optional:
                break
        for d in followers:
            first_ok = c.quant == "plus" or exclusive(shape, c, d, continuation=False)
            if first_ok and (not c.kleene or exclusive(shape, c, d, continuation=True)):
                continue
            what = {"plus": "+", "star": "*", "opt": "?"}[c.quant]
            raise refuse(f"`{c.type}{what} {c.var}` followed by `{d.type} {d.var}` that it does not exclude",
                         MATCH_RECOGNIZE,
                         f"a row could {'continue' if c.kleene else 'be'} `{c.var}` or be `{d.var}`: the studio "
                         "reports both matches, MATCH_RECOGNIZE the preferred one",
                         _where(f"components `{c.var}` and `{d.var}`", d.span),
                         f"give them different event types, or give `{d.var}` a condition that negates one of "
                         f"`{c.var}`'s (e.g. `{c.var}[i].price > {c.var}[i-1].price` and "
                         f"`{d.var}.price <= {c.var}[last].price`)")


def exclusive(shape: Shape, kleene: Component, other: Component, continuation: bool) -> bool:
    """No row can be both an element of ``kleene`` (its first one, or with ``continuation`` a
    later one) and ``other``, after the same history."""
    if kleene.type != ANY_TYPE and other.type != ANY_TYPE and kleene.type != other.type:
        return True
    mine = [_as_candidate(e, kleene.var, other.var, continuation) for e in own_conjuncts(shape, kleene.var)]
    theirs = own_conjuncts(shape, other.var)
    for e in mine:
        if e is None or not isinstance(e, Cmp):
            continue
        flipped = Cmp(op=NEGATED_OPERATOR[e.op], left=e.left, right=e.right)
        for t in theirs:
            if t == flipped or (isinstance(t, Not) and t.item == e):
                return True
    return False


def _as_candidate(e: Node, var: str, other: str, continuation: bool) -> Node | None:
    """A conjunct of ``var`` rewritten for a row taken as ``other`` instead: the element being
    added (unindexed ``var.x``, and with ``continuation`` ``var[i]``) becomes ``other``, the one
    before it (``var[i-1]``) ``var[last]``; None when the conjunct looks at anything else of
    ``var`` (``var[i]`` holds vacuously on a first element, so it excludes nothing there)."""
    def walk(n: Node) -> Node | None:
        if isinstance(n, Ref):
            if n.var != var:
                return n
            if n.index is None:
                return Ref(var=other, attr=n.attr)
            if continuation and n.index == "i":
                return Ref(var=other, attr=n.attr)
            if continuation and n.index == "i-1":
                return Ref(var=var, attr=n.attr, index="last")
            if continuation and n.index == "1":
                return n
            return None
        if isinstance(n, (Len, Agg)):
            return None if n.var == var else n
        if isinstance(n, Cmp):
            left, right = walk(n.left), walk(n.right)
            return None if left is None or right is None else Cmp(op=n.op, left=left, right=right)
        if isinstance(n, BinOp):
            left, right = walk(n.left), walk(n.right)
            return None if left is None or right is None else BinOp(op=n.op, left=left, right=right)
        if isinstance(n, BoolOp):
            items = [walk(i) for i in n.items]
            return None if any(i is None for i in items) else BoolOp(op=n.op, items=items)  # type: ignore[arg-type]
        if isinstance(n, (Not, Neg)):
            item = walk(n.item)
            return None if item is None else type(n)(item=item)
        return n

    return walk(e)
