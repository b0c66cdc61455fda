"""Result formatting shared by ``cep run`` (in-process), ``cep run --spark`` and any
other command that prints matches: ``table``, ``jsonl``, ``csv`` and ``count``.

The JSON Lines form is the public contract of DESIGN.md ("Engine contracts"): one
``Match.to_json()`` per line. This module imports only the standard library, so the
commands that use it start fast.
"""
from __future__ import annotations

import csv
import json
from typing import TYPE_CHECKING, Any, Iterable, TextIO

if TYPE_CHECKING:  # pragma: no cover
    from .matchers.base import Match

__all__ = ["FORMATS", "format_matches", "format_number", "json_default"]

FORMATS = ("table", "jsonl", "csv", "count")


def format_matches(matches: Iterable[Match], fmt: str, out: TextIO, variables: list[str]) -> None:
    """Write ``matches`` to ``out`` in ``fmt`` (one of ``FORMATS``; anything else is ``table``).
    ``variables`` are the pattern's positive variables, the columns of ``csv`` and ``table``."""
    matches = list(matches)
    if fmt == "count":
        out.write(f"{len(matches)}\n")
    elif fmt == "jsonl":
        _write_jsonl(matches, out)
    elif fmt == "csv":
        _write_csv(matches, out, variables)
    else:
        _write_table(matches, out, variables)


def _write_jsonl(matches: list[Match], out: TextIO) -> None:
    for m in matches:
        out.write(json.dumps(m.to_json(), default=json_default) + "\n")


def _write_csv(matches: list[Match], out: TextIO, variables: list[str]) -> None:
    w = csv.writer(out)
    w.writerow(["match", "start", "end", *variables])
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        w.writerow([k, m.start, m.end, *(" ".join(map(str, d.get(v, []))) for v in variables)])


def _write_table(matches: list[Match], out: TextIO, variables: list[str]) -> None:
    rows = [["#", "start", "end", *variables]]
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        rows.append([str(k), format_number(m.start), format_number(m.end),
                     *(",".join(map(str, d.get(v, []))) for v in variables)])
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        out.write("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip() + "\n")
    out.write(f"({len(matches)} match{'es' if len(matches) != 1 else ''})\n")


def format_number(v: Any) -> str:
    """``6.0`` prints as ``6``; everything else as ``str``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def json_default(o: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars via ``.item()``, anything else as text."""
    if hasattr(o, "item"):
        return o.item()
    return str(o)
