"""Plain values without pandas: the schema kind a list of values shares, and CSV's
number-looking text as numbers. ``values`` (pandas columns) and ``small_csv`` (a small
CSV read without pandas) both use these, so both give the same values and kinds.
"""
from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

__all__ = ["plain_kind", "short_fraction", "text_number", "INT_TEXT", "NUMBER_TEXT", "MAX_NUMBER_DIGITS", "FLOAT_EXACT_LIMIT",
           "NumberLimit", "exact_number", "int_text", "short_number"]

_NONE_TYPE = type(None)
_PLAIN_KINDS: dict[frozenset[type], str | None] = {
    frozenset({str}): "string", frozenset({str, _NONE_TYPE}): "string",
    frozenset({int}): "number", frozenset({int, _NONE_TYPE}): "number",
    frozenset({float}): "number", frozenset({float, _NONE_TYPE}): "number",
    frozenset({int, float}): "number", frozenset({int, float, _NONE_TYPE}): "number",
    frozenset({bool}): "bool", frozenset({bool, _NONE_TYPE}): "bool",
}

INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")
NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def plain_kind(types: Iterable[type]) -> str | None:
    """The kind ("string", "number", "bool") shared by values of these Python types (None
    counts as missing); None when they do not share one."""
    return _PLAIN_KINDS.get(frozenset(types))


def text_number(v: Any) -> Any:
    """A text cell that looks like a number as that number (int when the text is an
    integer); any other value unchanged (also a number beyond the float range, ``1e400``,
    and an integer of more than ``MAX_NUMBER_DIGITS`` digits: they stay text)."""
    if type(v) is str and NUMBER_TEXT.fullmatch(v):
        if INT_TEXT.fullmatch(v):
            return int(v) if len(v) <= MAX_NUMBER_DIGITS else v  # str -> int refuses more digits
        number = float(v)
        return number if number - number == 0.0 else v  # 1e400 is not inf: it stays text
    return v


# --------------------------------------------------------------------------- exact numbers

#: The most decimal digits an exact number read from text may have: in its digits, in its
#: value (``1e300`` has 301) and in its denominator (``1e-30`` has 31). The same as
#: Python's own limit for turning text into an int (``sys.get_int_max_str_digits``), so
#: that every accepted number prints; beyond it a number is refused, with its row.
MAX_NUMBER_DIGITS = 4300

#: A float is an exact integer only below this magnitude (a double has 53 bits).
FLOAT_EXACT_LIMIT = 2 ** 53

_DECIMAL = re.compile(r"\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*", re.ASCII)
_INT_BOUND = 10 ** MAX_NUMBER_DIGITS
_RATIO = re.compile(r"\s*([+-]?\d+)\s*/\s*(\d+)\s*", re.ASCII)


class NumberLimit(ValueError):
    """A number that cannot be used exactly: too many digits, too large an exponent, a
    float too large to be an exact integer, or not finite (the message says which)."""


def exact_number(v: Any, what: str = "value") -> int | Fraction:
    """The exact value of a number or of a number's text: an int stays an int (of any size
    up to ``MAX_NUMBER_DIGITS`` digits); decimal text (``"2.50"``, ``"1e3"``) and ratio
    text (``"1/3"``) become the exact ``Fraction`` (an int when whole); a float its exact
    binary value when it is finite and, if whole, below 2**53 in magnitude.

    Raises ``NumberLimit`` beyond the limits (so that ``1e99999999`` is refused at once
    instead of becoming a 10^8-digit number) and ``ValueError`` for text that is not a number."""
    if isinstance(v, bool):
        raise ValueError(f"{what} {v!r} is not a number")
    if isinstance(v, int):
        if v.bit_length() > 14_000 and abs(v) >= _INT_BOUND:
            raise NumberLimit(f"{what} has more than {MAX_NUMBER_DIGITS} digits")
        return v
    if isinstance(v, Fraction):
        return exact_number(v.numerator, what) if v.denominator == 1 else v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise NumberLimit(f"{what} {v!r} is not a finite number")
        if v.is_integer():
            if abs(v) >= FLOAT_EXACT_LIMIT:
                raise NumberLimit(f"{what} {v!r} is a floating-point number beyond 2**53, not an exact "
                                  "integer (write it as an integer)")
            return int(v)
        return Fraction(v)
    if isinstance(v, numbers.Integral):  # numpy ints
        return exact_number(int(v), what)
    if isinstance(v, Decimal):
        if not v.is_finite():
            raise NumberLimit(f"{what} {v!s} is not a finite number")
        return _exact_text(str(v), what)
    if isinstance(v, numbers.Real):  # numpy floats
        return exact_number(float(v), what)
    if not isinstance(v, str):
        raise ValueError(f"{what} {v!r} is not a number")
    return _exact_text(v, what)


