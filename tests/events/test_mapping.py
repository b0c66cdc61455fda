"""Tests of engine/events/mapping.py: ``ColumnMapping`` and guessing it from column names.

- the mapping's checks (both bounds or neither, one column per role, pmf/u_max only for intervals,
  u_max >= 0), each refusal naming the column or the setting;
- ``is_interval``, ``time_columns``, ``mapped_columns``;
- ``guess_role`` (case, order of the usual names, exclusions), ``guess_mapping`` (intervals guessed only
  when the bounds are named lower/upper or there is no ts column), ``suggest_column``.
"""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.events.mapping import ColumnMapping, guess_mapping, guess_role, suggest_column


def test_defaults_are_point_events() -> None:
    m = ColumnMapping()
    assert (m.type_col, m.ts_col, m.id_col, m.ts_unit) == ("type", "ts", "id", "s")
    assert not m.is_interval and m.time_columns == ["ts"]
    assert m.mapped_columns() == {"type", "ts", "id"}
    assert ColumnMapping(id_col=None).mapped_columns() == {"type", "ts"}


def test_interval_mapping() -> None:
    m = ColumnMapping(lower_col="lo", upper_col="hi", pmf_col="pmf", u_max=3)
    assert m.is_interval and m.time_columns == ["lo", "hi"]
    assert m.mapped_columns() == {"type", "lo", "hi", "id"}  # the pmf column stays an attribute
    assert ColumnMapping(ts_col="lo", lower_col="lo", upper_col="hi").is_interval  # ts is not a role then


@pytest.mark.parametrize("kwargs, message", [
    ({"lower_col": "lo"}, "set both lower_col and upper_col for interval events, or neither"),
    ({"upper_col": "hi"}, "set both lower_col and upper_col for interval events, or neither"),
    ({"type_col": "x", "ts_col": "x"}, "column 'x' is mapped to more than one role"),
    ({"id_col": "ts"}, "column 'ts' is mapped to more than one role"),
    ({"lower_col": "b", "upper_col": "b"}, "column 'b' is mapped to more than one role"),
    ({"pmf_col": "p"}, "pmf_col and u_max are for interval events: set lower_col and upper_col too"),
    ({"u_max": 2}, "pmf_col and u_max are for interval events"),
    ({"lower_col": "lo", "upper_col": "hi", "u_max": -1}, "u_max must be >= 0"),
    ({"ts_unit": "min"}, "ts_unit"),
])
def test_refused_mappings(kwargs: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ColumnMapping(**kwargs)


def test_mapping_is_frozen() -> None:
    with pytest.raises(ValidationError):
        ColumnMapping().type_col = "x"  # type: ignore[misc]


def test_guess_role() -> None:
    assert guess_role("ts", ["Value", "TimeStamp", "Time"]) == "Time"  # "time" comes before "timestamp"
    assert guess_role("type", ["L", "x"]) == "L"
    assert guess_role("id", ["x", "y"]) is None
    assert guess_role("type", ["Event", "event"]) == "Event"  # first of the same name in another case
    assert guess_role("ts", ["t", "time"], exclude={"time"}) == "t"


def test_guess_mapping_point_events() -> None:
    m = guess_mapping(["Kind", "Timestamp", "EID", "price"])
    assert (m.type_col, m.ts_col, m.id_col, m.is_interval) == ("Kind", "Timestamp", "EID", False)
    m = guess_mapping(["event", "date"])
    assert (m.type_col, m.ts_col, m.id_col) == ("event", "date", None)
    assert guess_mapping(["x", "y"]).type_col == "type" and guess_mapping(["x"]).ts_col == "ts"


def test_guess_mapping_intervals() -> None:
    m = guess_mapping(["type", "lower", "upper", "ts"])
    assert m.is_interval and (m.lower_col, m.upper_col) == ("lower", "upper")
    # start/end next to a ts column are more likely attributes
    m = guess_mapping(["type", "ts", "start", "end"])
    assert not m.is_interval and m.ts_col == "ts"
    m = guess_mapping(["type", "start", "end"])
    assert m.is_interval and (m.lower_col, m.upper_col) == ("start", "end") and m.ts_col == "ts"
    m = guess_mapping(["type", "lo", "hi", 7])  # names are read as text
    assert m.is_interval


def test_guess_mapping_keeps_ts_apart_from_the_bounds() -> None:
    m = guess_mapping(["type", "ts", "lower", "upper"])
    assert m.is_interval and m.ts_col == "ts"
    m = guess_mapping(["L", "lo", "hi", "id"])
    assert m.is_interval and m.ts_col not in ("lo", "hi", "L", "id")


def test_suggest_column() -> None:
    cols = ["Type", "Timestamp", "price", "volume"]
    assert suggest_column("type", cols, "type", set()) == "Type"  # another case
    assert suggest_column("when", cols, "ts", set()) == "Timestamp"  # the usual name for the role
    assert suggest_column("prise", cols, None, set()) == "price"  # the closest spelling
    assert suggest_column("zzz", cols, None, set()) is None
    assert suggest_column("type", cols, None, {"Type"}) is None
