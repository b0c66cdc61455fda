"""β_e compiled for one pattern: the bit vector of the variables whose properties an event
satisfies (match-windows paper §4.5), as one specialised function.

Algorithm 1 computes β_e for every input event, and most events of a selective pattern
satisfy no variable (Thm 1 drops them), so this is the per-event cost of the whole
pre-processing. ``analysis._TypeIndex`` states θ^p_v per event type (the equality
properties on a common attribute hashed); this module turns those indexes into the fewest
Python calls per event:

- one event type and no ``ANY`` variable: a single function that tests the type, looks
  the hashed attribute's value up and returns at once when it fits no variable;
- every variable of a type without properties: a constant per type (``type -> bits``);
- otherwise a dispatch on the type, then the type's function.

The result equals ``WindowPlan.bits`` (the reference) for every event; a property test
checks it (tests/engines/windows/test_properties.py).
"""
from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter
from typing import Any, Callable, Sequence, Union

from engine.events import BUILTIN_FIELDS, Event

__all__ = ["compile_beta", "compile_gate", "compile_prefilter", "TypeSpec", "Beta", "Gate", "Prefilter"]

Props = Union[Callable[[Event], bool], None]
#: One event type's variables: the hashed attribute (or None), value -> [(bit, θ^p_v)], and all [(bit, θ^p_v)].
TypeSpec = tuple[Union[str, None], dict[Any, list[tuple[int, Props]]], Sequence[tuple[int, Props]]]
Beta = Callable[[Event], int]


#: ``gate(e)``: the kept event's result, or [] for a filtered one; ``count()``: events filtered so far.
Gate = tuple[Callable[[Event], list[Any]], Callable[[], int]]


def compile_gate(beta: Beta, by_type: dict[str, TypeSpec], any_type: TypeSpec | None,
                 kept: Callable[[Event, int], list[Any]]) -> Gate:
    """Algorithm 1's first step as one call per event: ``gate(e)`` drops an event that fits
    no variable (Thm 1) and counts it, else returns ``kept(e, β_e)``.

    A cheap necessary condition runs first: the event's type is one of the variables'
    types and, for one type with a hashed attribute, the attribute's value is a key of the
    hash table; only then is β_e computed (exactly, by ``beta``). Without ``ANY`` variables
    a filtered event costs a type test and a dictionary lookup inside one call."""
    n = 0

    def count() -> int:
        return n

    specs = list(by_type.values())
    if any_type is not None:
        def gate(e: Event) -> list[Any]:
            nonlocal n
            b = beta(e)
            if b:
                return kept(e, b)
            n += 1
            return []
    elif len(specs) == 1 and specs[0][0] is not None and specs[0][0] not in BUILTIN_FIELDS:
        (only, (attr, table, _pairs)), = by_type.items()

        def gate(e: Event) -> list[Any]:
            nonlocal n
            if e.type == only:
                try:
                    hit = e.attrs.get(attr) in table
                except TypeError:  # an unhashable value: β_e decides
                    hit = True
                if hit:
                    b = beta(e)
                    if b:
                        return kept(e, b)
            n += 1
            return []
    else:
        types = frozenset(by_type)

        def gate(e: Event) -> list[Any]:
            nonlocal n
            if e.type in types:
                b = beta(e)
                if b:
                    return kept(e, b)
            n += 1
            return []
    return gate, count


#: The events of a batch that may fit a variable, in order (all the others fit none).
Prefilter = Callable[[Sequence[Event]], list[Event]]
_TYPE = attrgetter("type")
_ATTRS = attrgetter("attrs")


def compile_prefilter(by_type: dict[str, TypeSpec], any_type: TypeSpec | None) -> Prefilter | None:
    """A necessary condition of β_e != 0 for a whole batch, evaluated by C-level iteration
    (``map``, ``compress``: no Python code per event): for one event type with a hashed
    attribute, the attribute's value is a key of the hash table; else the event's type is
    one of the variables' types. None with an ``ANY`` variable (every event may fit). The
    events it keeps still go through the gate, which decides exactly."""
    if any_type is not None:
        return None
    specs = list(by_type.values())
    if len(specs) == 1 and specs[0][0] is not None and specs[0][0] not in BUILTIN_FIELDS:
        attr, table, _pairs = specs[0]
        has = table.__contains__

        def hashed(events: Sequence[Event]) -> list[Event]:
            try:
                return list(compress(events, map(has, map(dict.get, map(_ATTRS, events), repeat(attr)))))
            except TypeError:  # an unhashable value somewhere: keep the whole batch
                return list(events)
        return hashed
    types = frozenset(by_type)

    def typed(events: Sequence[Event]) -> list[Event]:
        return list(compress(events, map(types.__contains__, map(_TYPE, events))))
    return typed


def _scan(pairs: Sequence[tuple[int, Props]]) -> Beta:
    def beta(e: Event) -> int:
        b = 0
        for bit, props in pairs:
            if props is None or props(e):
                b |= bit
        return b
    return beta


def _plain(pairs: Sequence[tuple[int, Props]]) -> Beta | int:
    """A type without a hashed attribute: a constant when no variable has properties."""
    if all(p is None for _, p in pairs):
        return sum({bit for bit, _ in pairs})
    if len(pairs) == 1:
        bit, props = pairs[0]
        assert props is not None
        return lambda e: bit if props(e) else 0
    return _scan(pairs)


def _hashed(attr: str, table: dict[Any, list[tuple[int, Props]]], pairs: Sequence[tuple[int, Props]],
            only_type: str | None) -> Beta:
    """Look ``attr``'s value up in ``table`` (value -> candidate variables); an unhashable
    value tests every variable. With ``only_type`` the event's type is tested first."""
    builtin = attr in BUILTIN_FIELDS  # Event.get falls back to the built-in fields for these names

    def beta(e: Event) -> int:
        if only_type is not None and e.type != only_type:
            return 0
        v = e.get(attr) if builtin else e.attrs.get(attr)
        try:
            cands = table.get(v)
        except TypeError:
            cands = pairs  # type: ignore[assignment]
        if not cands:
            return 0
        b = 0
        for bit, props in cands:
            if props is None or props(e):
                b |= bit
        return b
    return beta


def _for_type(spec: TypeSpec, only_type: str | None = None) -> Beta | int:
    attr, table, pairs = spec
    if attr is not None:
        return _hashed(attr, table, pairs, only_type)
    return _plain(pairs)


def compile_beta(by_type: dict[str, TypeSpec], any_type: TypeSpec | None) -> Beta:
    """β_e for the variables of ``by_type`` (per event type) and ``any_type`` (``ANY``)."""
    if any_type is None and len(by_type) == 1:
        (only, spec), = by_type.items()
        if spec[0] is not None:
            f = _for_type(spec, only)
            assert callable(f)
            return f
        g = _for_type(spec)
        if isinstance(g, int):
            const = g
            return lambda e: const if e.type == only else 0
        fn = g
        return lambda e: fn(e) if e.type == only else 0
    consts: dict[str, int] = {}
    fns: dict[str, Beta] = {}
    for t, spec in by_type.items():
        f = _for_type(spec)
        if isinstance(f, int):
            consts[t] = f
        else:
            fns[t] = f
    anyf = _for_type(any_type) if any_type is not None else 0

    def beta(e: Event) -> int:
        t = e.type
        b = consts.get(t)
        if b is None:
            f = fns.get(t)
            b = f(e) if f is not None else 0
        if anyf:
            b |= anyf if isinstance(anyf, int) else anyf(e)
        return b
    return beta
