"""The compiled row pattern as an automaton for the Automaton page: a state per ``label``
instruction of the program (the row just labelled with that variable), an initial state and F.
Each edge is a way to go on from a state: ``take`` the next row as a variable (its DEFINE on the
edge) or ``proceed`` to F (the match ends); the edges out of a state are numbered in preference
order (1 is tried first), as the thread matcher tries them. Anchors and exclusions on the way are
written on the edge."""
from __future__ import annotations

from typing import Any

import networkx as nx

from engine.engines.spec import GraphUnavailable
from engine.engines.sql.program import Program, compile_pattern


def automaton_graph(query: Any) -> nx.MultiDiGraph:
    from engine.engines.sql.query import Query

    if not isinstance(query, Query):
        raise GraphUnavailable("this drawing is for MATCH_RECOGNIZE queries")
    program = compile_pattern(query.pattern)  # type: ignore[arg-type]
    return program_graph(program, {v: e.text.strip() for v, e in query.defines.items()})


def moves_from(program: Program, pc: int) -> list[tuple[int | None, list[str]]]:
    """The labels (their pcs; None for the end of the match) reachable from ``pc`` without
    consuming a row, in preference order, each with the anchors passed on the way."""
    code = program.code
    out: list[tuple[int | None, list[str]]] = []
    seen: set[Any] = set()
    stack: list[tuple[int, frozenset[int], tuple[str, ...]]] = [(pc, frozenset(), ())]
    while stack:
        at, started, notes = stack.pop()
        if (at, started, notes) in seen:
            continue
        seen.add((at, started, notes))
        ins = code[at]
        op = ins[0]
        if op == "label":
            out.append((at, list(notes)))
        elif op == "match":
            out.append((None, list(notes)))
        elif op == "split":
            stack.append((ins[2], started, notes))
            stack.append((ins[1], started, notes))
        elif op == "loop":
            body = (ins[1], started | {at}, notes)
            leave = (ins[2], started - {at}, notes)
            stack.extend([leave, body] if ins[3] else [body, leave])
        elif op == "back":
            if ins[1] not in started:
                stack.append((ins[1], started, notes))
        elif op in ("start", "end"):
            note = "at the partition's first row (^)" if op == "start" else "after the partition's last row ($)"
            stack.append((ins[1], started, notes + (note,)))
    return out


def program_graph(program: Program, defines: dict[str, str]) -> nx.MultiDiGraph:
    code = program.code
    g = nx.MultiDiGraph()
    names: dict[int, str] = {}  # label pc -> state name, in the order the walk from the start meets them
    counts: dict[str, int] = {}

    def name_of(pc: int) -> str:
        if pc not in names:
            var = code[pc][1]
            counts[var] = counts.get(var, 0) + 1
            names[pc] = var if counts[var] == 1 else f"{var}#{counts[var]}"
        return names[pc]
    g.add_node("q0", kind="initial", label="start", order=0, alternative=0)
    g.add_node("F", kind="final", label="F", order=None, alternative=0)
    depth = {"q0": 0}
    queue: list[tuple[str, int]] = [("q0", program.entry)]
    done: set[str] = set()
    while queue:
        state, pc = queue.pop(0)
        if state in done:
            continue
        done.add(state)
        for rank, (target, notes) in enumerate(moves_from(program, pc), start=1):
            extra = "; ".join(notes)
            if target is None:
                g.add_edge(state, "F", key=f"end{rank}", kind="proceed", rank=rank, label=f"{rank}. end",
                           formula=f"{rank}. the match ends here" + (f" ({extra})" if extra else ""))
                continue
            ins = code[target]
            var, excluded = ins[1], ins[3]
            name = name_of(target)
            if name not in g:
                depth[name] = depth[state] + 1
                g.add_node(name, kind="state", label=name, order=depth[name], var=var, excluded=excluded)
                queue.append((name, ins[2]))
            cond = defines.get(var, "true (no DEFINE)")
            formula = f"{rank}. take the row as {var} if {cond}" + (f" ({extra})" if extra else "") + \
                (" — excluded from ALL ROWS output" if excluded else "")
            g.add_edge(state, name, key=f"take{rank}", kind="take", var=var, rank=rank, label=f"{rank}. {var}",
                       formula=formula)
    last = max((d for d in depth.values()), default=0)
    g.nodes["F"]["order"] = last + 1
    rows: dict[int, int] = {}
    for n, d in g.nodes(data=True):
        col = d["order"]
        d["alternative"] = rows.get(col, 0)
        rows[col] = rows.get(col, 0) + 1
    if not any(v == "F" for _u, v in g.edges()):
        raise GraphUnavailable("the pattern can never end a match")
    return g
