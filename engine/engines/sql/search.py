"""Matching a partition row by row (SQL:2016): from the current row, find the preferred match
starting there; none: the row is unmatched, go to the next; a match: report it and go on from
the row AFTER MATCH SKIP names. Shared by the thread matcher and the oracle, which differ only in
how they find the match at one row (``find``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from engine.engines.sql.errors import SqlRunError


@dataclass(frozen=True, slots=True)
class RowMatch:
    """One match in a partition: rows ``start .. start + len(labels) - 1`` with their labels;
    ``excluded[i]`` marks a row inside {- -}. ``number`` is MATCH_NUMBER()."""

    start: int
    labels: tuple[str, ...]
    excluded: tuple[bool, ...]
    number: int

    @property
    def empty(self) -> bool:
        return not self.labels

    @property
    def end(self) -> int:
        """The last row (start - 1 for an empty match)."""
        return self.start + len(self.labels) - 1


Find = Callable[[int, int], "tuple[tuple[str, ...], tuple[bool, ...]] | None"]


def match_partition(n_rows: int, find: Find, after_match: tuple[str, str | None],
                    members: dict[str, frozenset[str]], where: str = "") -> tuple[list[RowMatch], list[int]]:
    """(the matches in order, the unmatched rows) of one partition of ``n_rows`` rows.
    ``find(start, match_number)`` returns (labels, excluded) of the preferred match at ``start``."""
    matches: list[RowMatch] = []
    unmatched: list[int] = []
    covered = -1  # the last row of a match so far
    s = 0
    kind, target = after_match
    while s < n_rows:
        found = find(s, len(matches) + 1)
        if found is None:
            if s > covered:
                unmatched.append(s)
            s += 1
            continue
        labels, excluded = found
        m = RowMatch(s, labels, excluded, len(matches) + 1)
        matches.append(m)
        if m.empty:
            s += 1
            continue
        covered = max(covered, m.end)
        if kind == "past_last":
            s = m.end + 1
        elif kind == "next_row":
            s += 1
        else:
            assert target is not None
            wanted = members[target]
            rows = [s + i for i, v in enumerate(labels) if v in wanted]
            if not rows:
                raise SqlRunError(f"AFTER MATCH SKIP TO {kind.upper()} {target}: match {m.number}{where} (rows "
                                  f"{s + 1}-{m.end + 1}) has no row labelled {target}; SQL:2016 makes this an error")
            nxt = rows[0] if kind == "first" else rows[-1]
            if nxt == s:
                raise SqlRunError(f"AFTER MATCH SKIP TO {kind.upper()} {target}: match {m.number}{where} would "
                                  f"resume at its own first row (row {s + 1}) and match again forever; SQL:2016 "
                                  "makes this an error")
            s = nxt
    return matches, unmatched


def within_ok(time_of: Callable[[int], Any] | None, window: float | None, start: int, row: int) -> bool:
    """WITHIN (strict): the row may join a match that began at ``start`` iff time(row) - time(start) < W."""
    if window is None or time_of is None:
        return True
    a, b = time_of(start), time_of(row)
    if a is None or b is None:
        return False
    d = b - a
    if hasattr(d, "total_seconds"):
        d = d.total_seconds()
    return d < window
