"""``cep explain QUERY.sql --why-not ROWS``: why no match starts at (or covers) these rows of a
MATCH_RECOGNIZE query, read from the thread matcher's trace (engine/engines/sql/trace.py).

``ROWS`` are input row numbers (1-based, file order): ``3-5``, ``3,4,5`` or a mix ``1,3-5``.
For each row, in order:

- ``match``: a match starts there (its number, rows and labels; when ROWS are not exactly its
  rows, the preferred match from that row covers others, and the threads that ended elsewhere);
- ``no_match``: a search started there and found nothing: every thread of the search, how far
  it got, and what ended it (the DEFINE that refused which row, with the values it read; the
  end of the partition; WITHIN; an anchor; a merge into a preferred thread);
- ``skipped``: no search started there: AFTER MATCH SKIP after match K jumped past the row
  (and the row's label in that match when it lies inside it);
- ``covered`` is added to any verdict when the row lies in a match (which one, as which label)."""
from __future__ import annotations

from typing import Any

from engine.explain.common import ExplainError
from engine.explain.sql_match import SearchView, numbered_matches, row_name

MAX_ROWS = 200


def parse_rows(spec: str) -> list[int]:
    """``3-5`` / ``3,4,5`` / ``1,3-5`` -> row numbers, in order, without repeats."""
    out: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise ExplainError(f"--why-not {spec!r}: {part!r} is not a row number or a range a-b "
                               "(rows are 1-based input rows: 3-5 or 3,4,5)") from None
        if a < 1 or b < a:
            raise ExplainError(f"--why-not {spec!r}: {part!r} is not a range of rows (1-based, low-high)")
        if b - a + len(out) > MAX_ROWS:
            raise ExplainError(f"--why-not {spec!r}: more than {MAX_ROWS} rows; ask about fewer")
        out.extend(r for r in range(a, b + 1) if r not in out)
    if not out:
        raise ExplainError("--why-not: give rows, e.g. 3-5 or 3,4,5")
    return out


def explain_sql_why_not(trace: Any, spec: str, n_rows: int) -> dict[str, Any]:
    rows = parse_rows(spec)
    bad = [r for r in rows if r > n_rows]
    if bad:
        raise ExplainError(f"--why-not: the table has {n_rows} row{'s' if n_rows != 1 else ''}; no row {bad[0]}")
    found = numbered_matches(trace)
    searched = {a.detail["search"]: a for s in trace.steps for a in s.actions if a.kind == "search"}
    answers = [_row(trace, r, found, searched, rows) for r in rows]
    exact = next((k for k, a in found if a.detail["match"]["rows"] == rows), None)
    result = {"verdict": "match" if exact else "no_match", "engine": trace.engine, "rows": rows,
              "answers": answers}
    if exact:
        result["index"] = exact
    result["text"] = (f"rows {spec} are exactly match {exact}" if exact else
                      f"no match is exactly rows {','.join(map(str, rows))}")
    return result


def _row(trace: Any, r: int, found: list[tuple[int, Any]], searched: dict[int, Any],
         asked: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"row": r, "name": row_name(trace, r)}
    cover = [(k, a) for k, a in found if r in a.detail["match"]["rows"]]
    if cover:
        out["covered"] = [{"index": k, "label": a.detail["match"]["labels"][a.detail["match"]["rows"].index(r)],
                           "rows": a.detail["match"]["rows"]} for k, a in cover]
    starts = next(((k, a) for k, a in found if a.detail["search"] == r), None)
    if starts is not None:
        k, a = starts
        m = a.detail["match"]
        out.update(verdict="match", index=k, labels=m["labels"], rows=m["rows"])
        view = SearchView(trace.steps, r)
        if m["rows"] != [x for x in asked if x >= r]:
            out["others"] = _threads(view, exclude=a.run)
            out["text"] = (f"match {k} starts at row {r}: {_span(m['rows'], r)} {' '.join(m['labels']) or '()'}; "
                           "it is the preferred labelling from this row, so other labellings (below) are not matches")
        else:
            out["text"] = f"match {k} starts at row {r}: {_span(m['rows'], r)} {' '.join(m['labels'])}"
        return out
    if r in searched:
        view = SearchView(trace.steps, r)
        out.update(verdict="no_match", threads=_threads(view))
        out["text"] = f"the search from row {r} found no match: " + (
            "; ".join(f"thread {t['thread']} ({' '.join(t['labels']) or 'nothing'}): {t['fate']['text']}"
                      for t in out["threads"]) or "no thread")
        return out
    skip = _skip_past(trace, r, found)
    out["verdict"] = "skipped"
    if skip is not None:
        k, act, m = skip
        out.update(index=k, skip=act.reason)
        out["text"] = f"no search starts at row {r}: after match {k} ({_span(m['rows'], m['start'])}), {act.reason}"
    else:
        out["text"] = f"no search starts at row {r}"
    if cover:
        c = out["covered"][0]
        out["text"] += f"; row {r} is {c['label']} in match {c['index']}"
    return out


def _threads(view: SearchView, exclude: str | None = None) -> list[dict[str, Any]]:
    out = []
    for tid in view.order:
        if tid == exclude:
            continue
        out.append({"thread": tid, "from": view.parents.get(tid), **view.furthest(tid), "fate": view.fate(tid)})
    return out


def _skip_past(trace: Any, r: int, found: list[tuple[int, Any]]) -> tuple[int, Any, dict[str, Any]] | None:
    """The AFTER MATCH SKIP that jumped past row ``r``: (match index, the skip action, the match)."""
    number = {id(a): k for k, a in found}
    last = None
    for s in trace.steps:
        for a in s.actions:
            if a.kind == "match":
                last = (number[id(a)], a.detail["match"])
            elif a.kind == "proceed" and r in a.detail.get("skipped", []) and last is not None:
                return last[0], a, last[1]
    return None


def _span(rows: list[int], start: int) -> str:
    if not rows:
        return f"an empty match at row {start}"
    return f"row {rows[0]}" if len(rows) == 1 else f"rows {rows[0]}-{rows[-1]}"


def format_sql_why_not(result: dict[str, Any]) -> str:
    from engine.explain.text import _num

    out = [f"why not rows {','.join(map(str, result['rows']))} (engine {result['engine']}): {result['text']}"]
    for a in result["answers"]:
        out.append(f"  {a.get('name') or 'row ' + str(a['row'])} [{a['verdict']}]: {a['text']}")
        for t in a.get("threads", a.get("others", [])):
            f = t["fate"]
            got = " ".join(t["labels"]) or "nothing"
            out.append(f"    thread {t['thread']} ({got}" + (f" on rows {','.join(map(str, t['rows']))}" if t["rows"]
                                                            else "") + f"): {f['text']}")
            for p in f.get("predicates", []):
                vals = ", ".join(f"{k}={_num(v)}" for k, v in p["values"].items())
                out.append(f"      {'✓' if p['result'] else '✗'} {p['text']}" + (f"    ({vals})" if vals else ""))
    return "\n".join(out) + "\n"


__all__ = ["explain_sql_why_not", "format_sql_why_not", "parse_rows"]
