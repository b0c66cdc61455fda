"""Tests of engine/events/pmf_column.py: the pmf column read exactly.

- ``parse_pmf``: the separators, lists, missing cells, weights normalised to the smallest integers
  with the same ratios (decimals, ratios, huge integers), and every refusal with its message
  (count, negative, not a number, all zero, a denominator past ``MAX_PMF_BITS``).
- ``as_instant``: ints of any size, whole text and floats; fractions, inexact floats and text that
  is not a number refused, naming what was read.
"""
from __future__ import annotations

import math
from fractions import Fraction

import pytest

from engine.events.numbers import MAX_NUMBER_DIGITS
from engine.events.pmf_column import MAX_PMF_BITS, PmfError, as_instant, parse_pmf


@pytest.mark.parametrize("cell", ["1 2 1", "1,2,1", "1;2;1", " 1 ,  2;1 ", "[1, 2, 1]", "0.25;0.5;0.25",
                                  "1/4 1/2 1/4", "2 4 2", [1, 2, 1], (0.25, 0.5, 0.25), ["1", "2", "1"]])
def test_the_same_pmf_written_many_ways(cell: object) -> None:
    assert parse_pmf(cell, 5, 7) == (1, 2, 1)


@pytest.mark.parametrize("cell", [None, float("nan"), "", "   "])
def test_a_missing_cell_is_uniform(cell: object) -> None:
    assert parse_pmf(cell, 0, 3) is None


def test_weights_are_the_smallest_integers_with_the_same_ratios() -> None:
    assert parse_pmf("0.1 0.2 0.7", 0, 2) == (1, 2, 7)
    assert parse_pmf("1/3 1/6", 0, 1) == (2, 1)
    assert parse_pmf("0 0 5", 0, 2) == (0, 0, 1)
    assert parse_pmf("6 9", 3, 4) == (2, 3)
    assert parse_pmf("7", 10, 10) == (1,)


def test_weights_are_exact_beyond_floats() -> None:
    big = 10 ** 40
    assert parse_pmf(f"{big} {big + 1}", 0, 1) == (big, big + 1)  # float64 would make them equal
    assert parse_pmf("0.1 0.2", 0, 1) == (1, 2)  # the decimal, not the binary 0.1


def test_wrong_number_of_weights_names_both_counts() -> None:
    with pytest.raises(PmfError, match=r"^pmf has 2 weights but the interval \[1, 3\] has 3 instants$"):
        parse_pmf("1 1", 1, 3)
    with pytest.raises(PmfError, match=r"^pmf has 1 weight but the interval \[1, 2\] has 2 instants$"):
        parse_pmf("1", 1, 2)
    with pytest.raises(PmfError, match=r"^pmf has 2 weights but the interval \[4, 4\] has 1 instant$"):
        parse_pmf([1, 1], 4, 4)


def test_negative_weight_is_named() -> None:
    with pytest.raises(PmfError, match=r"^pmf weight '-1' is negative$"):
        parse_pmf("1 -1 2", 0, 2)


def test_not_a_number_is_named_and_shortened() -> None:
    with pytest.raises(PmfError, match=r"^pmf weight 'x' is not a number$"):
        parse_pmf("1 x", 0, 1)
    long = "y" * 60
    with pytest.raises(PmfError, match=r"^pmf weight 'y{37}\.\.\.' is not a number$"):
        parse_pmf(f"1 {long}", 0, 1)


def test_all_zero_is_refused() -> None:
    with pytest.raises(PmfError, match="^pmf weights are all zero$"):
        parse_pmf("0 0.0 0", 0, 2)


def test_too_many_digits_is_refused() -> None:
    with pytest.raises(PmfError, match=f"^pmf weight '9{{37}}\\.\\.\\.' is beyond {MAX_NUMBER_DIGITS} digits"):
        parse_pmf("1 " + "9" * (MAX_NUMBER_DIGITS + 1), 0, 1)


def test_a_runaway_common_denominator_is_refused() -> None:
    # 1/p**e for distinct small primes p, each denominator ~4200 digits (~14,000 bits, under the
    # digit limit of one number): their lcm passes MAX_PMF_BITS after ~24 weights
    primes = [p for p in range(2, 200) if all(p % d for d in range(2, p))]
    weights = [f"1/{p ** int(4200 / math.log10(p))}" for p in primes[:30]]
    assert sum(int(4200 / math.log10(p)) * math.log2(p) for p in primes[:30]) > MAX_PMF_BITS
    with pytest.raises(PmfError, match=f"common denominator of more than {MAX_PMF_BITS * 3 // 10:,} digits"):
        parse_pmf(weights, 0, len(weights) - 1)


def test_as_instant_reads_whole_numbers_exactly() -> None:
    assert as_instant(7) == 7
    assert as_instant(10 ** 30) == 10 ** 30
    assert as_instant("3") == 3
    assert as_instant(" 3.0 ") == 3
    assert as_instant("1e3") == 1000
    assert as_instant(12.0) == 12
    assert as_instant(Fraction(8, 2)) == 4
    assert type(as_instant("3.0")) is int


@pytest.mark.parametrize("value, message", [
    ("2.5", r"^lower bound '2\.5' is not an integer instant \(interval bounds are whole instants"),
    (0.5, r"^lower bound 0\.5 is not an integer instant \(interval bounds"),
    ("soon", r"^lower bound 'soon' is not an integer instant$"),
    (None, r"^lower bound None is not an integer instant$"),
    (True, r"^lower bound True is not an integer instant$"),
    (2.0 ** 60, r"^lower bound 1\.152921504606847e\+18 is a floating-point number beyond 2\*\*53"),
    (float("inf"), r"^lower bound inf is not a finite number$"),
])
def test_as_instant_refuses_with_the_reason(value: object, message: str) -> None:
    with pytest.raises(PmfError, match=message):
        as_instant(value, "lower bound")
