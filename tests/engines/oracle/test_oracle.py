"""The brute-force oracle (engine/engines/oracle/oracle.py) on hand-checked cases.

Every expectation below is derived by hand from the semantics (DESIGN.md, the oracle's
docstring) or taken from the papers' worked examples (shared/papers/*.md), never copied
from the oracle's own output.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import sample_streams
from engine.dsl import parse
from engine.events import make_stream
from engine.match import Stats, run_all
from engine.model import Strategy
from engine.engines.oracle.oracle import OracleMatcher, OracleTooLarge, OracleUnsupported, run
from tests.queries import paper_queries as Q
from tests.strategies import small_patterns, small_streams

# --------------------------------------------------------------------------- helpers


def stream(*specs, **common):
    """Events from ``(type, ts, attrs...)`` tuples; ids are 1, 2, ... in input order."""
    rows = []
    for i, spec in enumerate(specs):
        typ, ts, *rest = spec
        row = {"id": i + 1, "type": typ, "ts": ts, **common}
        for extra in rest:
            row.update(extra)
        rows.append(row)
    return make_stream(rows)


def found(ms) -> list[dict[str, tuple]]:
    """Matches as {var: ids} dicts, sorted for order-free comparison."""
    return sorted((dict(m.bindings) for m in ms), key=repr)


def expect(*bindings: dict[str, tuple]) -> list[dict[str, tuple]]:
    return sorted(bindings, key=repr)


def P(text: str):
    return parse(text)


# --------------------------------------------------------------------------- SASE+ Q3, any match


# The 18 matches ending at e6 (papers/sase-nfab.md §6.3), as a-index tuples.
Q3_AT_E6 = [(1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (1, 2, 3, 4, 5), (1, 2, 3, 5), (1, 2, 4), (1, 2, 4, 5), (1, 2, 5),
            (1, 3), (1, 3, 4), (1, 3, 4, 5), (1, 3, 5), (1, 4), (1, 4, 5), (1, 5), (3,), (3, 4)]


@pytest.fixture(scope="module")
def q3_any():
    s = sample_streams.load("stocks_sase")
    pattern = parse(s.presets["stock_trend_any"])
    assert pattern.strategy is Strategy.ANY
    return run(pattern, sample_streams.events("stocks_sase"))


def test_sase_q3_any_match_count(q3_any) -> None:
    assert len(q3_any) == 68
    ends = [m.ids("b") for m in q3_any]
    assert ends.count((6,)) == 18
    assert ends.count((8,)) == 50
    assert set(ends) == {(6,), (8,)}  # e7's volume 950 needs a last volume above 1187.5


def test_sase_q3_any_match_the_18_at_e6(q3_any) -> None:
    at_e6 = sorted(m.ids("a") for m in q3_any if m.ids("b") == (6,))
    assert at_e6 == sorted(Q3_AT_E6)


def test_sase_q3_any_match_examples(q3_any) -> None:
    got = {(m.ids("a"), m.ids("b")) for m in q3_any}
    assert ((1, 2, 3, 4, 5), (8,)) in got  # skips the valid b candidate e6
    assert ((3,), (8,)) in got
    assert ((1, 2, 3, 4, 5, 6, 7), (8,)) in got  # R3 of skip_till_next_match
    assert ((2,), (6,)) not in got  # a[1].volume 990 is not > 1000
    assert ((3, 5), (6,)) not in got  # 120 > avg(120) fails
    assert ((1, 6), (8,)) not in got  # a[last] = e6: 700 < 0.8 * 750 fails
    # canonical order: by the event completing the match
    assert [m.ids("b") for m in q3_any] == [(6,)] * 18 + [(8,)] * 50
    first = q3_any[0]
    assert (first.start, first.end, first.start_seq, first.end_seq) == (1, 6, 0, 5)


def test_sase_q3_next_match_is_refused() -> None:
    with pytest.raises(OracleUnsupported) as exc:
        run(parse(Q.SASE_Q3), sample_streams.events("stocks_sase"))
    assert "skip_till_next_match" in str(exc.value)


# --------------------------------------------------------------------------- SASE+ Q2 (§6.8)


def test_sase_q2_contamination() -> None:
    rows = [
        {"id": "A1", "event": "Alert", "ts": 0, "type": "contaminated", "site": "X"},
        {"id": "S1", "event": "Shipment", "ts": 600, "from": "X", "to": "Y"},
        {"id": "S2", "event": "Shipment", "ts": 1200, "from": "Y", "to": "Z"},
        {"id": "S3", "event": "Shipment", "ts": 1800, "from": "X", "to": "W"},
        {"id": "S4", "event": "Shipment", "ts": 2400, "from": "Z", "to": "V"},
    ]
    events = make_stream(rows, type_key="event")
    pattern = parse(Q.SASE_Q2)
    assert found(run(pattern, events)) == expect(
        {"a": ("A1",), "b": ("S1",)},
        {"a": ("A1",), "b": ("S1", "S2")},
        {"a": ("A1",), "b": ("S3",)},
        {"a": ("A1",), "b": ("S1", "S2", "S4")},
    )
    # a non-contaminated alert starts nothing
    rows[0] = {**rows[0], "type": "clean"}
    assert run(pattern, make_stream(rows, type_key="event")) == []


# --------------------------------------------------------------------------- SASE+ Q1 negation (§6.9)


def test_sase_q1_negation_any_match() -> None:
    events = stream(("Shelf", 1, {"tag_id": 7}), ("Shelf", 2, {"tag_id": 8}), ("Register", 3, {"tag_id": 7}),
                    ("Exit", 4, {"tag_id": 7}), ("Exit", 5, {"tag_id": 8}))
    q1 = parse(Q.SASE_Q1).model_copy(update={"strategy": Strategy.ANY})
    assert found(run(q1, events)) == expect({"a": (2,), "c": (5,)})
    # without the negation, both pairs match
    no_neg = P("PATTERN SEQ(Shelf a, Exit c) WHERE a.tag_id = c.tag_id WITHIN 12 hours")
    assert found(run(no_neg, events)) == expect({"a": (1,), "c": (4,)}, {"a": (2,), "c": (5,)})


# --------------------------------------------------------------------------- chemo (match windows)


def test_chemo_preset_ten_matches() -> None:
    pattern = parse(sample_streams.load("chemo").presets["chemo_cycle"])
    ms = run(pattern, sample_streams.events("chemo"))
    # papers/match-windows.md §5.3, re-derived: patient 1 c=e1, p an increasing subset of
    # (e3 111.5, e9 116.5, e10 88), b=e11 (e14 is 19 days after e1); patient 2 c=e7,
    # p in {e5}, {e8}, {e5, e8} (88 < 98), b in {e12, e13}.
    assert found(ms) == expect(
        {"c": (1,), "p": (3,), "b": (11,)},
        {"c": (1,), "p": (9,), "b": (11,)},
        {"c": (1,), "p": (10,), "b": (11,)},
        {"c": (1,), "p": (3, 9), "b": (11,)},
        {"c": (7,), "p": (5,), "b": (12,)},
        {"c": (7,), "p": (5,), "b": (13,)},
        {"c": (7,), "p": (8,), "b": (12,)},
        {"c": (7,), "p": (8,), "b": (13,)},
        {"c": (7,), "p": (5, 8), "b": (12,)},
        {"c": (7,), "p": (5, 8), "b": (13,)},
    )


# --------------------------------------------------------------------------- operators


def test_and_any_order() -> None:
    events = stream(("A", 1), ("B", 2), ("A", 3))
    assert found(run(P("PATTERN AND(A a, B b)"), events)) == expect({"a": (1,), "b": (2,)}, {"a": (3,), "b": (2,)})


def test_and_distinct_events() -> None:
    events = stream(("A", 1), ("A", 2))
    assert found(run(P("PATTERN AND(A a, A b)"), events)) == expect({"a": (1,), "b": (2,)}, {"a": (2,), "b": (1,)})
    assert run(P("PATTERN AND(A a, A b)"), stream(("A", 1))) == []


def test_and_group_inside_seq() -> None:
    events = stream(("B", 1), ("A", 2), ("C", 3), ("A", 4))
    assert found(run(P("PATTERN SEQ(AND(A a, B b), C c)"), events)) == expect({"a": (2,), "b": (1,), "c": (3,)})


def test_or_absent_branch_binds_nothing() -> None:
    events = stream(("A", 1), ("B", 2))
    assert found(run(P("PATTERN OR(A a, B b)"), events)) == expect({"a": (1,), "b": ()}, {"a": (), "b": (2,)})
    events = stream(("A", 1), ("B", 2), ("C", 3))
    assert found(run(P("PATTERN SEQ(A a, OR(B b, C c))"), events)) == expect(
        {"a": (1,), "b": (2,), "c": ()}, {"a": (1,), "b": (), "c": (3,)})


def test_optional_component() -> None:
    events = stream(("A", 1, {"x": 1}), ("B", 2, {"x": 1}), ("C", 3, {"x": 1}))
    assert found(run(P("PATTERN SEQ(A a, B? b, C c)"), events)) == expect(
        {"a": (1,), "b": (), "c": (3,)}, {"a": (1,), "b": (2,), "c": (3,)})
    # a predicate on an absent variable holds vacuously
    assert found(run(P("PATTERN SEQ(A a, B? b, C c) WHERE b.x > 100"), events)) == expect(
        {"a": (1,), "b": (), "c": (3,)})


def test_kleene_star() -> None:
    events = stream(("A", 1), ("B", 2), ("B", 3), ("C", 4))
    assert found(run(P("PATTERN SEQ(A a, B* b[], C c)"), events)) == expect(
        {"a": (1,), "b": (), "c": (4,)}, {"a": (1,), "b": (2,), "c": (4,)},
        {"a": (1,), "b": (3,), "c": (4,)}, {"a": (1,), "b": (2, 3), "c": (4,)})


def test_kleene_plus_predicates() -> None:
    events = stream(("A", 1, {"x": 1}), ("A", 2, {"x": 2}), ("A", 3, {"x": 1}), ("B", 4, {"x": 1}))
    # unindexed a.x: every element
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE a.x = b.x"), events)) == expect(
        {"a": (1,), "b": (4,)}, {"a": (3,), "b": (4,)}, {"a": (1, 3), "b": (4,)})
    # a.len
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE a.len = 2"), events)) == expect(
        {"a": (1, 2), "b": (4,)}, {"a": (1, 3), "b": (4,)}, {"a": (2, 3), "b": (4,)})
    # a[i] against a[i-1]: strictly increasing x
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE a[i].x > a[i-1].x AND a.len >= 2"), events)) == expect(
        {"a": (1, 2), "b": (4,)})
    # a[1] and a[last]: (1, 2, 3) starts and ends with x = 1
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE a[1].x = 2 OR a[last].x = 2"), events)) == expect(
        {"a": (2,), "b": (4,)}, {"a": (1, 2), "b": (4,)}, {"a": (2, 3), "b": (4,)})
    # aggregates over all elements
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE sum(a[].x) = 4"), events)) == expect(
        {"a": (1, 2, 3), "b": (4,)})
    # avg of the elements before a[i]: x = 1, 2 then 1 < avg(1, 2)
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE a[i].x >= avg(a[..i-1].x) AND a.len = 3"), events)) == []
    assert found(run(P("PATTERN SEQ(A+ a[], B b) WHERE a[i].x >= min(a[..i-1].x) AND a.len = 3"), events)) == \
        expect({"a": (1, 2, 3), "b": (4,)})


# --------------------------------------------------------------------------- negation


def test_middle_negation_with_linking_predicate() -> None:
    events = stream(("A", 1, {"x": 1}), ("B", 2, {"x": 2}), ("C", 3), ("B", 4, {"x": 1}), ("C", 5))
    p = P("PATTERN SEQ(A a, !B b, C c) WHERE a.x = b.x")
    # B2 (x=2) does not qualify; B4 (x=1) lies between A1 and C5 and kills that one
    assert found(run(p, events)) == expect({"a": (1,), "c": (3,)})
    # unconstrained negation: any B between kills
    assert found(run(P("PATTERN SEQ(A a, !B b, C c)"), events)) == []


def test_negation_only_strictly_between() -> None:
    events = stream(("A", 1), ("C", 2), ("B", 3))
    assert found(run(P("PATTERN SEQ(A a, !B b, C c)"), events)) == expect({"a": (1,), "c": (2,)})


def test_trailing_negation() -> None:
    p = P("PATTERN SEQ(A a, B b, !C c) WITHIN 10")
    # a C inside the window after the last positive kills the match
    assert run(p, stream(("A", 0), ("B", 2), ("C", 5))) == []
    assert run(p, stream(("A", 0), ("B", 2), ("C", 9.5))) == []
    # one at exactly W after the first event does not
    assert found(run(p, stream(("A", 0), ("B", 2), ("C", 10)))) == expect({"a": (1,), "b": (2,)})
    # a C before the last positive event is not trailing
    assert found(run(p, stream(("A", 0), ("C", 1), ("B", 2)))) == expect({"a": (1,), "b": (3,)})
    # no C at all
    assert found(run(p, stream(("A", 0), ("B", 2)))) == expect({"a": (1,), "b": (2,)})


def test_trailing_negation_with_predicate() -> None:
    p = P("PATTERN SEQ(A a, !C c) WHERE c.x = a.x WITHIN 10")
    events = stream(("A", 0, {"x": 1}), ("A", 1, {"x": 2}), ("C", 3, {"x": 2}))
    assert found(run(p, events)) == expect({"a": (1,)})


def test_trailing_negation_count_window() -> None:
    p = P("PATTERN SEQ(A a, !C c) WITHIN 3 events")
    assert run(p, stream(("A", 0), ("X", 100), ("C", 200))) == []  # seq 2 - 0 < 3
    assert found(run(p, stream(("A", 0), ("X", 100), ("X", 200), ("C", 300)))) == expect({"a": (1,)})  # 3 - 0


# --------------------------------------------------------------------------- windows


def test_count_window() -> None:
    events = stream(("A", 0), ("X", 1000), ("B", 2000), ("X", 3000), ("B", 4000))
    assert found(run(P("PATTERN SEQ(A a, B b) WITHIN 3 events"), events)) == expect({"a": (1,), "b": (3,)})
    assert len(run(P("PATTERN SEQ(A a, B b) WITHIN 5 events"), events)) == 2


@pytest.mark.parametrize("window, inside, outside", [
    ("5", 4.999, 5),
    ("1 min", 59.9, 60),
    ("500 ms", 0.499, 0.5),
    ("2 hours", 7199, 7200),
    ("1 day", 86399, 86400),
])
def test_window_is_strict(window: str, inside: float, outside: float) -> None:
    p = P(f"PATTERN SEQ(A a, B b) WITHIN {window}")
    assert found(run(p, stream(("A", 0), ("B", inside)))) == expect({"a": (1,), "b": (2,)})
    assert run(p, stream(("A", 0), ("B", outside))) == []


def test_window_spans_first_to_last_of_all_components() -> None:
    p = P("PATTERN SEQ(A a, B+ b[], C c) WITHIN 10")
    events = stream(("A", 0), ("B", 5), ("B", 9), ("C", 9.5), ("C", 11))
    assert found(run(p, events)) == expect(
        {"a": (1,), "b": (2,), "c": (4,)}, {"a": (1,), "b": (3,), "c": (4,)}, {"a": (1,), "b": (2, 3), "c": (4,)})


def test_ties_in_ts_are_ordered_by_position() -> None:
    p = P("PATTERN SEQ(A a, B b)")
    assert found(run(p, stream(("A", 1), ("B", 1)))) == expect({"a": (1,), "b": (2,)})
    assert run(p, stream(("B", 1), ("A", 1))) == []
    # a tie has span 0, inside any window
    assert len(run(P("PATTERN SEQ(A a, B b) WITHIN 1 ms"), stream(("A", 1), ("B", 1)))) == 1


# --------------------------------------------------------------------------- equivalence


def test_equivalence_attr() -> None:
    p = P("PATTERN SEQ(A a, B b) WHERE [k]")
    events = stream(("A", 1, {"k": "p"}), ("A", 2, {"k": "q"}), ("B", 3, {"k": "p"}))
    assert found(run(p, events)) == expect({"a": (1,), "b": (3,)})


def test_equivalence_includes_negated_events() -> None:
    p = P("PATTERN SEQ(A a, !B b, C c) WHERE [k]")
    # B2 has another k: it does not qualify, so it does not kill (1, 3)
    events = stream(("A", 1, {"k": "p"}), ("B", 2, {"k": "q"}), ("C", 3, {"k": "p"}))
    assert found(run(p, events)) == expect({"a": (1,), "c": (3,)})
    # B4 has the same k and lies between A1 and C5
    events = stream(("A", 1, {"k": "p"}), ("B", 2, {"k": "q"}), ("C", 3, {"k": "p"}), ("B", 4, {"k": "p"}),
                    ("C", 5, {"k": "p"}), ("C", 6, {"k": "q"}))
    assert found(run(p, events)) == expect({"a": (1,), "c": (3,)})


def test_equivalence_kleene_elements() -> None:
    p = P("PATTERN SEQ(A+ a[], B b) WHERE [k]")
    events = stream(("A", 1, {"k": "p"}), ("A", 2, {"k": "q"}), ("B", 3, {"k": "p"}))
    assert found(run(p, events)) == expect({"a": (1,), "b": (3,)})


# --------------------------------------------------------------------------- OUTPUT NON_OVERLAP


def test_non_overlap() -> None:
    events = stream(("A", 1), ("A", 2), ("B", 3), ("B", 4), ("A", 5), ("B", 6))
    # all matches: (1,3) (2,3) (1,4) (2,4) (1,6) (2,6) (5,6); in completion order the first
    # kept one is (1,3) (ends at B3), then only (5,6) starts after it
    assert len(run(P("PATTERN SEQ(A a, B b)"), events)) == 7
    ms = run(P("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP"), events)
    assert [dict(m.bindings) for m in ms] == [{"a": (1,), "b": (3,)}, {"a": (5,), "b": (6,)}]


def test_non_overlap_is_per_partition() -> None:
    events = stream(("A", 1, {"k": "p"}), ("A", 2, {"k": "q"}), ("B", 3, {"k": "p"}), ("B", 4, {"k": "q"}))
    ms = run(P("PATTERN SEQ(A a, B b) WHERE [k] OUTPUT NON_OVERLAP"), events)
    assert found(ms) == expect({"a": (1,), "b": (3,)}, {"a": (2,), "b": (4,)})
    # an equality a.k = b.k gives the same partition key
    ms = run(P("PATTERN SEQ(A a, B b) WHERE a.k = b.k OUTPUT NON_OVERLAP"), events)
    assert found(ms) == expect({"a": (1,), "b": (3,)}, {"a": (2,), "b": (4,)})
    # without a key all four pairs match; (1,3) completes first and every other one starts before B3
    ms = run(P("PATTERN SEQ(A a, B b) WHERE a.k != 'z' OUTPUT NON_OVERLAP"), events)
    assert found(ms) == expect({"a": (1,), "b": (3,)})


# --------------------------------------------------------------------------- refusals and plumbing


def test_too_many_events_refused() -> None:
    events = stream(*[("A", i) for i in range(5001)])
    with pytest.raises(OracleTooLarge) as exc:
        run(P("PATTERN SEQ(A a, B b)"), events)
    assert "small inputs" in str(exc.value)
    with pytest.raises(OracleTooLarge):
        run(P("PATTERN SEQ(A a)"), stream(("A", 1), ("A", 2), ("A", 3), ("A", 4)), max_events=3)


def test_too_many_combinations_refused() -> None:
    events = stream(*[("A", i) for i in range(20)], ("B", 20))
    with pytest.raises(OracleTooLarge) as exc:
        run(P("PATTERN SEQ(A+ a[], B b)"), events, max_steps=1000)
    assert "1,000" in str(exc.value)


@pytest.mark.parametrize("strategy", ["strict_contiguity", "partition_contiguity", "skip_till_next_match"])
def test_other_strategies_refused(strategy: str) -> None:
    with pytest.raises(OracleUnsupported) as exc:
        run(P(f"PATTERN SEQ(A a, B b) WHERE {strategy}"), stream(("A", 1), ("B", 2)))
    assert strategy in str(exc.value)


def test_match_fields_and_stats() -> None:
    events = stream(("A", 10), ("X", 11), ("B", 12))
    stats = Stats()
    (m,) = run(P("PATTERN SEQ(A a, B b)"), events, stats=stats)
    assert (m.start, m.end, m.start_seq, m.end_seq) == (10, 12, 0, 2)
    assert m.as_dict() == {"a": [1], "b": [3]}
    assert m.to_json() == {"match": {"a": [1], "b": [3]}, "start": 10, "end": 12}
    assert stats.events == 3 and stats.matches == 1


def test_oracle_matcher_interface() -> None:
    events = stream(("A", 1), ("B", 2), ("A", 3), ("B", 4))
    p = P("PATTERN SEQ(A a, B b)")
    om = OracleMatcher(p)
    assert all(list(om.feed(e)) == [] for e in events)  # everything is reported at close()
    assert found(om.close()) == expect({"a": (1,), "b": (2,)}, {"a": (1,), "b": (4,)}, {"a": (3,), "b": (4,)})
    assert found(run_all(OracleMatcher(p), events)) == found(run(p, events))


def test_empty_stream() -> None:
    assert run(P("PATTERN SEQ(A a, B b)"), []) == []


def test_negation_inside_an_alternative_of_a_top_or() -> None:
    p = P("PATTERN OR(SEQ(A a, !B b, C c), D d)")
    assert found(run(p, stream(("A", 1), ("B", 2), ("C", 3), ("D", 4)))) == expect(
        {"a": (), "c": (), "d": (4,)})
    assert found(run(p, stream(("A", 1), ("C", 2), ("D", 3)))) == expect(
        {"a": (1,), "c": (2,), "d": ()}, {"a": (), "c": (), "d": (3,)})


def test_any_type() -> None:
    events = stream(("A", 1), ("B", 2), ("C", 3))
    assert found(run(P("PATTERN SEQ(A a, ANY e)"), events)) == expect({"a": (1,), "e": (2,)}, {"a": (1,), "e": (3,)})
    assert found(run(P("PATTERN SEQ(A a, !ANY n, C c)"), events)) == []
    assert found(run(P("PATTERN SEQ(A a, !ANY n, B b)"), events)) == expect({"a": (1,), "b": (2,)})


def test_constant_predicates() -> None:
    events = stream(("A", 1), ("B", 2))
    assert run(P("PATTERN SEQ(A a, B b) WHERE 1 = 2"), events) == []
    assert len(run(P("PATTERN SEQ(A a, B b) WHERE 80% < 1"), events)) == 1


def test_undefined_values_make_comparisons_false() -> None:
    events = stream(("A", 1, {"x": 4, "z": 0, "s": "text"}))
    for where in ["a.x / a.z > 0", "a.x / a.z != 5", "a.missing + 1 > 0", "a.s > 3", "a.s + 1 = 1"]:
        assert run(P(f"PATTERN SEQ(A a) WHERE {where}"), events) == [], where
    # NOT of a false comparison is true
    assert len(run(P("PATTERN SEQ(A a) WHERE NOT a.x / a.z > 0"), events)) == 1



@pytest.mark.parametrize("where", ["a.x / 0 != 5", "a.x % 0 != 5", "a.x / 0 = a.x / 0"])
def test_constant_zero_divisor_makes_comparison_false(where: str) -> None:
    events = stream(("A", 1, {"x": 4, "z": 0}))
    assert run(P(f"PATTERN SEQ(A a) WHERE {where}"), events) == []



def test_equivalence_uses_value_equality() -> None:
    events = stream(("A", 1, {"k": 1}), ("B", 2, {"k": 1.0}))
    assert len(run(P("PATTERN SEQ(A a, B b) WHERE a.k = b.k"), events)) == 1
    assert len(run(P("PATTERN SEQ(A a, B b) WHERE [k]"), events)) == 1



def test_non_overlap_with_trailing_negation_uses_completion_order() -> None:
    # X = (A1, B4) completes at ts 10 (seen at Z5, ts 12); Y = (A2, B3) completes at ts 15 (Z6, ts 16).
    # X is reported first; Y starts (A2) before X ended (B4), so Y is dropped.
    events = stream(("A", 0, {"x": 1}), ("A", 5, {"x": 2}), ("B", 6, {"x": 2}), ("B", 8, {"x": 1}), ("Z", 12),
                    ("Z", 16))
    p = P("PATTERN SEQ(A a, B b, !C c) WHERE a.x = b.x WITHIN 10")
    assert found(run(p, events)) == expect({"a": (1,), "b": (4,)}, {"a": (2,), "b": (3,)})
    ms = run(p.model_copy(update={"output": "NON_OVERLAP"}), events)
    assert [dict(m.bindings) for m in ms] == [{"a": (1,), "b": (4,)}]


# --------------------------------------------------------------------------- an independent reference


def _reference(p, events) -> set[tuple]:
    """A second, independent enumeration for flat SEQs of single-event components (with
    negations, WITHIN, [attr] and predicates): every increasing tuple of positions."""
    import itertools

    from engine import expr as X

    items = p.root.items
    pos = [c for c in items if not c.negated]
    negs = {c.var for c in items if c.negated}
    w = p.window

    def coord(e):
        return e.seq if w is not None and w.is_count else e.ts

    def holds(e, b) -> bool:
        if any(v not in b for v in X.variables(e)):
            return True
        return bool(X.compile_expr(e, lambda r: (lambda ctx, r=r: ctx[r.var].get(r.attr)))(b))

    def agree(evs) -> bool:
        return all(len({ev.get(a) for ev in evs}) == 1 for a in p.equivalence) if evs else True

    out = set()
    for combo in itertools.combinations(range(len(events)), len(pos)):
        b = {c.var: events[i] for c, i in zip(pos, combo)}
        if not all(c.matches_type(b[c.var].type) for c in pos):
            continue
        first = events[combo[0]]
        if w is not None and not coord(events[combo[-1]]) - coord(first) < w.size:
            continue
        if not all(holds(e, b) for e in p.where if not (X.variables(e) & negs)):
            continue
        if not agree(list(b.values())):
            continue
        killed = False
        k_pos = 0  # index in combo of the next positive item
        for item in items:
            if not item.negated:
                k_pos += 1
                continue
            lo = combo[k_pos - 1]
            if k_pos < len(combo):
                between = range(lo + 1, combo[k_pos])
            else:
                between = [j for j in range(lo + 1, len(events)) if coord(events[j]) - coord(first) < w.size]
            for j in between:
                e = events[j]
                b2 = {**b, item.var: e}
                if item.matches_type(e.type) and all(holds(c, b2) for c in p.where if item.var in X.variables(c)) \
                        and agree(list(b.values()) + [e]):
                    killed = True
        if not killed:
            out.add(tuple((c.var, (b[c.var].id,)) for c in pos))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_patterns(kleene=False, optional=False, groups=False, any_type=True), small_streams())
def test_oracle_agrees_with_independent_reference(p, events) -> None:
    got = {m.bindings for m in run(p, events)}
    assert got == _reference(p, events)
