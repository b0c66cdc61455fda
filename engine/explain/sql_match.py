"""``cep explain QUERY.sql --match K``: why the K-th match of a MATCH_RECOGNIZE query is what it
is, read from the thread matcher's trace (engine/engines/sql/trace.py).

For each row of the match: its label and the DEFINE that accepted it with the values it read,
and what the other threads of the same search did with that row (another label accepted or
refused, by a more or a less preferred thread). Then every other thread of the search: how far
it got and how it ended (a DEFINE refused a row, the partition ended, WITHIN, an anchor, merged
into a preferred thread, cut by the match), and whether it was preferred over the match (and
failed) or the match was preferred over it. K counts the matches in the order the engine finds
them: partitions in order of first appearance, then MATCH_NUMBER (``cep run``'s order when the
query has no ORDER BY of its own)."""
from __future__ import annotations

from typing import Any

from engine.explain.common import ExplainError

TERMINAL = ("discard", "expire", "merge", "wait")


class SearchView:
    """The actions of one search (the search from one row), by thread."""

    def __init__(self, steps: list[Any], search: int):
        self.search = search
        self.actions: list[Any] = []
        self.row_of: dict[int, dict[str, Any]] = {}
        for s in steps:
            for a in s.actions:
                if (a.detail or {}).get("search") == search:
                    self.actions.append(a)
            if s.event is not None:
                self.row_of.setdefault(s.event["id"], s.event)
        self.parents: dict[str, str] = {}
        self.order: list[str] = []
        for a in self.actions:
            if a.run is not None and a.run not in self.order and a.kind != "match":
                self.order.append(a.run)
            if "from" in a.detail and a.run is not None:
                self.parents[a.run] = a.detail["from"]

    def result(self) -> Any:
        return next((a for a in self.actions if a.kind in ("match", "ignore")), None)

    def skip(self) -> Any:
        return next((a for a in self.actions if a.kind == "proceed"), None)

    def completion(self, thread: str) -> Any:
        return next((a for a in self.actions if a.kind == "wait" and a.run == thread), None)

    def fate(self, thread: str) -> dict[str, Any]:
        """How a thread ended: ``died`` (a DEFINE refused a row), ``end`` (the partition ended),
        ``anchor``, ``expired`` (WITHIN), ``merged``, ``cut``, ``completed``."""
        last = None
        for a in self.actions:
            if a.run == thread and a.kind in TERMINAL:
                last = a
        if last is None:
            return {"kind": "alive", "text": "still alive when the search ended"}
        d = last.detail
        out: dict[str, Any] = {"text": last.reason, "labels": d.get("labels", []), "rows": d.get("rows", [])}
        if last.kind == "merge":
            out.update(kind="merged", into=d.get("into"))
        elif last.kind == "expire":
            out.update(kind="expired", row=last.event)
        elif last.kind == "wait":
            out.update(kind="completed", text=(last.reason or "").split(";")[0].split(": no more")[0])
        elif last.edge == "cut":
            out.update(kind="cut", by=d.get("by"))
        elif last.event is None and "waits_for" in d:
            out.update(kind="end", waits_for=d["waits_for"])
        elif last.predicates:
            out.update(kind="died", row=last.event, label=d.get("tried"), result=d.get("result"))
        else:
            out.update(kind="anchor")
        if last.predicates:
            out["predicates"] = [p.to_json() for p in last.predicates]
        return out

    def descends(self, thread: str, ancestors: set[str]) -> bool:
        while thread is not None:
            if thread in ancestors:
                return True
            thread = self.parents.get(thread)  # type: ignore[assignment]
        return False

    def furthest(self, thread: str) -> dict[str, Any]:
        """The labels a thread reached (its last take)."""
        labels: list[str] = []
        rows: list[int] = []
        for a in self.actions:
            if a.run == thread and a.kind in ("take", "wait", "discard", "merge", "expire", "begin"):
                d = a.detail
                if len(d.get("labels", [])) >= len(labels):
                    labels, rows = d.get("labels", []), d.get("rows", [])
        return {"labels": labels, "rows": rows}


