"""Tests of engine/engines/windows/beta.py: β_e compiled for one pattern, the gate and the prefilter.

- ``compile_beta`` on hand-written specs of each shape (one type constant, one type with a property,
  one type hashed on an attribute or on a built-in field, several types mixing constants and
  functions, ``ANY`` variables constant or not), the event's value unhashable included;
- the same against a reference written here (bit v set iff the event's type is v's or ``ANY`` and it
  satisfies v's properties) on random variable sets and events;
- ``compile_gate``: the kept events get ``kept(e, β_e)``, the others ``[]`` and are counted;
- ``compile_prefilter``: keeps every event with β_e != 0, in order; None with an ``ANY`` variable.
"""
from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from engine.engines.windows.beta import TypeSpec, compile_beta, compile_gate, compile_prefilter
from engine.events import Event

Var = tuple[str, int, Any, int | None]  # (type, bit, value of the hashed attribute or None, x threshold or None)


def event(type_: str, seq: int = 0, **attrs: Any) -> Event:
    return Event(id=attrs.pop("id", seq), type=type_, ts=float(seq), seq=seq, attrs=attrs)


def props_of(attr: str, value: Any, threshold: int | None) -> Callable[[Event], bool] | None:
    """θ^p of one variable: ``attr = value`` (when value is not None) and ``x > threshold``."""
    if value is None and threshold is None:
        return None

    def props(e: Event) -> bool:
        if value is not None and e.get(attr) != value:
            return False
        return threshold is None or (e.attrs.get("x") or 0) > threshold
    return props


def specs(variables: list[Var], attr: str) -> tuple[dict[str, TypeSpec], TypeSpec | None]:
    """``compile_beta``'s arguments as the pattern analysis builds them: per type, ``attr`` hashed
    when every variable of the type has an equality on it."""
    groups: dict[str, list[Var]] = {}
    for v in variables:
        groups.setdefault(v[0], []).append(v)
    by_type: dict[str, TypeSpec] = {}
    for t, vs in groups.items():
        pairs = [(bit, props_of(attr, value, thr)) for _, bit, value, thr in vs]
        if all(value is not None for _, _, value, _ in vs):
            table: dict[Any, list] = {}
            for (_, bit, value, _), pair in zip(vs, pairs):
                table.setdefault(value, []).append(pair)
            by_type[t] = (attr, table, pairs)
        else:
            by_type[t] = (None, {}, pairs)
    return {t: s for t, s in by_type.items() if t != "ANY"}, by_type.get("ANY")


def reference(variables: list[Var], attr: str, e: Event) -> int:
    b = 0
    for t, bit, value, thr in variables:
        p = props_of(attr, value, thr)
        if t in (e.type, "ANY") and (p is None or p(e)):
            b |= bit
    return b


# ------------------------------------------------------------------ hand-written shapes

def test_one_type_without_properties_is_a_constant() -> None:
    beta = compile_beta({"A": (None, {}, [(1, None), (4, None)])}, None)
    assert beta(event("A")) == 5 and beta(event("B")) == 0


def test_one_type_with_one_property() -> None:
    beta = compile_beta({"A": (None, {}, [(2, lambda e: e.attrs["x"] > 1)])}, None)
    assert beta(event("A", x=2)) == 2 and beta(event("A", x=1)) == 0 and beta(event("B", x=5)) == 0


def test_one_type_with_several_properties_scans_them() -> None:
    beta = compile_beta({"A": (None, {}, [(1, lambda e: e.attrs["x"] > 1), (2, None),
                                          (4, lambda e: e.attrs["x"] < 3)])}, None)
    assert [beta(event("A", x=x)) for x in (0, 2, 5)] == [6, 7, 3]
    assert beta(event("B", x=2)) == 0


def test_one_type_hashed_on_an_attribute() -> None:
    eq1, eq2 = props_of("k", 1, None), props_of("k", 2, 0)
    beta = compile_beta({"A": ("k", {1: [(1, eq1)], 2: [(2, eq2)]}, [(1, eq1), (2, eq2)])}, None)
    assert beta(event("A", k=1)) == 1
    assert beta(event("A", k=2, x=1)) == 2 and beta(event("A", k=2, x=0)) == 0
    assert beta(event("A", k=3)) == 0 and beta(event("A")) == 0
    assert beta(event("B", k=1)) == 0  # the type is tested first
    assert beta(event("A", k=[1])) == 0  # unhashable: every variable tested, none fits


def test_unhashable_value_tests_every_variable() -> None:
    anything = [(1, None), (2, lambda e: isinstance(e.attrs.get("k"), list))]
    beta = compile_beta({"A": ("k", {1: anything[:1]}, anything)}, None)
    assert beta(event("A", k=[1])) == 3
    assert beta(event("A", k=1)) == 1


def test_hashed_on_a_built_in_field() -> None:
    # ``id`` is not an attribute: Event.get falls back to the field (an attribute of that name wins)
    is7 = props_of("id", 7, None)
    beta = compile_beta({"A": ("id", {7: [(1, is7)]}, [(1, is7)])}, None)
    assert beta(event("A", id=7)) == 1 and beta(event("A", id=8)) == 0
    assert beta(event("A", seq=3, id=8, **{"id_": 0})) == 0


def test_several_types_and_any() -> None:
    by_type: dict[str, TypeSpec] = {"A": (None, {}, [(1, None)]),
                                    "B": (None, {}, [(2, lambda e: e.attrs.get("x", 0) > 0)])}
    beta = compile_beta(by_type, None)
    assert [beta(event(t, x=1)) for t in "ABC"] == [1, 2, 0]
    with_any = compile_beta(by_type, (None, {}, [(8, None)]))
    assert [with_any(event(t, x=0)) for t in "ABC"] == [9, 8, 8]
    any_prop = compile_beta(by_type, (None, {}, [(8, lambda e: e.attrs.get("x", 0) > 1)]))
    assert [any_prop(event(t, x=2)) for t in "ABC"] == [9, 10, 8]
    assert [any_prop(event(t, x=1)) for t in "ABC"] == [1, 2, 0]


