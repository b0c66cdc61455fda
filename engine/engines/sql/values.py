"""SQL values as the engine computes them: NULL is ``None``; integers stay Python ints (exact);
DOUBLE is a finite float (a NaN or an infinity stops the query with a message); three-valued
logic for AND, OR, NOT and comparisons. Every operation raises :class:`SqlValueError` with the
cause when the operands do not fit (a string compared with a number, a division by zero)."""
from __future__ import annotations

import datetime as dt
import math
from typing import Any


class SqlValueError(ValueError):
    """An operation the operands do not allow; the caller adds the expression and the row."""


def type_name(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, int):
        return "BIGINT"
    if isinstance(v, float):
        return "DOUBLE"
    if isinstance(v, str):
        return "VARCHAR"
    if isinstance(v, dt.datetime):
        return "TIMESTAMP"
    if isinstance(v, dt.date):
        return "DATE"
    if isinstance(v, list):
        return "ARRAY"
    return type(v).__name__


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def finite(v: float) -> float:
    if not math.isfinite(v):
        raise SqlValueError("the result is not a finite number (NaN or infinity): the studio refuses it")
    return v


def arithmetic(op: str, a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if not (is_number(a) and is_number(b)):
        raise SqlValueError(f"{op} needs numbers, not {type_name(a)} and {type_name(b)}")
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            raise SqlValueError("division by zero")
        if isinstance(a, int) and isinstance(b, int):
            q = abs(a) // abs(b)
            q = q if (a >= 0) == (b >= 0) else -q  # SQL truncates toward zero
            return q if op == "/" else a - b * q
        r = a / b if op == "/" else math.fmod(a, b)
    else:
        raise SqlValueError(f"unknown operator {op}")
    return finite(r) if isinstance(r, float) else r


def compare(op: str, a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    if is_number(a) and is_number(b):
        pass
    elif type(a) is not type(b) and not (isinstance(a, dt.date) and isinstance(b, dt.date)):
        raise SqlValueError(f"cannot compare {type_name(a)} with {type_name(b)}")
    if op == "=":
        return a == b
    if op in ("<>", "!="):
        return a != b
    try:
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        if op == ">=":
            return a >= b
    except TypeError:
        raise SqlValueError(f"cannot order {type_name(a)} and {type_name(b)}") from None
    raise SqlValueError(f"unknown comparison {op}")


def truth(v: Any) -> bool | None:
    """A condition's value: TRUE, FALSE or NULL (unknown)."""
    if v is None or isinstance(v, bool):
        return v
    raise SqlValueError(f"a condition must be BOOLEAN, not {type_name(v)} ({v!r})")


def sql_and(a: Any, b: Any) -> bool | None:
    a, b = truth(a), truth(b)
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def sql_or(a: Any, b: Any) -> bool | None:
    a, b = truth(a), truth(b)
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def sql_not(a: Any) -> bool | None:
    a = truth(a)
    return None if a is None else not a


CAST_TYPES = {"BIGINT": "int", "INT": "int", "INTEGER": "int", "SMALLINT": "int", "TINYINT": "int",
              "DOUBLE": "float", "FLOAT": "float", "REAL": "float", "DECIMAL": "float",
              "VARCHAR": "str", "CHAR": "str", "TEXT": "str", "STRING": "str", "NVARCHAR": "str",
              "BOOLEAN": "bool", "DATE": "date", "TIMESTAMP": "timestamp", "DATETIME": "timestamp"}


def cast(v: Any, target: str, safe: bool = False) -> Any:
    """CAST(v AS target) (TRY_CAST gives NULL where CAST fails)."""
    if v is None:
        return None
    try:
        if target == "int":
            if isinstance(v, bool):
                return int(v)
            if isinstance(v, float):
                finite(v)
                return int(round(v)) if v == v else None
            if isinstance(v, str):
                return int(v.strip())
            if isinstance(v, int):
                return v
        elif target == "float":
            if isinstance(v, str):
                return finite(float(v.strip()))
            if is_number(v) or isinstance(v, bool):
                return float(v)
        elif target == "str":
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, (dt.date, dt.datetime)):
                return v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()
            return str(v)
        elif target == "bool":
            if isinstance(v, bool):
                return v
            if isinstance(v, str) and v.strip().lower() in ("true", "false"):
                return v.strip().lower() == "true"
            if is_number(v):
                return v != 0
        elif target == "date":
            if isinstance(v, dt.datetime):
                return v.date()
            if isinstance(v, dt.date):
                return v
            if isinstance(v, str):
                return dt.date.fromisoformat(v.strip())
        elif target == "timestamp":
            if isinstance(v, dt.datetime):
                return v
            if isinstance(v, dt.date):
                return dt.datetime(v.year, v.month, v.day)
            if isinstance(v, str):
                return dt.datetime.fromisoformat(v.strip())
    except (ValueError, OverflowError, SqlValueError):
        if safe:
            return None
        raise SqlValueError(f"cannot cast {v!r} to {target.upper()}") from None
    if safe:
        return None
    raise SqlValueError(f"cannot cast {type_name(v)} to {target.upper()}")


def like(value: Any, pattern: Any) -> bool | None:
    if value is None or pattern is None:
        return None
    if not isinstance(value, str) or not isinstance(pattern, str):
        raise SqlValueError("LIKE compares strings")
    import re
    rx = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, value, flags=re.S) is not None


def json_value(v: Any) -> Any:
    """An output value as JSON: ints, finite floats, strings, booleans, null; dates as ISO text."""
    if isinstance(v, float):
        return finite(v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()
    if isinstance(v, list):
        return [json_value(x) for x in v]
    return v
