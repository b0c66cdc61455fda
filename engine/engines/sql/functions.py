"""The scalar functions and the aggregates a MATCH_RECOGNIZE expression may call, with SQL's
NULL rules (a NULL argument gives NULL; aggregates skip NULLs; count(*) counts rows)."""
from __future__ import annotations

import math
from typing import Any, Callable

from engine.engines.sql import values as V


def _null_safe(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if any(a is None for a in args):
            return None
        return fn(*args)
    return call


def _number(v: Any, what: str) -> Any:
    if not V.is_number(v):
        raise V.SqlValueError(f"{what} needs a number, not {V.type_name(v)}")
    return v


def _string(v: Any, what: str) -> str:
    if not isinstance(v, str):
        raise V.SqlValueError(f"{what} needs a string, not {V.type_name(v)}")
    return v


def _round(x: Any, d: Any = 0) -> Any:
    _number(x, "round")
    if not isinstance(d, int) or isinstance(d, bool):
        raise V.SqlValueError("round's digits must be a whole number")
    if isinstance(x, int):
        if d >= 0:
            return x
        q = 10 ** -d
        return (abs(x) + q // 2) // q * q * (1 if x >= 0 else -1)
    scale = 10.0 ** d
    r = math.floor(abs(x) * scale + 0.5) / scale  # half away from zero, as SQL rounds
    return V.finite(math.copysign(r, x))


def _sqrt(x: Any) -> Any:
    if _number(x, "sqrt") < 0:
        raise V.SqlValueError("sqrt of a negative number")
    return math.sqrt(x)


def _ln(x: Any) -> Any:
    if _number(x, "ln") <= 0:
        raise V.SqlValueError("ln of a number that is not positive")
    return math.log(x)


def _power(x: Any, y: Any) -> Any:
    _number(x, "power"), _number(y, "power")
    try:
        return V.finite(float(x) ** float(y))
    except (OverflowError, ZeroDivisionError, ValueError):
        raise V.SqlValueError(f"power({x}, {y}) has no finite value") from None


def _substring(s: Any, start: Any, length: Any = None) -> Any:
    _string(s, "substring")
    begin = max(start - 1, 0) if start > 0 else max(len(s) + start, 0)
    return s[begin:] if length is None else s[begin:begin + max(length, 0)]


def _greatest(*xs: Any) -> Any:
    if any(x is None for x in xs):
        return None
    best = xs[0]
    for x in xs[1:]:
        if V.compare(">", x, best):
            best = x
    return best


def _least(*xs: Any) -> Any:
    if any(x is None for x in xs):
        return None
    best = xs[0]
    for x in xs[1:]:
        if V.compare("<", x, best):
            best = x
    return best


def _nullif(a: Any, b: Any) -> Any:
    return None if a is not None and b is not None and V.compare("=", a, b) else a


def _concat(*xs: Any) -> Any:
    if any(x is None for x in xs):
        return None
    return "".join(V.cast(x, "str") for x in xs)


def _sign(x: Any) -> Any:
    _number(x, "sign")
    s = (x > 0) - (x < 0)
    return float(s) if isinstance(x, float) else s


#: name -> ((fewest, most) arguments, implementation)
SCALARS: dict[str, tuple[tuple[int, int], Callable[..., Any]]] = {
    "ABS": ((1, 1), _null_safe(lambda x: abs(_number(x, "abs")))),
    "ROUND": ((1, 2), _null_safe(_round)),
    "CEIL": ((1, 1), _null_safe(lambda x: math.ceil(_number(x, "ceil")) if isinstance(x, float) else x)),
    "CEILING": ((1, 1), _null_safe(lambda x: math.ceil(_number(x, "ceiling")) if isinstance(x, float) else x)),
    "FLOOR": ((1, 1), _null_safe(lambda x: math.floor(_number(x, "floor")) if isinstance(x, float) else x)),
    "SQRT": ((1, 1), _null_safe(_sqrt)),
    "LN": ((1, 1), _null_safe(_ln)),
    "EXP": ((1, 1), _null_safe(lambda x: _power(math.e, x))),
    "POW": ((2, 2), _null_safe(_power)),
    "POWER": ((2, 2), _null_safe(_power)),
    "SIGN": ((1, 1), _null_safe(_sign)),
    "LOWER": ((1, 1), _null_safe(lambda s: _string(s, "lower").lower())),
    "UPPER": ((1, 1), _null_safe(lambda s: _string(s, "upper").upper())),
    "LENGTH": ((1, 1), _null_safe(lambda s: len(_string(s, "length")))),
    "TRIM": ((1, 1), _null_safe(lambda s: _string(s, "trim").strip())),
    "LTRIM": ((1, 1), _null_safe(lambda s: _string(s, "ltrim").lstrip())),
    "RTRIM": ((1, 1), _null_safe(lambda s: _string(s, "rtrim").rstrip())),
    "REPLACE": ((2, 3), _null_safe(lambda s, a, b="": _string(s, "replace").replace(a, b))),
    "SUBSTRING": ((2, 3), _null_safe(_substring)),
    "SUBSTR": ((2, 3), _null_safe(_substring)),
    "CONCAT": ((1, 64), _concat),
    "GREATEST": ((1, 64), _greatest),
    "LEAST": ((1, 64), _least),
    "NULLIF": ((2, 2), _nullif),
}
#: sqlglot's function classes (upper-cased class names) that stand for a scalar above
SCALAR_CLASSES = {"ABS", "ROUND", "CEIL", "FLOOR", "SQRT", "LN", "EXP", "POW", "SIGN", "LOWER", "UPPER", "LENGTH",
                  "TRIM", "REPLACE", "SUBSTRING", "CONCAT", "GREATEST", "LEAST", "NULLIF"}


def _numbers(col: list[Any], name: str) -> list[Any]:
    vals = [v for v in col if v is not None]
    for v in vals:
        _number(v, name)
    return vals


def _sum(col: list[Any]) -> Any:
    vals = _numbers(col, "sum")
    if not vals:
        return None
    total = sum(vals)
    return V.finite(total) if isinstance(total, float) else total


def _avg(col: list[Any]) -> Any:
    vals = _numbers(col, "avg")
    return V.finite(math.fsum(vals) / len(vals)) if vals else None


def _extreme(col: list[Any], op: str) -> Any:
    best = None
    for v in col:
        if v is not None and (best is None or V.compare(op, v, best)):
            best = v
    return best


def _variance(col: list[Any], sample: bool) -> Any:
    vals = _numbers(col, "variance")
    n = len(vals)
    if n == 0 or (sample and n == 1):
        return None
    mean = math.fsum(vals) / n
    return V.finite(math.fsum((v - mean) ** 2 for v in vals) / (n - 1 if sample else n))


def _by(col: list[Any], keys: list[Any], op: str) -> Any:
    best_key, best = None, None
    for v, k in zip(col, keys):
        if k is not None and (best_key is None or V.compare(op, k, best_key)):
            best_key, best = k, v
    return best


def _all_bool(col: list[Any]) -> Any:
    vals = [V.truth(v) for v in col if v is not None]
    return all(vals) if vals else None


def _any_bool(col: list[Any]) -> Any:
    vals = [V.truth(v) for v in col if v is not None]
    return any(vals) if vals else None


def aggregate_function(name: str, star: bool, separator: str) -> Callable[[list[int], list[list[Any]]], Any] | None:
    """``combine(rows, columns)``: the aggregate over the rows (``columns[i]`` holds the i-th
    argument's value on each row)."""
    if name == "COUNT":
        if star:
            return lambda rows, cols: len(rows)
        return lambda rows, cols: sum(1 for v in cols[0] if v is not None)
    table: dict[str, Callable[[list[int], list[list[Any]]], Any]] = {
        "SUM": lambda rows, cols: _sum(cols[0]),
        "AVG": lambda rows, cols: _avg(cols[0]),
        "MIN": lambda rows, cols: _extreme(cols[0], "<"),
        "MAX": lambda rows, cols: _extreme(cols[0], ">"),
        "COUNT_IF": lambda rows, cols: sum(1 for v in cols[0] if V.truth(v)),
        "ARRAY_AGG": lambda rows, cols: list(cols[0]),
        "BOOL_AND": lambda rows, cols: _all_bool(cols[0]),
        "EVERY": lambda rows, cols: _all_bool(cols[0]),
        "BOOL_OR": lambda rows, cols: _any_bool(cols[0]),
        "ARBITRARY": lambda rows, cols: next((v for v in cols[0] if v is not None), None),
        "ANY_VALUE": lambda rows, cols: next((v for v in cols[0] if v is not None), None),
        "MAX_BY": lambda rows, cols: _by(cols[0], cols[1], ">"),
        "MIN_BY": lambda rows, cols: _by(cols[0], cols[1], "<"),
        "STDDEV": lambda rows, cols: _sqrt_or_none(_variance(cols[0], True)),
        "STDDEV_SAMP": lambda rows, cols: _sqrt_or_none(_variance(cols[0], True)),
        "STDDEV_POP": lambda rows, cols: _sqrt_or_none(_variance(cols[0], False)),
        "VARIANCE": lambda rows, cols: _variance(cols[0], True),
        "VAR_SAMP": lambda rows, cols: _variance(cols[0], True),
        "VAR_POP": lambda rows, cols: _variance(cols[0], False),
        "LISTAGG": lambda rows, cols: _join(cols[0], separator),
        "STRING_AGG": lambda rows, cols: _join(cols[0], separator),
    }
    if name in ("MAX_BY", "MIN_BY"):
        base = table[name]
        return lambda rows, cols: base(rows, cols) if len(cols) == 2 else _arity(name)
    return table.get(name)


def _arity(name: str) -> Any:
    raise V.SqlValueError(f"{name.lower()} takes two arguments")


def _sqrt_or_none(v: Any) -> Any:
    return None if v is None else math.sqrt(v)


def _join(col: list[Any], separator: str) -> Any:
    vals = [V.cast(v, "str") for v in col if v is not None]
    return separator.join(vals) if vals else None
