"""The query result over imprecise timestamps: ``(signature, range, confidence)`` triples
(imprecise-timestamps notes §1.4, "Match collapsing").

:class:`UncertainMatch` is a :class:`engine.match.Match` (bindings, first/last
instant of the range, first/last stream position) with the ``range`` ``[min t_1, max t_l]``
over the signature's point matches of positive probability and the exact ``confidence``
(the probability mass of the worlds in which the signature is a match). Its JSON Lines form
is ``{"match": {var: [ids]}, "range": [lo, hi], "confidence": float, "confidence_exact": "n/d"}``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

from engine.events.numbers import int_text
from engine.match import Match
from engine.engines.uncertain.pmf import IEvent

__all__ = ["UncertainMatch", "make_umatch", "sort_uncertain", "as_table", "exact_text"]


@dataclass(frozen=True, slots=True)
class UncertainMatch(Match):
    """A signature with its range and exact confidence."""

    range: tuple[int, int] = (0, 0)
    confidence: Fraction = Fraction(0)

    def to_json(self) -> dict[str, Any]:
        return {"match": self.as_dict(), "range": [self.range[0], self.range[1]],
                "confidence": float(self.confidence), "confidence_exact": exact_text(self.confidence)}

    @property
    def signature(self) -> tuple[Any, ...]:
        """The event ids in component order."""
        return tuple(ids[0] for _, ids in self.bindings)


def exact_text(c: Fraction) -> str:
    """``n/d`` (``1`` -> ``1/1``, so that the form is always the same), every digit of both
    whatever their size (``int_text``: no process-wide int-to-text limit is changed)."""
    return f"{int_text(c.numerator)}/{int_text(c.denominator)}"


def make_umatch(variables: Sequence[str], members: Sequence[IEvent], rng: tuple[int, int],
                confidence: Fraction) -> UncertainMatch:
    seqs = [m.ev.seq for m in members]
    return UncertainMatch(bindings=tuple((v, (m.ev.id,)) for v, m in zip(variables, members)),
                          start=rng[0], end=rng[1], start_seq=min(seqs), end_seq=max(seqs),
                          range=(int(rng[0]), int(rng[1])), confidence=confidence)


def sort_uncertain(ms: Iterable[UncertainMatch]) -> list[UncertainMatch]:
    """A canonical order independent of the engine: by range, then stream positions, then ids."""
    return sorted(ms, key=lambda m: (m.range, m.start_seq, m.end_seq, repr(m.bindings)))


def as_table(ms: Iterable[Match]) -> dict[tuple[Any, ...], tuple[tuple[int, int], Fraction]]:
    """signature -> (range, confidence): the form the tests compare."""
    out = {}
    for m in ms:
        assert isinstance(m, UncertainMatch)
        out[m.signature] = (m.range, m.confidence)
    return out
