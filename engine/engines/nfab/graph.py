"""NFA^b's automaton as the Automaton page draws it: the compiled NFA^b exported to networkx
with the optimised formulas, and windows written as the pattern writes them (``12 hours``)."""
from __future__ import annotations

import re
from typing import Any

from engine.engines.spec import GraphUnavailable
from engine.model import Pattern


def automaton_graph(pattern: Pattern) -> Any:
    """NFA^b for ``pattern`` as a ``networkx.MultiDiGraph``; GraphUnavailable says why not."""
    from engine.engines.nfab.compiler import compile_pattern, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise GraphUnavailable(f"NFA^b cannot compile this pattern: {why}")
    g = compile_pattern(pattern).to_networkx(optimised=True)
    w = pattern.window
    if w is not None and w.unit in ("hour", "day") and w.value != 1:  # the compiler writes `12 hour`
        raw, nice = f"< {w.value:g} {w.unit}", f"< {w.value:g} {w.unit}s"
        for _u, _v, d in g.edges(data=True):
            for k in ("formula", "formula_optimised", "label"):
                if isinstance(d.get(k), str):
                    d[k] = re.sub(re.escape(raw) + r"(?!s)", nice, d[k])
    return g
