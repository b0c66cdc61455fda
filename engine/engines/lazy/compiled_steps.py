"""The compiled pieces a lazy runtime walks: per-variable runtime data (filter, slot,
buffer), negation checks, chain steps (a state and its take / iterate edge) and chains (one
DNF clause: steps, then post-processing negative states), with the analysis of which steps'
buffer searches can find anything.

The chain buffers only the variables some state can find something in
(``buffer_searches``): a state entered only right after a take of the stream's newest event
by a variable it must follow cannot.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.engines.lazy.buffers import EventBuffer
from engine.engines.lazy.chain_compiler import NegSpec, PatternInfo, Step
from engine.engines.lazy.conditions import compile_conds
from engine.engines.lazy.instances import Instance
from engine.events import Event


class VariableRuntime:
    """Per-variable runtime data: type, unary filter, slot, buffer (if buffered)."""

    __slots__ = ("name", "type", "slot", "kleene", "negated", "pos", "filter", "buf", "nfilt")

    def __init__(self, name: str, type_: str, slot: int, kleene: bool, negated: bool, pos: int,
                 filt: Callable[[Event], bool] | None, nfilt: int) -> None:
        self.name = name
        self.type = type_
        self.slot = slot
        self.kleene = kleene
        self.negated = negated
        self.pos = pos
        self.filter = filt
        self.nfilt = nfilt
        self.buf: EventBuffer | None = None


class CompiledNegation:
    """A negated variable's check, compiled: the slots bounding its forbidden range (``lo``:
    it must not follow them, ``hi``: nor precede these), whether it is trailing (waits for
    the window to close), its conditions and the variable's runtime (buffer)."""

    __slots__ = ("spec", "var", "slot", "lo", "hi", "trailing", "check", "vrt")

    def __init__(self, spec: NegSpec, info: PatternInfo, vrt: VariableRuntime) -> None:
        self.spec = spec
        self.var = spec.var
        self.slot = info.vars[spec.var].slot
        self.lo = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(spec.lo_vars))
        self.hi = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(spec.hi_vars))
        self.trailing = spec.trailing
        self.check = compile_conds(spec.conds, info)
        self.vrt = vrt


class CompiledStep:
    """A compiled chain step (state q_{k+1} and its take / iterate edge)."""

    __slots__ = ("step", "index", "var", "slot", "kleene", "vrt", "prec", "succ", "stream_ok", "check", "mono",
                 "final", "distinct", "fc", "has_check", "next_after")

    def __init__(self, s: Step, info: PatternInfo, vrt: VariableRuntime, negs: dict[str, VariableRuntime]) -> None:
        self.step = s
        self.index = s.index
        self.var = s.var
        self.slot = vrt.slot
        self.kleene = vrt.kleene
        self.vrt = vrt
        self.prec = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(s.prec))
        self.succ = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(s.succ))
        self.stream_ok = s.stream_ok
        self.check = compile_conds(s.conds, info)
        self.mono = compile_conds([c for c in s.conds if s.var not in c.final], info,
                                  last=s.var if vrt.kleene else None)
        self.final = compile_conds([c for c in s.conds if s.var in c.final], info)
        self.has_check = self.check is not None
        self.distinct = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(s.distinct))
        self.fc = [CompiledNegation(n, info, negs[n.var]) for n in s.fc]
        # the next step's buffer search finds nothing after a take of this step from the
        # stream: the next variable must follow this one, and nothing buffered is newer
        # than the event just taken (it is stored after the takes). Set by CompiledChain.
        self.next_after = False


class CompiledChain:
    """A compiled chain (one clause): steps, then post-processing negative states."""

    __slots__ = ("index", "steps", "n", "pp", "between", "trailing", "plan", "root")

    def __init__(self, index: int, steps: list[CompiledStep], pp: list[CompiledNegation], plan: Any = None) -> None:
        self.index = index
        self.steps = steps
        for i, st in enumerate(steps):
            st.index = i  # position in this plan (a tree's tail starts after the tree variables)
            st.next_after = i + 1 < len(steps) and st.var in steps[i + 1].step.prec
        self.n = len(steps)
        self.pp = pp
        self.between = [n for n in pp if not n.trailing]
        self.trailing = [n for n in pp if n.trailing]
        self.plan = plan
        self.root: Instance | None = None


def buffer_searches(plan: CompiledChain) -> list[bool]:
    """Per step of a chain: can the buffer search on entering it find anything? Not the first
    step (its instance is the root, which only waits), and not a step entered only right after
    a take of the stream's newest event by a step it must follow (``next_after``): nothing
    buffered is newer. Once a step may take from its buffer, every later one may search.
    A variable no step searches needs no buffer (a Kleene variable's own stream iteration
    reads it, so it always has one)."""
    out = []
    may = False
    for k, s in enumerate(plan.steps):
        if k > 0:
            may = may or not plan.steps[k - 1].next_after
        out.append(may)
    return out


def clause_signature(cl: Any) -> Any:
    """What makes two DNF clauses the same automaton (duplicates are compiled once)."""
    return (tuple(cl.vars), cl.absent, tuple(sorted((v, tuple(sorted(b))) for v, b in cl.before.items())),
            tuple((n.var, n.left, n.right) for n in cl.negations), tuple(repr(c.node) for c in cl.conds),
            cl.const_false)


__all__ = ["CompiledChain", "CompiledNegation", "CompiledStep", "VariableRuntime", "buffer_searches",
           "clause_signature"]