def match_actions(steps: list[Any]) -> list[Any]:
    return [a for s in steps for a in s.actions if a.kind == "match"]


def numbered_matches(trace: Any) -> list[tuple[int, Any]]:
    """(K, the match action) for every match the trace holds: K counts every match of the run
    (``cep run``'s order), also in a window of the trace (engine/engines/sql/trace_window.py)."""
    found = match_actions(trace.steps)
    index = getattr(trace, "index", None)
    if index is None:
        return list(enumerate(found, 1))
    return [(index.match_of[index.search_at(a.detail["search"])] + 1, a) for a in found]


def row_name(trace: Any, row: int) -> str:
    """``row #812 (id 4711)``: the trace's name of an input row."""
    label = getattr(trace, "label", None)
    return label(row) if label is not None else f"row #{row:,}"


def explain_sql_match(trace: Any, k: int) -> dict[str, Any]:
    """The answer for match ``k`` (1-based) of a :class:`~engine.engines.sql.trace.SqlTrace`: the
    whole trace, or a window holding match ``k``'s search."""
    total = len(trace.matches)
    if not total:
        raise ExplainError("the query finds no match on this data: ask --why-not ROWS instead")
    if k < 1 or k > total:
        raise ExplainError(f"--match {k}: there {'is' if total == 1 else 'are'} {total:,} "
                           f"match{'es' if total != 1 else ''} (1..{total:,})")
    act = next((a for n, a in numbered_matches(trace) if n == k), None)
    if act is None:
        raise ExplainError(f"--match {k}: its search is not in the traced window; trace the window around it")
    d = act.detail
    view = SearchView(trace.steps, d["search"])
    winner = act.run
    m = d["match"]
    rows = []
    for st in d.get("steps", []):
        row = {"row": st["row"], "name": row_name(trace, st["row"]), "label": st["label"], "define": st["define"],
               "values": st["values"],
               "result": st["result"], "others": _others(view, m["labels"], m["rows"], len(rows))}
        rows.append(row)
    done = view.completion(winner) if winner is not None else None
    more = set(done.detail.get("more_preferred", [])) if done is not None else set()
    threads = []
    for tid in view.order:
        if tid == winner:
            continue
        fate = view.fate(tid)
        reach = view.furthest(tid)
        if tid in d.get("superseded", []):
            relation = "less preferred: it completed a match first, and the match, more preferred, completed later"
        elif fate["kind"] == "cut" or tid in d.get("preferred_over", []):
            relation = "less preferred: cut when the match completed"
        elif fate["kind"] == "merged":
            relation = f"less preferred than thread {fate.get('into')}, in the same state"
        elif view.descends(tid, more) or _relation(view, tid, m["labels"], m["rows"]) == "more":
            relation = "more preferred than the match, but it failed"
        elif _relation(view, tid, m["labels"], m["rows"]) == "less":
            relation = "less preferred than the match, and it failed"
        else:
            relation = "failed before the match completed"
        threads.append({"thread": tid, "from": view.parents.get(tid), **reach, "relation": relation, "fate": fate})
    skip = view.skip()
    result = {"verdict": "match", "index": k, "engine": trace.engine, "number": m["number"],
              "match": m["match"], "labels": m["labels"], "rows_matched": m["rows"], "start": m["start"],
              "end": m["end"], "start_name": row_name(trace, m["start"]), "thread": winner, "rows": rows,
              "threads": threads,
              "skip": skip.reason if skip is not None else None}
    if "partition" in m:
        result["partition"] = m["partition"]
    result["text"] = _summary(result)
    return result


