"""The words of the DSL (engine/dsl/vocabulary.py): the clause keywords, the reserved words,
strategy and selection names from the model's enums, the aggregate functions, every time
unit spelling with the unit and factor it means, and ``_strategy_of``."""
from __future__ import annotations

import pytest

from engine.dsl.vocabulary import (
    AGG_FUNCS,
    CLAUSES,
    KEYWORDS,
    SELECTION_NAMES,
    STRATEGY_NAMES,
    UNITS,
    _strategy_of,
)
from engine.model import Strategy, UNIT_WORDS


def test_clauses_are_keywords() -> None:
    assert CLAUSES == ("WHERE", "WITHIN", "OUTPUT", "AGG", "GROUP", "RETURN")
    assert set(CLAUSES) <= KEYWORDS
    assert {"PATTERN", "SEQ", "AND", "OR", "NOT", "BY", "AS"} <= KEYWORDS


def test_strategy_and_selection_names() -> None:
    assert STRATEGY_NAMES == ["strict_contiguity", "partition_contiguity", "skip_till_next_match",
                              "skip_till_any_match"]
    assert SELECTION_NAMES == ["earliest", "maximal", "earliest_maximal"]  # `all` is the default, not written


def test_aggregate_functions_are_lower_case() -> None:
    assert AGG_FUNCS == ("avg", "sum", "min", "max", "count")


EXPECTED_UNITS = {
    "ms": ("ms", 1.0), "msec": ("ms", 1.0), "msecs": ("ms", 1.0), "millisecond": ("ms", 1.0),
    "milliseconds": ("ms", 1.0),
    "s": ("s", 1.0), "sec": ("s", 1.0), "secs": ("s", 1.0), "second": ("s", 1.0), "seconds": ("s", 1.0),
    "min": ("min", 1.0), "mins": ("min", 1.0), "minute": ("min", 1.0), "minutes": ("min", 1.0),
    "h": ("hour", 1.0), "hr": ("hour", 1.0), "hrs": ("hour", 1.0), "hour": ("hour", 1.0), "hours": ("hour", 1.0),
    "d": ("day", 1.0), "day": ("day", 1.0), "days": ("day", 1.0),
    "event": ("events", 1.0), "events": ("events", 1.0),
    "week": ("day", 7), "weeks": ("day", 7),
}


def test_every_unit_spelling() -> None:
    assert UNITS == EXPECTED_UNITS


def test_every_unit_is_a_model_unit() -> None:
    assert {unit for unit, _ in UNITS.values()} == set(UNIT_WORDS)


@pytest.mark.parametrize("text, strategy", [
    ("strict-contiguity", Strategy.STRICT),
    ("PARTITION_CONTIGUITY", Strategy.PARTITION),
    ("Skip-Till-Next_Match", Strategy.NEXT),
    ("skip_till_any_match", Strategy.ANY),
])
def test_strategy_of_normalizes_case_and_dashes(text: str, strategy: Strategy) -> None:
    assert _strategy_of(text) is strategy


def test_strategy_of_refuses_an_unknown_name() -> None:
    with pytest.raises(ValueError):
        _strategy_of("skip-till-some-match")
