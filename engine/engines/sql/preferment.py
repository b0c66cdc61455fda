"""Preferment made visible: from a start row, the candidate labellings of the rows in SQL:2016's
preferment order, each with where it fails (the first row whose DEFINE is false, or the anchor or
window it breaks) or that it is the match. For teaching (the Learn page) and explanations; small
inputs only (``limit`` candidates)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.engines.sql import values as V
from engine.engines.sql.binding import BoundQuery
from engine.engines.sql.frame import Frame
from engine.engines.sql.oracle import OracleMatcher


@dataclass(frozen=True)
class Candidate:
    rank: int                      # 1: the most preferred
    labels: tuple[str, ...]        # the labels it gives rows start, start+1, ...
    failed_at: int | None          # the first row (index in the partition) whose DEFINE fails; None: all hold
    reason: str                    # why it fails, or "the match"


class _Unchecked(OracleMatcher):
    """The oracle's enumeration without DEFINE (every row accepted while rows last): the order
    of all candidates."""

    def accepts(self, var: str, state: Any) -> bool:
        pos = state[0]
        return pos < len(self.rows)


def candidates(bound: BoundQuery, rows: list[dict[str, Any]], start: int, limit: int = 50) -> list[Candidate]:
    """Up to ``limit`` candidates from ``start`` in preferment order, up to and including the match."""
    enum = _Unchecked(bound)
    enum.bind_partition(rows)
    enum.start, enum.number = start, 1
    out: list[Candidate] = []
    seen: set[tuple[str, ...]] = set()
    for _pos, labels, _excl in enum.gen(bound.query.pattern, (start, (), ()), False):  # type: ignore[arg-type]
        if labels in seen:
            continue  # the same labelling by another path: tried once
        seen.add(labels)
        failed, reason = _check(bound, rows, start, labels)
        out.append(Candidate(len(out) + 1, labels, failed, reason))
        if failed is None or len(out) >= limit:
            break
    return out


def _check(bound: BoundQuery, rows: list[dict[str, Any]], start: int, labels: tuple[str, ...]) -> tuple[int | None, str]:
    window = bound.query.within[0] if bound.query.within else None
    for i, var in enumerate(labels):
        row = start + i
        if window is not None:
            a, b = rows[start][bound.time_column], rows[row][bound.time_column]  # type: ignore[index]
            d = b - a
            d = d.total_seconds() if hasattr(d, "total_seconds") else d
            if not d < window:
                return row, f"row {row + 1} is outside WITHIN ({d} ≥ {window})"
        cond = bound.defines.get(var)
        if cond is None:
            continue
        frame = Frame(rows, start, list(labels[:i + 1]))
        try:
            ok = V.truth(cond(frame))
        except V.SqlValueError as err:
            return row, f"DEFINE {var} on row {row + 1}: {err}"
        if ok is not True:
            return row, f"DEFINE {var} is {'NULL' if ok is None else 'false'} on row {row + 1}: {cond.__doc__}"
    return None, "the match"