def _exact_text(text: str, what: str) -> int | Fraction:
    shown = text if len(text) <= 40 else text[:37] + "..."
    if len(text) > 2 * MAX_NUMBER_DIGITS + 40:
        raise NumberLimit(f"{what} {shown!r} has more than {MAX_NUMBER_DIGITS} digits")
    m = _DECIMAL.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)):
        r = _RATIO.fullmatch(text)
        if r is None:
            raise ValueError(f"{what} {shown!r} is not a number")
        num, den = r.group(1), r.group(2)
        if max(len(num.lstrip("+-").lstrip("0")), len(den.lstrip("0"))) > MAX_NUMBER_DIGITS:
            raise NumberLimit(f"{what} {shown!r} has more than {MAX_NUMBER_DIGITS} digits")
        if int(den) == 0:
            raise ValueError(f"{what} {shown!r} divides by zero")
        q = Fraction(int(num), int(den))
        return q.numerator if q.denominator == 1 else q
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    digits = (whole + frac).lstrip("0")
    if exp is not None and len(exp.lstrip("+-").lstrip("0")) > 6:
        raise NumberLimit(f"{what} {shown!r}: exponent beyond {MAX_NUMBER_DIGITS}")
    power = (int(exp) if exp else 0) - len(frac)
    if len(digits) > MAX_NUMBER_DIGITS or (digits and len(digits) + power > MAX_NUMBER_DIGITS) \
            or -power > MAX_NUMBER_DIGITS:
        raise NumberLimit(f"{what} {shown!r} is beyond {MAX_NUMBER_DIGITS} digits (the most an exact "
                          "number may have)")
    mantissa = int(digits or "0")
    if sign == "-":
        mantissa = -mantissa
    if power >= 0:
        return mantissa * 10 ** power
    q = Fraction(mantissa, 10 ** -power)
    return q.numerator if q.denominator == 1 else q


def short_number(v: Any, limit: int = 40) -> str:
    """A number for a message: in full up to ``limit`` characters, else its first and last
    digits and its length (``1000000000…0005 (401 digits)``)."""
    text = int_text(v) if isinstance(v, int) else str(v)
    if len(text) <= limit:
        return text
    digits = len(text.lstrip("-"))
    return f"{text[:limit // 2]}…{text[-8:]} ({digits} digits)"


def int_text(n: int) -> str:
    """The decimal text of an int of any size (``str`` refuses more than 4,300 digits by
    default; this splits the number instead of changing the process-wide limit)."""
    if n < 0:
        return "-" + int_text(-n)
    if n.bit_length() <= 12_000:  # about 3,600 digits: within str's limit
        return str(n)
    k = int(n.bit_length() * 0.30103) // 2  # half the digits
    high, low = divmod(n, 10 ** k)
    return int_text(high) + int_text(low).rjust(k, "0")


def short_fraction(v: Any, limit: int = 40) -> str:
    """A ratio for a message: ``n/d`` with each side as ``short_number`` gives it (an int as
    itself); never the process-wide int-to-text limit's ``ValueError``."""
    numerator, denominator = getattr(v, "numerator", v), getattr(v, "denominator", 1)
    if denominator == 1:
        return short_number(numerator, limit)
    return f"{short_number(numerator, limit)}/{short_number(denominator, limit)}"