def _others(view: SearchView, labels: list[str], rows: list[int], i: int) -> list[dict[str, Any]]:
    """What the other threads of the search did with row ``rows[i]``: the label they tried,
    accepted or refused, and whether they were more or less preferred than the match's line
    (the thread whose take of that row carries the match's labels so far)."""
    row = rows[i]
    mine = _line_take(view, labels, rows, i)
    rank = mine.detail.get("rank") if mine is not None else None
    out = []
    for a in view.actions:
        if a is mine or a.event != row or a.kind not in ("take", "discard") or not a.predicates:
            continue
        tried = a.to if a.kind == "take" else a.detail.get("tried")
        other = a.detail.get("rank")
        pref = None if rank is None or other is None else ("more" if other < rank else "less")
        out.append({"thread": a.run, "label": tried, "accepted": a.kind == "take", "preferred": pref,
                    "labels": a.detail.get("labels", []), "predicate": a.predicates[0].to_json(),
                    "fate": view.fate(a.run)["text"] if a.kind == "take" else a.reason})
    return out


def _line_take(view: SearchView, labels: list[str], rows: list[int], i: int) -> Any:
    """The take of ``rows[i]`` on the match's line: the labels so far are the match's."""
    for a in view.actions:
        if a.kind == "take" and a.event == rows[i] and a.detail.get("labels") == labels[:i + 1] \
                and a.detail.get("rows") == rows[:i + 1]:
            return a
    return None


def _relation(view: SearchView, tid: str, labels: list[str], rows: list[int]) -> str | None:
    """More or less preferred than the match, from the ranks at the last row the thread tried
    (both ranks come from the same preference-ordered list of threads)."""
    last = None
    for a in view.actions:
        if a.run == tid and a.event is not None and a.kind in ("take", "discard") and "rank" in a.detail:
            last = a
    if last is None or last.event not in rows:
        return None
    mine = _line_take(view, labels, rows, rows.index(last.event))
    if mine is None:
        return None
    return "more" if last.detail["rank"] < mine.detail["rank"] else "less"


def _summary(r: dict[str, Any]) -> str:
    rows = r["rows_matched"]
    span = f"rows {rows[0]}-{rows[-1]}" if rows else f"an empty match at row {r['start']}"
    return f"match {r['index']} ({span}: {' '.join(r['labels']) or '()'}) is the first labelling in preferment " \
           "order whose every row satisfies its DEFINE"


def format_sql_match(r: dict[str, Any]) -> str:
    from engine.explain.text import _num

    part = (" in " + ", ".join(f"{k}={v}" for k, v in r["partition"].items())) if r.get("partition") else ""
    start = f" from {r['start_name']}" if r.get("start_name") else ""
    out = [f"match #{r['index']}{part}{start} (engine {r['engine']}, MATCH_NUMBER {r['number']}, "
           f"thread {r['thread']}): "
           + " ".join(f"{v}=[{','.join(map(str, ids))}]" for v, ids in r["match"].items()), "  " + r["text"]]
    for row in r["rows"]:
        vals = ", ".join(f"{k}={_num(v)}" for k, v in row["values"].items())
        name = row.get("name") or f"row {row['row']}"
        out.append(f"  {name}: {row['label']} — ✓ {row['define']}" + (f"    ({vals})" if vals else ""))
        for o in row["others"]:
            who = f"thread {o['thread']}" + (f", {o['preferred']} preferred" if o["preferred"] else "")
            vals = ", ".join(f"{k}={_num(v)}" for k, v in o["predicate"]["values"].items())
            verb = "also accepted it as" if o["accepted"] else "tried it as"
            out.append(f"      {who} {verb} {o['label']} ({'✓' if o['accepted'] else '✗'} {o['predicate']['text']}"
                       + (f"; {vals}" if vals else "") + f"): {o['fate']}")
    if r["threads"]:
        out.append("  other labellings of this search:")
        for t in r["threads"]:
            got = " ".join(t["labels"]) or "nothing"
            out.append(f"    thread {t['thread']} ({got}" + (f" on rows {','.join(map(str, t['rows']))}" if t["rows"]
                                                            else "") + f"): {t['relation']}; {t['fate']['text']}")
    if r.get("skip"):
        out.append(f"  then {r['skip']}")
    return "\n".join(out) + "\n"


__all__ = ["SearchView", "explain_sql_match", "format_sql_match", "match_actions", "numbered_matches", "row_name"]
