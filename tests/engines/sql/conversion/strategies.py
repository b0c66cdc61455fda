"""Hypothesis strategies of the conversion tests: studio patterns of the convertible shape (as DSL
text), MATCH_RECOGNIZE queries of the shape that reads back (as SQL text), and event rows."""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

TYPES = ["A", "B", "ANY", "ANY"]


@st.composite
def event_rows(draw: Any, max_rows: int = 18) -> list[dict[str, Any]]:
    """Rows id 1.., types A/B, non-decreasing ts (ties included), two symbols, small integers."""
    n = draw(st.integers(0, max_rows))
    rows, ts = [], 0
    for i in range(n):
        ts += draw(st.integers(0, 2))
        rows.append(dict(id=i + 1, type=draw(st.sampled_from("AAB")), ts=ts, symbol=draw(st.sampled_from("st")),
                         price=draw(st.integers(0, 5)), x=draw(st.integers(0, 3))))
    return rows


@st.composite
def studio_patterns(draw: Any) -> str:
    """DSL text of a pattern of the convertible shape (most of them convert; the test filters the rest)."""
    n = draw(st.integers(2, 4))
    comps: list[tuple[str, str, str]] = []
    for k in range(n):
        if k == 0:
            quant = draw(st.sampled_from(["one", "plus"]))
        elif k == n - 1:
            quant = "one"
        else:
            quant = draw(st.sampled_from(["one", "plus", "star", "opt"]))
        comps.append((draw(st.sampled_from(TYPES)), f"v{k}", quant))
    where: list[str] = []
    for k, (_, var, quant) in enumerate(comps):
        kleene = quant in ("plus", "star")
        if draw(st.booleans()):
            where.append(f"{var}.price >= {draw(st.integers(0, 4))}")
        if draw(st.integers(0, 3)) == 0:
            where.append(f"{var}.x != {draw(st.integers(0, 3))}")
        if draw(st.integers(0, 4)) == 0:
            where.append(f"NOT ({var}.price < {draw(st.integers(1, 4))} OR {var}.x = {draw(st.integers(0, 3))})")
        if kleene and draw(st.booleans()):
            where.append(f"{var}[i].price > {var}[i-1].price")
        if kleene and draw(st.integers(0, 3)) == 0:
            where.append(f"{var}[1].x <= 2")
        for j in range(k):
            _, u, uq = comps[j]
            if draw(st.integers(0, 3)) != 0:
                continue
            if uq in ("plus", "star"):
                where.append(draw(st.sampled_from([
                    f"{var}.price < {u}[last].price", f"{var}.x = {u}[1].x", f"sum({u}[].x) > {var}.price",
                    f"{u}.len + {var}.x > 2", f"avg({u}[].price) >= {var}.price"])))
            else:
                where.append(draw(st.sampled_from([f"{var}.x >= {u}.x", f"{var}.price + {u}.price > 5",
                                                   f"{var}.price * 2 / 4 < {u}.price"])))
        if quant == "plus" and k + 1 < n and draw(st.booleans()):
            nxt = comps[k + 1][1]
            where += [f"{var}[i].price > {var}[i-1].price", f"{nxt}.price <= {var}[last].price"]
    body = ", ".join(_component(t, v, q) for t, v, q in comps)
    strategy = draw(st.sampled_from(["strict_contiguity", "partition_contiguity AND [symbol]"]))
    text = f"PATTERN SEQ({body})\nWHERE {strategy}"
    for w in where:
        text += f"\n  AND {w}"
    if draw(st.booleans()):
        text += f"\nWITHIN {draw(st.integers(1, 8))}"
    if draw(st.booleans()):
        text += "\nOUTPUT NON_OVERLAP"
    return text + "\n"


def _component(event_type: str, var: str, quant: str) -> str:
    suffix = {"one": "", "plus": "+", "star": "*", "opt": "?"}[quant]
    return f"{event_type}{suffix} {var}{'[]' if quant in ('plus', 'star') else ''}"


@st.composite
def sql_queries(draw: Any) -> str:
    """A MATCH_RECOGNIZE query written directly (not by to_sql): variables A, B, C ... with +, *, ?,
    {n}, conditions in SQL's own words, the guards, PARTITION BY or none, WITHIN, SKIP."""
    n = draw(st.integers(2, 4))
    names = [chr(ord("P") + k) for k in range(n)]
    quants = []
    for k in range(n):
        if k == n - 1:
            quants.append("")
        elif k == 0:
            quants.append(draw(st.sampled_from(["", "+", "{2}"])))
        else:
            quants.append(draw(st.sampled_from(["", "+", "*", "?", "{2}"])))
    defines = []
    for k, (name, q) in enumerate(zip(names, quants)):
        parts = []
        typ = draw(st.sampled_from(["A", "B", None]))
        if typ:
            parts.append(f"{name}.type = '{typ}'")
        if draw(st.booleans()):
            parts.append(f"{name}.price > {draw(st.integers(0, 4))}")
        if draw(st.integers(0, 4)) == 0:
            parts.append(f"NOT COALESCE({name}.x = {draw(st.integers(0, 3))}, FALSE)")
        if q in ("+", "*") and draw(st.booleans()):
            parts.append(f"(COUNT({name}.*) = 1 OR {name}.price >= LAST({name}.price, 1))")
        if k > 0 and draw(st.booleans()):
            prev, pq = names[k - 1], quants[k - 1]
            cond = draw(st.sampled_from([f"{name}.x <= LAST({prev}.x)", f"{name}.x <> FIRST({prev}.x)",
                                         f"{name}.price < {prev}.price + 1"]))
            if pq in ("*", "?"):
                cond = f"(COUNT({prev}.*) = 0 OR {cond})"
            parts.append(cond)
        if parts:
            defines.append(f"{name} AS " + " AND ".join(parts))
    if not defines:
        defines.append(f"{names[0]} AS TRUE")
    measures = []
    for name, q in zip(names, quants):
        if q in ("+", "*"):
            measures += [f"FIRST({name}.id) AS {name}_first", f"LAST({name}.id) AS {name}_last"]
        elif q == "{2}":
            measures += [f"FIRST({name}.id) AS {name}_1", f"LAST({name}.id) AS {name}_2"]
        else:
            measures.append(f"{name}.id AS {name}")
    partition = draw(st.sampled_from(["", "PARTITION BY symbol "]))
    skip = draw(st.sampled_from(["PAST LAST ROW", "TO NEXT ROW"]))
    within = draw(st.sampled_from(["", f"WITHIN INTERVAL '{draw(st.integers(1, 8))}' SECOND "]))
    pattern = " ".join(n + q for n, q in zip(names, quants))
    return (f"SELECT * FROM events MATCH_RECOGNIZE ({partition}ORDER BY ts MEASURES {', '.join(measures)} "
            f"AFTER MATCH SKIP {skip} PATTERN ({pattern}) {within}DEFINE {', '.join(defines)})")
