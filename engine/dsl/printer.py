"""The printer (model -> text): :func:`to_text` writes the canonical DSL text of a pattern
(``parse(to_text(m)) == m``); :func:`item_text` and :func:`component_text` write one PATTERN
item; :func:`_window_text` a window as written (`16 days`, `500 events`), which the automaton
drawings use too."""
from __future__ import annotations

from typing import Any

from engine import expr as X
from engine.model import QUANT_SUFFIX, Component, Group, Pattern, Selection, Window, check_group_depth


def component_text(c: Component) -> str:
    if c.var == c.type and not c.kleene:
        body = f"{c.type}{QUANT_SUFFIX[c.quant]}"
    else:
        body = f"{c.type}{QUANT_SUFFIX[c.quant]} {c.var}{'[]' if c.kleene else ''}"
    return f"!{body}" if c.negated else body


def item_text(item: Component | Group) -> str:
    if isinstance(item, Component):
        return component_text(item)
    return f"{item.op}(" + ", ".join(item_text(i) for i in item.items) + ")"


def _window_text(w: Window) -> str:
    v = X._fmt_number(w.value)
    if w.unit is None:
        return v
    plural = w.unit in ("hour", "day") and w.value != 1
    return f"{v} {w.unit}{'s' if plural else ''}"


def _conjunct_text(e: Any) -> str:
    s = X.to_text(e)
    return f"({s})" if isinstance(e, X.BoolOp) else s


def to_text(p: Pattern) -> str:
    """Canonical DSL text of a pattern (a PatternError, never a RecursionError, for groups
    nested deeper than MAX_NESTING; expressions and numbers are guarded by ``expr``)."""
    check_group_depth(p.root)
    lines = [f"PATTERN {item_text(p.root)}"]
    conj = [p.strategy.value]
    if p.selection is not Selection.ALL:
        conj.append(p.selection.value)
    if p.equivalence:
        conj.append("[" + ", ".join(p.equivalence) + "]")
    conj += [_conjunct_text(e) for e in p.where]
    lines.append("WHERE " + conj[0])
    lines += [f"  AND {c}" for c in conj[1:]]
    if p.window is not None:
        lines.append(f"WITHIN {_window_text(p.window)}")
    if p.output != "ALL":
        lines.append(f"OUTPUT {p.output}")
    if p.aggregate is not None:
        a = p.aggregate
        arg = f"({a.var}.{a.attr})" if a.var is not None else ""
        lines.append(f"AGG {a.func}{arg}")
        if a.group_by:
            lines.append("GROUP BY " + ", ".join(a.group_by))
    if p.returns:
        items = []
        for r in p.returns:
            s = r.var if r.var is not None else X.to_text(r.expr)  # type: ignore[arg-type]
            if r.alias:
                s += f" AS {r.alias}"
            items.append(s)
        lines.append("RETURN " + ", ".join(items))
    return "\n".join(lines) + "\n"
