"""What both ``cep explain`` answers share (engine/explain/common.py): ``ExplainError``, the
engine run as ``cep run`` makes it (``engine_run``), the pattern's alternatives, positive and
negated types, the partition of an event, NFA^b state names (``Naming``, with the ``alt<k>:``
prefix of a pattern of several alternatives) and JSON-safe values."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.dsl import parse
from engine.explain.common import (
    EngineRun,
    ExplainError,
    Naming,
    alternatives,
    engine_run,
    fmt_ids,
    ids_of,
    is_negated_type,
    is_positive_type,
    js,
    match_dict,
    negated_types,
    num,
    part_text,
    partitioner,
    positive_types,
)
from engine.match import StateExplosion
from tests.support import stream


def test_explain_error_status() -> None:
    assert ExplainError("bad").status == 2
    err = ExplainError("stopped", status=1)
    assert isinstance(err, ValueError) and str(err) == "stopped" and err.status == 1


# --------------------------------------------------------------------------- the engine's answer


def test_engine_run_reports_what_cep_run_finds() -> None:
    events = stream("a1 b2 a3 c4")
    run = engine_run(parse("PATTERN SEQ(A a, C c)"), events)
    assert isinstance(run, EngineRun) and run.error is None
    assert sorted(m.as_dict()["a"][0] for m in run.matches) == ["a1", "a3"]
    assert run.rates == {"A": 2, "B": 1, "C": 1}  # auto: the data's type counts
    assert (run.engine, run.match_windows, run.inner) == ("auto", "auto", None)


def test_engine_run_with_a_named_engine() -> None:
    run = engine_run(parse("PATTERN SEQ(A a, C c)"), stream("a1 c2"), engine="nfab")
    assert run.name == "nfab" and run.engine == "nfab" and [m.as_dict() for m in run.matches] == \
        [{"a": ["a1"], "c": ["c2"]}]


def test_engine_run_explains_an_aggregate_patterns_matches() -> None:
    run = engine_run(parse("PATTERN SEQ(A a, C c) AGG COUNT"), stream("a1 a2 c3"))
    assert [m.as_dict() for m in run.matches] == [{"a": ["a1"], "c": ["c3"]}, {"a": ["a2"], "c": ["c3"]}]


def test_engine_run_refusal_is_an_explain_error() -> None:
    with pytest.raises(ExplainError) as info:
        engine_run(parse("PATTERN SEQ(A a, C c) WHERE strict_contiguity"), stream("a1 c2"), engine="lazy-chain")
    assert info.value.status == 2
    assert str(info.value).startswith("engine `lazy-chain` cannot run this pattern: implements skip_till_any_match")


def test_a_stopped_engine_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.match

    def explode(matcher: object, events: object) -> list[object]:
        raise StateExplosion("too many runs")

    monkeypatch.setattr(engine.match, "run_all", explode)
    run = engine_run(parse("PATTERN SEQ(A a, C c)"), stream("a1 c2"), engine="nfab")
    assert run.matches == [] and run.error == "stopped: too many runs" and run.name == "nfab"


# --------------------------------------------------------------------------- the pattern's shape


def test_alternatives_rewrite_or_and_optional() -> None:
    alts = alternatives(parse("PATTERN SEQ(A a, OR(B b, C c), D? d)"))
    assert [(a.vars, set(a.absent)) for a in alts] == [
        (["a", "b"], {"c", "d"}), (["a", "b", "d"], {"c"}), (["a", "c"], {"b", "d"}), (["a", "c", "d"], {"b"})]
    assert all(a.tree.op == "SEQ" and a.top == a.tree.items for a in alts)


def test_alternatives_leave_negated_components_out_of_comps_but_in_top() -> None:
    (alt,) = alternatives(parse("PATTERN SEQ(A a, !B b, C c) WITHIN 5"))
    assert alt.vars == ["a", "c"] and [c.var for c in alt.top] == ["a", "b", "c"] and alt.absent == frozenset()


def test_positive_and_negated_types() -> None:
    p = parse("PATTERN SEQ(A a, !B b, C c) WITHIN 5")
    assert positive_types(p) == ({"A", "C"}, False) and negated_types(p) == ({"B"}, False)
    assert is_positive_type(p, "A") and not is_positive_type(p, "B")
    assert is_negated_type(p, "B") and not is_negated_type(p, "A")
    q = parse("PATTERN SEQ(ANY a, !ANY b, C c) WITHIN 5")
    assert positive_types(q) == ({"ANY", "C"}, True) and negated_types(q) == ({"ANY"}, True)
    assert is_positive_type(q, "Z") and is_negated_type(q, "Z")


def test_partitioner() -> None:
    events = stream("a1 c2", a1={"k": 7, "j": 1}, c2={"k": 7})
    part = partitioner(parse("PATTERN SEQ(A a, C c) WHERE [k]"))
    assert part(events[0]) == (7,) and part.columns == ["k"] and part_text(part, events[0]) == "k=7"
    both = partitioner(parse("PATTERN SEQ(A a, C c) WHERE [k, j]"))
    assert both.columns == ["j", "k"]  # in name order
    assert part_text(both, events[0]) == "j=1, k=7" and part_text(both, events[1]) == "j=None, k=7"
    other = stream("b1", b1={"k": 3})[0]
    assert part(other) == (3,)  # a type the pattern does not name: the attributes every type uses
    assert partitioner(parse("PATTERN SEQ(A a, C c)")) is None
    assert partitioner(parse("PATTERN SEQ(A a, C c) WHERE strict_contiguity AND [k]")) is None


def test_part_text_without_matching_columns() -> None:
    def part(e: object) -> tuple[int, int]:
        return (1, 2)

    assert part_text(part, None) == "1, 2"  # no column names: the values alone


# --------------------------------------------------------------------------- state names


def test_naming_of_a_single_alternative() -> None:
    n = Naming(parse("PATTERN SEQ(A a, B+ b[], C c)"), ["a", "b", "c"], {"b"})
    assert n.prefix == ""
    assert (n.start("a"), n.start("b"), n.rest("b")) == ("a", "b[1]", "b[i]")
    assert (n.after("a"), n.after("b"), n.after("c"), n.final) == ("b[1]", "c", "F", "F")


def test_naming_prefixes_the_alternative_of_the_order() -> None:
    p = parse("PATTERN SEQ(A a, OR(B b, C c), D? d)")
    assert Naming(p, ["a", "c"], set()).final == "alt2:F"
    assert Naming(p, ["a", "c", "d"], set()).start("d") == "alt3:d"
    assert Naming(p, ["a", "b"], set()).prefix == "alt0:"
    assert Naming(p, ["x"], set()).prefix == ""  # no such alternative


def test_naming_of_a_pattern_nfab_refuses_has_no_prefix() -> None:
    p = parse("PATTERN SEQ(A a, OR(B+ b[], C c)) WHERE b[i].x > b.y")
    assert Naming(p, ["a", "c"], {"b"}).prefix == ""


# --------------------------------------------------------------------------- values


def test_js() -> None:
    assert [js(v) for v in (None, True, 3, "s", 1.5)] == [None, True, 3, "s", 1.5]
    assert [js(v) for v in (math.nan, math.inf, -math.inf)] == ["nan", "inf", "-inf"]
    assert js(np.int64(4)) == 4 and type(js(np.int64(4))) is int
    assert js(np.bool_(True)) is True
    assert js((1, np.int32(2))) == [1, 2] and js({1: np.int8(3)}) == {"1": 3}
    assert js({1, 2}) == "{1, 2}"  # anything else as text


def test_num() -> None:
    assert [num(v) for v in (6.0, 1 / 3, np.float64(2.0), 5, "x", math.nan)] == ["6", "0.333333", "2", "5", "x",
                                                                                   "nan"]


def test_ids_and_match_dict() -> None:
    events = stream("a1 b2 c3")
    assert ids_of({"a": events[:2]}) == {"a": ["a1", "b2"]}
    assert match_dict(["a", "b", "c"], {"a": events[:1], "c": events[2:]}) == {"a": ["a1"], "b": [], "c": ["c3"]}
    assert fmt_ids({"a": [1, 2], "b": []}) == "a=[1,2] b=[]"
    assert fmt_ids({}) == "(nothing)"
