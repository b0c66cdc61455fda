"""Fast paths of compiled comparisons: a comparison whose operands are tagged getters
(``slot_attr``, ``event_attr`` and arithmetic on them with a constant, see
engine.expr.compile) becomes one closure that reads ``event.attrs`` directly, instead of a
comparison closure calling one getter closure per operand.

Each inlines the generic comparison of engine.expr.compile (``cmp``/``cmp_const``): an
attribute the event's dict lacks goes to that generic closure (built-in fields, missing =
None), an undefined operation or comparison is false, a non-bool result is false. Parity:
tests/engines/lazy/test_predicates.py and tests/test_expr.py compare them with the generic closure.
"""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["Getter", "UNDEFINED_ERRORS", "arithmetic_comparison", "attribute_comparison"]

Getter = Callable[[Any], Any]

# what an operation on undefined values raises: the enclosing comparison is then false
UNDEFINED_ERRORS = (TypeError, ZeroDivisionError, ValueError, OverflowError)


def arithmetic_comparison(cop: Callable[[Any, Any], bool], s1: int, a1: str, aop: Callable[[Any, Any], Any],
                          k: Any, c: Any, slow: Getter, then: Getter | None) -> Getter:
    """``(ctx[s1].attrs[a1] AOP k) OP c`` (``a[1].price % 500 = 0``) as one closure, with the
    semantics of the generic comparison (see :func:`attribute_comparison`): an attribute the
    event's dict lacks goes to ``slow``, an undefined operation or comparison is false, a
    non-bool is false."""

    def f(v: Any) -> bool:
        try:
            r = cop(aop(v[s1].attrs[a1], k), c) is True
        except KeyError:
            r = slow(v)
        except UNDEFINED_ERRORS:
            return False
        return r and (then is None or then(v))

    return f


def attribute_comparison(op: str, s1: int, a1: str, s2: int | None, a2: Any, slow: Getter,
                         then: Getter | None) -> Getter:
    """``ctx[s1].attrs[a1] OP ctx[s2].attrs[a2]`` (``s2`` None: ``OP a2``, a constant) as one
    closure per operator, with the semantics of the generic comparison: an attribute the
    event's dict lacks goes to ``slow`` (the generic closure: built-in fields, missing = None),
    an undefined comparison (str vs number, None) is false, a non-bool result is false. With
    ``then`` (the rest of a conjunction), it holds when both hold, ``then`` called only when
    the comparison holds."""
    if s2 is None:
        c = a2
        if op == "<":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] < c) is True
                except KeyError:
                    r = slow(v)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == "<=":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] <= c) is True
                except KeyError:
                    r = slow(v)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == ">":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] > c) is True
                except KeyError:
                    r = slow(v)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == ">=":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] >= c) is True
                except KeyError:
                    r = slow(v)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == "=":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] == c) is True
                except KeyError:
                    r = slow(v)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        else:
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] != c) is True
                except KeyError:
                    r = slow(v)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        return f
    if op == "<":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] < v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == "<=":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] <= v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == ">":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] > v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == ">=":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] >= v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == "=":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] == v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    else:
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] != v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    return g
