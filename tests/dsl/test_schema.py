"""The schema check against the source text (engine/dsl/schema.py): :func:`check_schema`
places unknown event types (warnings, one per component in order, each at its own
component), unknown attributes of references, of ``[attr]`` and of ``GROUP BY`` (errors)
at the name in the text with a caret, keeps the model's suggestions, and without a source
gives the model's own warnings and errors."""
from __future__ import annotations

import pytest

from engine.dsl.errors import DslError
from engine.dsl.parser import parse
from engine.dsl.schema import _list_name_span, _located_warning, check_schema
from engine.model import PatternError

SCHEMA = {"A": {"x": "num", "id": "num"}, "B": {"y": "num", "id": "num"}}


def located(src: str, schema: dict[str, dict[str, str]] = SCHEMA) -> list[str]:
    return check_schema(parse(src), schema, src)


def refused(src: str, schema: dict[str, dict[str, str]] = SCHEMA) -> DslError:
    with pytest.raises(DslError) as info:
        check_schema(parse(src), schema, src)
    assert info.value.source == src
    return info.value


def test_a_pattern_that_fits_the_schema_has_no_warnings() -> None:
    assert located("PATTERN SEQ(A a, B b) WHERE a.x > b.y AND [id] AND a.ts > 0") == []


def test_unknown_event_type_warning_points_at_the_type_with_the_suggestion() -> None:
    src = "PATTERN SEQ(A a, Bb b)"
    assert located(src) == [
        "line 1, column 18: event type `Bb` does not occur in the data; did you mean `B`?\n"
        "  PATTERN SEQ(A a, Bb b)\n"
        "                   ^^"
    ]


def test_without_source_the_warnings_are_the_models() -> None:
    p = parse("PATTERN SEQ(A a, Bb b)")
    assert check_schema(p, SCHEMA) == ["event type `Bb` does not occur in the data; did you mean `B`?"]


def test_two_components_of_one_unknown_type_are_each_placed() -> None:
    src = "PATTERN SEQ(C c, A a,\n  C d)"
    warnings = located(src)
    assert [w.splitlines()[0] for w in warnings] == [
        "line 1, column 13: event type `C` does not occur in the data",
        "line 2, column 3: event type `C` does not occur in the data",
    ]
    assert warnings[1].splitlines()[1:] == ["    C d)", "    ^"]


def test_empty_schema_warns_for_every_type() -> None:
    warnings = located("PATTERN SEQ(A a, B b) WHERE a.x > 1", {})
    assert [w.splitlines()[0] for w in warnings] == [
        "line 1, column 13: event type `A` does not occur in the data",
        "line 1, column 18: event type `B` does not occur in the data",
    ]


def test_unknown_reference_attribute_keeps_its_span_and_hint() -> None:
    err = refused("PATTERN SEQ(A a, B b) WHERE a.y > 1")
    assert err.message == "unknown attribute `y` on `a` (type A)"
    assert err.span == (1, 29, 3) and err.hint == "known: id, x"
    assert str(err).splitlines()[-1] == "  " + " " * 28 + "^^^"


def test_without_source_the_error_is_the_models() -> None:
    p = parse("PATTERN SEQ(A a, B b) WHERE [idd]")
    with pytest.raises(PatternError) as info:
        check_schema(p, SCHEMA)
    assert not isinstance(info.value, DslError)
    assert info.value.span == p.span


def test_unknown_equivalence_attribute_points_at_the_name() -> None:
    err = refused("PATTERN SEQ(A a, B b) WHERE [id] AND [zz]")
    assert (err.message, err.span, err.hint) == ("unknown attribute `zz`", (1, 39, 2), None)
    err = refused("PATTERN SEQ(A a, B b) WHERE [idd]")
    assert (err.span, err.hint) == ((1, 30, 3), "did you mean `id`?")


def test_unknown_group_by_attribute_points_at_the_name() -> None:
    err = refused("PATTERN SEQ(A a, B+ b[])\nAGG SUM(b.y) GROUP BY id, kk")
    assert (err.message, err.span) == ("unknown attribute `kk`", (2, 27, 2))


def test_a_source_that_does_not_parse_leaves_the_model_places() -> None:
    p = parse("PATTERN SEQ(A a, Bb b) WHERE [idd]")
    # the names cannot be placed in this text: the warning stays unplaced ...
    assert check_schema(parse("PATTERN SEQ(A a, Bb b)"), SCHEMA, "PATTERN (") == \
        ["event type `Bb` does not occur in the data; did you mean `B`?"]
    # ... and the error stays at the pattern's own span, rendered against the text given
    with pytest.raises(DslError) as info:
        check_schema(p, SCHEMA, "PATTERN (")
    assert info.value.span == (1, 1, 1) and info.value.source == "PATTERN ("


def test_list_name_span_checks_equivalence_then_group_by() -> None:
    src = "PATTERN SEQ(A a, B+ b[]) WHERE [k] AGG COUNT GROUP BY k, g"
    p = parse(src)
    spans = {"type": {}, "equivalence": {"k": (1, 33, 1)}, "group_by": {"k": (1, 55, 1), "g": (1, 58, 1)}}
    assert _list_name_span(p, "unknown attribute `k`", spans) == (1, 33, 1)
    assert _list_name_span(p, "unknown attribute `g`", spans) == (1, 58, 1)
    assert _list_name_span(p, "unknown attribute `q`", spans) is None


def test_located_warning_marks_the_variables_it_placed() -> None:
    src = "PATTERN SEQ(C c, C d)"
    p = parse(src)
    spans = {"type": {"c": (1, 13, 1), "d": (1, 18, 1)}, "equivalence": {}, "group_by": {}}
    used: set[str] = set()
    msg = "event type `C` does not occur in the data"
    first = _located_warning(msg, p, spans, src, used)
    second = _located_warning(msg, p, spans, src, used)
    assert first.startswith("line 1, column 13: ") and second.startswith("line 1, column 18: ")
    assert used == {"c", "d"}
    # every component placed: the warning is returned as it is
    assert _located_warning(msg, p, spans, src, used) == msg
    # a warning about no component of the pattern is returned as it is
    assert _located_warning("something else", p, spans, src, set()) == "something else"


def test_a_key_is_checked_against_the_patterns_own_types() -> None:
    """``[x]`` names an attribute of the events the pattern binds: one that only another type has is
    unknown; with none of the pattern's types in the data there is nothing to check (warned only), so
    a run that builds only the bound types answers as one that builds every event."""
    schema = {"A": {"x": "num"}, "B": {"x": "num"}, "C": {"z": "num"}}
    assert located("PATTERN SEQ(A a, B b) WHERE [x]", schema) == []
    assert "unknown attribute `z`" in str(refused("PATTERN SEQ(A a, B b) WHERE [z]", schema))
    only_c = {"C": {"name": "text"}}
    assert [w.splitlines()[0] for w in located("PATTERN SEQ(A a, B b) WHERE [x]", only_c)] == [
        "line 1, column 13: event type `A` does not occur in the data",
        "line 1, column 18: event type `B` does not occur in the data"]
    assert located("PATTERN SEQ(A a, B b) WHERE [x]", {}) == located("PATTERN SEQ(A a, B b) WHERE [x]", only_c)
    assert "unknown attribute `x`" in str(refused("PATTERN SEQ(ANY a, B b) WHERE [x]", only_c))
