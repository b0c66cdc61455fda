"""NFA^b's shared versioned match buffer (SASE+ §4.9, "split-path Dewey") and the members of
a merged run (§4.10).

The buffer has one stack per state; an :class:`Entry` is (state, event) with predecessor
pointers labelled by the Dewey version of the run that wrote them. A match is read back by
following, from the final entry, the pointer whose label is the longest prefix of the run's
version (:meth:`Entry.follow`). A run merged into another keeps, as a :class:`Member` of the
representative, its start and the entries where its own version path takes over.
"""
from __future__ import annotations

from typing import Any

from engine.events import Event
from engine.engines.nfab.paths import PathIds

__all__ = ["Entry", "Member", "Members", "NARROW_ENTRY"]

# An entry with at most this many pointers is searched by a scan (``Entry.follow``); a wider
# one through a dict of its pointers by label.
NARROW_ENTRY = 8


class Entry:
    """A shared-buffer entry: an event in the stack of a state, with labelled pointers.

    ``pointers``: (label, predecessor entry) per run that wrote it, the label being that
    run's version; ``writers``: the runs that wrote it in the current step (for merging, only
    while merging is on); ``index``: label -> predecessor, built for wide entries."""

    __slots__ = ("chain", "state", "event", "pointers", "writers", "index")

    def __init__(self, chain: int, state: int, event: Event):
        self.chain = chain
        self.state = state
        self.event = event
        self.pointers: list[tuple[tuple[int, ...], Entry | None]] = []
        self.writers: list[Any] | None = None  # the Runs (engine.engines.nfab.runs) of this step
        self.index: dict[tuple[int, ...], Entry | None] | None = None  # label -> predecessor, for wide entries

    def follow(self, label: tuple[int, ...]) -> "Entry | None":
        """The predecessor whose pointer label is the longest prefix of ``label``.

        Two ways to one answer (tests/engines/nfab/test_paths.py checks them against a brute-force
        search): up to NARROW_ENTRY pointers a scan of them, beyond it a look-up of each
        prefix of ``label`` in ``index`` (kept up to date by the matcher's write)."""
        pointers = self.pointers
        if len(pointers) <= NARROW_ENTRY:
            best, best_length = None, -1
            for pointer_label, predecessor in pointers:
                n = len(pointer_label)
                if n > best_length and label[:n] == pointer_label:
                    best, best_length = predecessor, n
            if best_length < 0:
                raise AssertionError(f"no compatible pointer at {self!r} for version {label}")
            return best
        index = self.index
        if index is None or len(index) != len(pointers):
            index = self.index = dict(pointers)
        for n in range(len(label), 0, -1):
            key = label[:n]
            if key in index:
                return index[key]
        raise AssertionError(f"no compatible pointer at {self!r} for version {label}")

    def __repr__(self) -> str:
        return f"Entry({self.state}:{self.event!r})"


class Member:
    """A run merged into another: its start and where its own version path takes over.

    ``cut`` is the depth of the newest switch entry on the representative's path (entries
    from the oldest up to it): the member's match is its own older part (``tail``, read
    back once and kept) and the representative's path after ``cut``."""

    __slots__ = ("start", "start_seq", "switches", "cut", "tail")

    def __init__(self, start: float, start_seq: int, switches: tuple[tuple[Entry, tuple[int, ...]], ...],
                 cut: int = 0):
        self.start = start
        self.start_seq = start_seq
        self.switches = switches
        self.cut = cut
        self.tail: PathIds | None = None


class Members(list):
    """The members of a merged run, with the earliest start among them (``earliest_start``):
    while it is inside the window, every member is, and the window filter is skipped."""

    __slots__ = ("earliest_start",)

    def __init__(self, items: Any = (), earliest_start: float | None = None) -> None:
        super().__init__(items)
        self.earliest_start = (earliest_start if earliest_start is not None
                               else min((m.start for m in self), default=float("inf")))
