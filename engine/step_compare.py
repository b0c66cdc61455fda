"""Two runs over the same events, step by step: where do they first differ?

Side-by-side stepping (the Debug page) runs one stream twice — two selection strategies of
one pattern, or two engines — and wants the first *diverging step*: the first step where the
two emit different matches or keep a different number of live runs (partial matches). This
module is pure: it reads steps (``engine.trace.Step``) or two
``engine.checkpoints.CheckpointedRun`` s and returns per-step summaries and the divergence.

Matches are compared by identity (their bindings, variable -> event ids), as a multiset per
step, over the whole run from the runs' pre-passes (no tracing). Live runs are only known
from traced steps, so they are compared over the first ``limit`` steps (traced a chunk at a
time); :class:`Comparison` says how far that went.

Step indices are 0-based; ``len(events)`` is the close step (people read ``event #k+1``).
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

from engine.trace import Step

__all__ = ["StepSummary", "Divergence", "Comparison", "summarize", "first_divergence", "first_match_divergence",
           "compare", "match_identity", "STEP_LIMIT"]

STEP_LIMIT = 5_000      # steps traced on each side to compare the live runs (matches: the whole run), at most
TRACE_SECONDS = 3.0     # and for about this long (a busy run traces slowly: fewer steps then)
TRACE_CHUNK = 100       # steps traced at a time (each side in turn)
MAX_IDENTITIES = 100_000  # matches compared by identity; beyond, the number per step


def match_identity(m: dict[str, Any]) -> str:
    """A match's identity as text: its bindings (``cep run --format jsonl``'s ``match``;
    an aggregate row, which has none, as a whole), keys sorted."""
    return json.dumps(m.get("match", m), sort_keys=True, default=str)


@dataclass(frozen=True)
class StepSummary:
    """What one side did on one step: the live runs after it, the matches it emitted (and
    their identities, sorted), the matches so far and its actions counted by kind."""

    step: int
    runs: int
    emitted: int
    so_far: int
    matches: tuple[str, ...] = ()
    actions: tuple[tuple[str, int], ...] = ()

    def action_counts(self) -> dict[str, int]:
        return dict(self.actions)


def summarize(steps: Iterable[Step], start: int = 0, so_far: int = 0) -> list[StepSummary]:
    """One :class:`StepSummary` per step; ``start`` is the index of the first step (the close
    step, named ``"close"``, gets the next index) and ``so_far`` the matches emitted before it."""
    out: list[StepSummary] = []
    k = start
    for s in steps:
        index = s.step if isinstance(s.step, int) else k
        so_far += len(s.matches)
        kinds = Counter(a.kind for a in s.actions)
        out.append(StepSummary(step=index, runs=int(s.runs_total), emitted=len(s.matches), so_far=so_far,
                               matches=tuple(sorted(match_identity(m) for m in s.matches)),
                               actions=tuple(sorted(kinds.items()))))
        k = index + 1
    return out


@dataclass(frozen=True)
class Divergence:
    """The first step where two sides differ; ``what`` is ``"matches"``, ``"runs"`` or
    ``"matches and runs"``; ``a`` / ``b``: the two sides' summaries of that step (None when
    only the matches are known there, beyond the traced steps)."""

    step: int
    what: str
    a: StepSummary | None = None
    b: StepSummary | None = None

    def text(self, name_a: str = "A", name_b: str = "B") -> str:
        """Plain words: what differs at the step."""
        parts = []
        if self.a is not None and self.b is not None:
            if self.a.matches != self.b.matches:
                parts.append(f"{name_a} emits {self.a.emitted} match(es), {name_b} {self.b.emitted}"
                             + (" (different ones)" if self.a.emitted == self.b.emitted else ""))
            if self.a.runs != self.b.runs:
                parts.append(f"{name_a} keeps {self.a.runs} live run(s), {name_b} {self.b.runs}")
        else:
            parts.append("the two emit different matches")
        return "; ".join(parts)


def first_divergence(a: Sequence[StepSummary], b: Sequence[StepSummary]) -> Divergence | None:
    """The first step (of the steps both sequences hold) where the emitted matches or the live
    runs differ; None when they agree on all of them."""
    for x, y in zip(a, b):
        runs = x.runs != y.runs
        matches = x.matches != y.matches
        if runs or matches:
            what = "matches and runs" if runs and matches else ("runs" if runs else "matches")
            return Divergence(step=x.step, what=what, a=x, b=y)
    return None


def _groups(run: Any) -> Iterator[tuple[int, list[Any]]]:
    """``(step, the matches it emitted)`` for every step that emitted any, in step order."""
    matches = run.matches
    i = 0
    while i < len(matches):
        k = matches[i].step
        j = i
        while j < len(matches) and matches[j].step == k:
            j += 1
        yield k, matches[i:j]
        i = j


def first_match_divergence(run_a: Any, run_b: Any, identities: int = MAX_IDENTITIES) -> int | None:
    """The first step where two runs (``CheckpointedRun`` s over the same events) emit
    different matches (as multisets of identities), read from their pre-passes: no tracing.
    None when every step emits the same matches. Steps are walked in order and stop at the
    first difference; past ``identities`` matches compared by identity, only the number of
    matches per step is compared (a match's identity costs its conversion to JSON)."""
    end = object()
    ga, gb = _groups(run_a), _groups(run_b)
    xa, xb = next(ga, end), next(gb, end)
    compared = 0
    while xa is not end or xb is not end:
        if xa is end or xb is end or xa[0] != xb[0]:
            # one side emits at a step where the other emits nothing
            return min(x[0] for x in (xa, xb) if x is not end)  # type: ignore[index]
        k, ma = xa  # type: ignore[misc]
        mb = xb[1]  # type: ignore[index]
        if len(ma) != len(mb):
            return k
        if compared < identities:
            compared += len(ma)
            if Counter(match_identity(m.match) for m in ma) != Counter(match_identity(m.match) for m in mb):
                return k
        xa, xb = next(ga, end), next(gb, end)
    return None


@dataclass
class Comparison:
    """Two runs compared: ``a`` / ``b`` the per-step summaries of the first ``traced`` steps,
    ``divergence`` the first diverging step (matches over the whole run, live runs over the
    traced steps), ``first_matches`` / ``first_runs`` the first step where each differs (None:
    not within what was compared), ``complete`` True when every step was traced."""

    a: list[StepSummary]
    b: list[StepSummary]
    total_steps: int
    divergence: Divergence | None
    first_matches: int | None
    first_runs: int | None
    complete: bool
    notes: list[str] = field(default_factory=list)

    @property
    def traced(self) -> int:
        return len(self.a)


def _summaries(run_a: Any, run_b: Any, stop: int, seconds: float | None) -> tuple[list[StepSummary], list[StepSummary]]:
    """Both sides' summaries of steps ``0 .. stop-1``, a chunk of each in turn, until ``stop``
    or until ``seconds`` have passed (then both hold the same number of steps)."""
    a: list[StepSummary] = []
    b: list[StepSummary] = []
    t0 = time.perf_counter()
    for lo in range(0, stop, TRACE_CHUNK):
        hi = min(stop, lo + TRACE_CHUNK)
        for run, out in ((run_a, a), (run_b, b)):
            out.extend(summarize(run.steps(lo, hi), start=lo, so_far=out[-1].so_far if out else 0))
        if seconds is not None and time.perf_counter() - t0 > seconds:
            break
    return a, b


def compare(run_a: Any, run_b: Any, limit: int = STEP_LIMIT, seconds: float | None = TRACE_SECONDS) -> Comparison:
    """Compare two ``CheckpointedRun`` s over the same events: the first ``limit`` steps of
    each traced and summarized (fewer when tracing them takes more than about ``seconds``;
    None: no time limit), the matches compared over the whole run."""
    if len(run_a.events) != len(run_b.events):
        raise ValueError("the two runs are over different streams")
    total = run_a.total_steps
    stop = min(total, max(0, limit))
    a, b = _summaries(run_a, run_b, stop, seconds)
    first_matches = first_match_divergence(run_a, run_b)
    first_runs = next((x.step for x, y in zip(a, b) if x.runs != y.runs), None)
    traced = first_divergence(a, b)
    divergence = traced
    if traced is None and first_matches is not None:
        divergence = Divergence(step=first_matches, what="matches")
    return Comparison(a=a, b=b, total_steps=total, divergence=divergence, first_matches=first_matches,
                      first_runs=first_runs, complete=len(a) >= total)
