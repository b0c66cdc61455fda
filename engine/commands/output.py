"""Result formatting shared by ``cep run`` (in-process), ``cep run --spark`` and any
other command that prints matches: ``table``, ``jsonl``, ``csv`` and ``count``.

The JSON Lines form is the public contract of docs/design.md ("Engine contracts"): one
``Match.to_json()`` per line. This module imports only the standard library, so the
commands that use it start fast.
"""
from __future__ import annotations

import csv
import json
from typing import Any, Iterable, TextIO

from engine.json_text import finite_json, json_default, json_text

from engine.match import Match

__all__ = ["FORMATS", "TABLE_MAX_ROWS", "MatchWriter", "format_matches", "format_number", "json_default",
           "match_json", "json_text", "finite_json"]

FORMATS = ("table", "jsonl", "csv", "count")

#: rows the ``table`` format shows (it lines columns up, so it holds its rows until the
#: end); the matches after them are counted, and the note points to jsonl / csv
TABLE_MAX_ROWS = 10_000


def format_matches(matches: Iterable[Match], fmt: str, out: TextIO, variables: list[str],
                   uncertain: bool = False) -> None:
    """Write ``matches`` to ``out`` in ``fmt`` (one of ``FORMATS``; anything else is ``table``).
    ``variables`` are the pattern's positive variables, the columns of ``csv`` and ``table``.
    ``uncertain``: the matches are (signature, range, confidence) of interval data."""
    w = MatchWriter(fmt, out, variables, uncertain=uncertain)
    for m in matches:
        w.write(m)
    w.close()


class MatchWriter:
    """Writes matches as they are produced: ``jsonl`` and ``csv`` a line per match at once,
    ``count`` the number at ``close()``, ``table`` its first ``table_max_rows`` rows at
    ``close()`` (to line the columns up) and a note with the count of the rest. Memory does
    not grow with the number of matches."""

    def __init__(self, fmt: str, out: TextIO, variables: list[str], table_max_rows: int = TABLE_MAX_ROWS,
                 uncertain: bool = False):
        self.fmt = fmt if fmt in FORMATS else "table"
        # interval data: one row per signature with its range and confidence (engine/engines/uncertain)
        self.uncertain = uncertain
        self.head = ["range_lo", "range_hi", "confidence", "confidence_exact"] if uncertain else ["start", "end"]
        self.out = out
        self.variables = list(variables)
        self.table_max_rows = table_max_rows
        self.count = 0
        self.partial: str | None = None  # the file being written, while it is not final
        self._rows: list[list[str]] = []
        self._csv = None
        if self.fmt == "csv":
            self._csv = csv.writer(out)
            self._csv.writerow(["match", *self.head, *self.variables])

    def write(self, m: Match) -> None:
        self.count += 1
        fmt = self.fmt
        if fmt == "jsonl":
            # a Match may have its JSON text (NFA^b's path matches; None: encode it); a signature or
            # another result with to_json() is encoded
            text = m.json_text() if isinstance(m, Match) else None
            self.out.write((text if text is not None else match_json(m)) + "\n")
        elif fmt == "csv" and self.uncertain:
            d = m.as_dict()
            j = m.to_json()
            self._csv.writerow([self.count, *j["range"], j["confidence"], j["confidence_exact"],  # type: ignore
                                *(" ".join(map(str, d.get(v, []))) for v in self.variables)])
        elif fmt == "table" and self.uncertain and len(self._rows) < self.table_max_rows:
            d = m.as_dict()
            j = m.to_json()
            self._rows.append([str(self.count), f"[{j['range'][0]}, {j['range'][1]}]",
                               f"{j['confidence']:.4f} ({j['confidence_exact']})",
                               *(",".join(map(str, d.get(v, []))) for v in self.variables)])
        elif fmt == "csv":
            d = m.as_dict()
            self._csv.writerow([self.count, m.start, m.end,  # type: ignore[union-attr]
                                *(" ".join(map(str, d.get(v, []))) for v in self.variables)])
        elif fmt == "table" and len(self._rows) < self.table_max_rows:
            d = m.as_dict()
            self._rows.append([str(self.count), format_number(m.start), format_number(m.end),
                               *(",".join(map(str, d.get(v, []))) for v in self.variables)])

    def close(self) -> None:
        """Write what the format writes at the end (``count``; ``table``)."""
        if self.fmt == "count":
            self.out.write(f"{self.count}\n")
        elif self.fmt == "table":
            _write_table(self._rows, self.count, self.out, self.variables,
                         ["range", "confidence"] if self.uncertain else None)
        self.out.flush()


def _write_table(body: list[list[str]], total: int, out: TextIO, variables: list[str],
                 head: list[str] | None = None) -> None:
    rows = [["#", *(head or ["start", "end"]), *variables], *body]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        out.write("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip() + "\n")
    if total > len(body):
        out.write(f"... {total - len(body):,} more not shown: the table shows the first {len(body):,} "
                  f"matches; use --format jsonl (or csv) --out FILE for all of them\n")
    if head:  # interval data: signatures
        out.write(f"({total} signature{'s' if total != 1 else ''})\n")
    else:
        out.write(f"({total} match{'es' if total != 1 else ''})\n")


_JSON_NAMES: dict[str, str] = {}


def match_json(m: Match) -> str:
    """``json.dumps(m.to_json(), default=json_default)``: the match's own ``json_text()``
    where it has one (NFA^b matches read from a path slice it from the path's text); for a
    plain ``Match`` whose start / end are finite numbers, built from the parts: each
    variable's ids are encoded by ``json.dumps`` on the tuple (a tuple encodes as the list
    ``as_dict`` gives) and joined with the separators ``json.dumps`` uses, so the text is
    the same. Anything else goes through ``json.dumps`` whole."""
    if type(m) is not Match:
        text = m.json_text() if isinstance(m, Match) else None
        if text is not None:
            return text
    else:
        s, e = m.start, m.end
        if _plain_number(s) and _plain_number(e):
            parts = []
            for v, ids in m.bindings:
                name = _JSON_NAMES.get(v)
                if name is None:
                    name = _JSON_NAMES[v] = json.dumps(v)
                try:
                    text = _dumps(ids, allow_nan=False)
                except (TypeError, ValueError):
                    text = json_text(ids, "an event id")
                parts.append(f"{name}: {text}")
            return f'{{"match": {{{", ".join(parts)}}}, "start": {s!r}, "end": {e!r}}}'
    return json_text(m.to_json(), "a match")


_dumps = json.dumps


def _plain_number(v: Any) -> bool:
    t = type(v)
    return t is int or (t is float and v - v == 0.0)  # finite


def format_number(v: Any) -> str:
    """``6.0`` prints as ``6``; everything else as ``str``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