def test_one_type_and_any_is_not_the_one_type_shortcut() -> None:
    beta = compile_beta({"A": (None, {}, [(1, None)])}, (None, {}, [(2, None)]))
    assert beta(event("A")) == 3 and beta(event("Z")) == 2


# ------------------------------------------------------------------ against the reference

def random_case(seed: int) -> tuple[list[Var], str, list[Event]]:
    rng = random.Random(seed)
    attr = rng.choice(["k", "k", "id"])
    types = ["A", "B", "C", "ANY"][:rng.randint(1, 4)]
    if rng.random() < 0.3:
        types = [t for t in types if t != "ANY"] or ["A"]
    variables: list[Var] = []
    for bit in range(rng.randint(1, 6)):
        t = rng.choice(types)
        value = rng.choice([None, 1, 2, 3]) if rng.random() < 0.5 else rng.choice([1, 2])
        thr = rng.choice([None, None, 0, 1, 2])
        variables.append((t, 1 << bit, value, thr))
    if rng.random() < 0.5:  # every variable hashed
        variables = [(t, bit, value if value is not None else 1, thr) for t, bit, value, thr in variables]
    events = []
    for seq in range(40):
        attrs: dict[str, Any] = {"x": rng.randint(0, 3)}
        k = rng.choice([1, 2, 3, None, [1], True, 2.0])
        if k is not None:
            attrs["k"] = k
        events.append(Event(id=rng.choice([1, 2, 3, seq]), type=rng.choice(["A", "B", "C", "D"]), ts=float(seq),
                            seq=seq, attrs=attrs))
    return variables, attr, events


@pytest.mark.parametrize("seed", range(150))
def test_beta_gate_and_prefilter_against_the_reference(seed: int) -> None:
    variables, attr, events = random_case(seed)
    by_type, any_type = specs(variables, attr)
    if not by_type and any_type is None:
        return
    beta = compile_beta(by_type, any_type)
    want = [reference(variables, attr, e) for e in events]
    assert [beta(e) for e in events] == want

    gate, count = compile_gate(beta, by_type, any_type, lambda e, b: [(e.seq, b)])
    assert [x for e in events for x in gate(e)] == [(e.seq, b) for e, b in zip(events, want) if b]
    assert count() == sum(1 for b in want if not b)

    pre = compile_prefilter(by_type, any_type)
    if any_type is not None:
        assert pre is None
        return
    assert pre is not None
    kept = pre(events)
    assert [e.seq for e in kept] == sorted(e.seq for e in kept)  # in order
    assert {e.seq for e, b in zip(events, want) if b} <= {e.seq for e in kept}
    (only_attr, table, _), *more = by_type.values()
    if not more and only_attr == "k":  # one type hashed on an attribute: the value is a key of the table
        hashable = all(not isinstance(e.attrs.get("k"), list) for e in events)
        assert [e.seq for e in kept] == [e.seq for e in events if not hashable or e.attrs.get("k") in table]
    else:  # the event's type is a variable's
        assert [e.seq for e in kept] == [e.seq for e in events if e.type in by_type]


# ------------------------------------------------------------------ gate and prefilter by hand

def test_gate_counts_the_filtered_events() -> None:
    eq1 = props_of("k", 1, None)
    by_type: dict[str, TypeSpec] = {"A": ("k", {1: [(1, eq1)]}, [(1, eq1)])}
    beta = compile_beta(by_type, None)
    gate, count = compile_gate(beta, by_type, None, lambda e, b: [e.id])
    out = [gate(e) for e in (event("A", 0, k=1), event("A", 1, k=2), event("B", 2, k=1),
                             event("A", 3, k=[1]), event("A", 4, k=1))]
    assert out == [[0], [], [], [], [4]]
    assert count() == 3


def test_prefilter_hashed_keeps_keys_of_the_table() -> None:
    eq1 = props_of("k", 1, None)
    pre = compile_prefilter({"A": ("k", {1: [(1, eq1)]}, [(1, eq1)])}, None)
    assert pre is not None
    events = [event("A", 0, k=1), event("A", 1, k=2), event("B", 2, k=1), event("A", 3)]
    # a necessary condition on the attribute only: the B event with k = 1 is kept (the gate decides)
    assert [e.seq for e in pre(events)] == [0, 2]
    batch = events + [event("A", 4, k=[1])]
    assert pre(batch) == batch  # an unhashable value: the whole batch


def test_prefilter_by_type() -> None:
    pre = compile_prefilter({"A": (None, {}, [(1, None)]), "C": (None, {}, [(2, None)])}, None)
    assert pre is not None
    events = [event(t, i) for i, t in enumerate("ABCAD")]
    assert [e.seq for e in pre(events)] == [0, 2, 3]
    assert compile_prefilter({"A": (None, {}, [(1, None)])}, (None, {}, [(2, None)])) is None


def test_gate_lets_beta_decide_an_unhashable_value() -> None:
    anything = [(1, None), (2, lambda e: isinstance(e.attrs.get("k"), list))]
    by_type: dict[str, TypeSpec] = {"A": ("k", {1: anything[:1]}, anything)}
    gate, count = compile_gate(compile_beta(by_type, None), by_type, None, lambda e, b: [b])
    assert gate(event("A", k=[1])) == [3] and gate(event("A", k=5)) == [] and count() == 1
