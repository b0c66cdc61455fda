"""The logic of the Debug page's MATCH_RECOGNIZE view on a long table (app/debug_sql.py draws it):
the data choice (the preset's table, an upload, or a generated ticker of up to 100k rows), the
untraced pre-pass (:func:`engine.engines.sql.trace_window.index_query`, once per query, table and
engine), and the window of the trace the page shows: the searches that start in a few dozen rows
around the row or match asked for (:func:`engine.engines.sql.trace_window.trace_window`), whose
steps are the whole trace's steps. No streamlit here: the page passes its session state."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, MutableMapping

WINDOW_ROWS = 40          # rows whose searches one window traces
BEFORE = 10               # of them, before the row asked for
WHOLE_TABLE = 200         # a table this small is traced whole (with its close step)
MAX_GENERATED = 100_000
SHOWN = 10                # list rows shown before "show all"


def generated_ticker(n: int, seed: int) -> Any:
    """A ticker table of ``n`` rows (``sample_streams.generators.stocks``: three symbols, integer
    prices in a random walk): columns id, symbol, ts, price, volume, as ``ticker.csv`` has them
    (with an id)."""
    from engine.engines.sql.run import Table
    from sample_streams.generators import stocks

    if not 1 <= n <= MAX_GENERATED:
        raise ValueError(f"a generated ticker has 1 to {MAX_GENERATED:,} rows, not {n:,}")
    frame = stocks(n, symbols=["ACME", "GLOBEX", "INITECH"], seed=seed)
    columns = ["id", "symbol", "ts", "price", "volume"]
    lists = [frame[c].tolist() for c in columns]
    return Table(columns, [dict(zip(columns, values)) for values in zip(*lists)])


def index_for(state: MutableMapping[str, Any], query: Any, table: Any, key: tuple[Any, ...], engine: str) -> Any:
    """The pre-pass of ``query`` on ``table`` (``SearchIndex``), kept in ``state`` while ``key``
    (the query's text, the data's name, the engine) stays the same; a new one resets the window."""
    from engine.engines.sql.trace_window import index_query

    if state.get("sql_index_key") != key:
        state.pop("sql_index", None)
        state["sql_index"] = index_query(query, table, engine)
        state["sql_index_key"] = key
        state.pop("sql_window", None)
        state["sql_step"] = 0
    return state["sql_index"]


@dataclass
class Window:
    """The traced part of the run: input rows ``first..last`` (the searches starting there), its
    steps (the whole trace's), and whether it holds the close step (a small table, traced whole)."""

    first: int
    last: int
    trace: Any

    @property
    def steps(self) -> list[Any]:
        return self.trace.steps


def window_around(index: Any, row: int) -> Window:
    """The window of the searches starting in the rows around ``row`` (the whole table when it is
    small); when those make too many steps, the search at ``row`` (or the nearest after it) alone."""
    from engine.engines.sql.trace_window import trace_searches, trace_window
    from engine.trace import TraceLimit

    n = index.n_rows
    if n <= WHOLE_TABLE:
        return Window(1, n, trace_window(index, 1, n, close=True, max_rows=max(n, 1)))
    first = max(1, min(row - BEFORE, n - WINDOW_ROWS + 1))
    last = min(n, first + WINDOW_ROWS - 1)
    try:
        return Window(first, last, trace_window(index, first, last, max_rows=WINDOW_ROWS))
    except TraceLimit:
        i = index.search_at(row)
        if i is None:
            later = [j for j, r in enumerate(index.start) if r >= row]
            i = later[0] if later else len(index.start) - 1
        r = index.start[i]
        return Window(r, r, trace_searches(index, [i], max_steps=50 * WINDOW_ROWS))


def step_of_row(window: Window, row: int) -> int:
    """The position (in the window) of the first step that reads ``row`` (else 0)."""
    return next((k for k, s in enumerate(window.steps) if s.event is not None and s.event["id"] == row), 0)


def step_of_number(window: Window, number: int) -> int:
    """The position (in the window) of the step numbered ``number`` (else 0)."""
    return next((k for k, s in enumerate(window.steps) if s.step == number), 0)


def jump_to_match(state: MutableMapping[str, Any], index: Any, k: int) -> Window:
    """Trace the window of match ``k``'s search and select its result step."""
    window = window_around(index, index.match_start(k))
    state["sql_window"] = window
    state["sql_step"] = step_of_number(window, index.step_of_match(k))
    return window


def jump_to_row(state: MutableMapping[str, Any], index: Any, row: int) -> Window:
    """Trace the window around input row ``row`` and select the first step that reads it."""
    window = window_around(index, row)
    state["sql_window"] = window
    state["sql_step"] = step_of_row(window, row)
    return window


def current_window(state: MutableMapping[str, Any], index: Any) -> Window:
    """The window in ``state``, or the first one."""
    if state.get("sql_window") is None:
        state["sql_window"] = window_around(index, 1)
        state["sql_step"] = 0
    return state["sql_window"]


def move(state: MutableMapping[str, Any], index: Any, by: int) -> None:
    """One step on (``by`` = 1) or back (-1); past the window's edge, the next (previous) window."""
    window = current_window(state, index)
    k = int(state.get("sql_step", 0)) + by
    if 0 <= k < len(window.steps):
        state["sql_step"] = k
    elif k >= len(window.steps) and window.last < index.n_rows:
        nxt = window_around(index, window.last + 1 + BEFORE)
        state["sql_window"] = nxt
        state["sql_step"] = 0
    elif k < 0 and window.first > 1:
        prev = window_around(index, max(1, window.first - WINDOW_ROWS + BEFORE))
        state["sql_window"] = prev
        state["sql_step"] = max(0, len(prev.steps) - 1)


def step_label(index: Any, step: Any) -> str:
    """A step as the slider names it: ``step 1,234 · row #812 (id 4711)`` (the step number is
    ``cep trace``'s), ``step 1,236 · result`` or ``close``."""
    if step.step == "close":
        return "close"
    if step.event is None:
        return f"step {step.step:,} · result"
    return f"step {step.step:,} · {index.label(step.event['id'])}"


def search_of(step_index: int, steps: list[Any]) -> int | None:
    """The start row of the search the step at ``step_index`` belongs to."""
    for s in reversed(steps[:step_index + 1]):
        for a in s.actions:
            if a.kind == "search":
                return int(a.detail["search"])
    return None


def matches_around(index: Any, k: int, count: int = SHOWN) -> list[dict[str, Any]]:
    """Up to ``count`` matches around match ``k`` (1-based) as table rows: number, partition,
    first row, labels (shortened past 12 with a count)."""
    total = len(index.matches)
    lo = max(1, min(k - count // 2, total - count + 1))
    out = []
    for j in range(lo, min(total, lo + count - 1) + 1):
        key, m = index.matches[j - 1]
        labels = list(m.labels)
        shown = " ".join(labels[:12]) + (f" … (+{len(labels) - 12})" if len(labels) > 12 else "")
        row = {"match": j, "from": index.label(index.match_start(j)), "rows": len(labels), "labels": shown or "()"}
        if index.bound.partition_by:
            row = {"match": j, "partition": ", ".join(f"{c}={v}" for c, v in zip(index.bound.partition_by, key)),
                   **{x: y for x, y in row.items() if x != "match"}}
        out.append(row)
    return out


def split_list(items: list[Any], shown: int = SHOWN) -> tuple[list[Any], list[Any]]:
    """(the first ``shown`` items, the rest) of a list the page collapses past ``shown``."""
    return items[:shown], items[shown:]


def explain_match(index: Any, k: int) -> str:
    """``cep explain --match K``'s text for match ``k``: its search traced on its own."""
    from engine.engines.sql.trace_window import trace_searches
    from engine.explain.sql_match import explain_sql_match, format_sql_match

    trace = trace_searches(index, [index.match_search[k - 1]], max_steps=50 * WINDOW_ROWS * 10)
    return format_sql_match(explain_sql_match(trace, k))


def explain_rows(index: Any, spec: str) -> str:
    """``cep explain --why-not ROWS``'s text: the searches it reads traced on their own."""
    from engine.engines.sql.trace_window import searches_near, trace_searches
    from engine.explain.sql_whynot import explain_sql_why_not, format_sql_why_not, parse_rows

    rows = parse_rows(spec)
    trace = trace_searches(index, searches_near(index, [r for r in rows if r <= index.n_rows]),
                           max_steps=50 * WINDOW_ROWS * 10)
    return format_sql_why_not(explain_sql_why_not(trace, spec, index.n_rows))


__all__ = ["WINDOW_ROWS", "Window", "generated_ticker", "index_for", "window_around", "jump_to_match", "jump_to_row",
           "current_window", "move", "step_label", "search_of", "matches_around", "split_list", "explain_match",
           "explain_rows"]


def continue_to_break(state: MutableMapping[str, Any], index: Any, specs: list[str]) -> str:
    """Go to the first breakpoint after the current step's row, in file order (``event:N`` /
    ``row:N``: input row N; ``id:X``: the row of id X; ``match:K``: match K's result). Returns
    what stopped it, or why nothing did; ``SqlBreakError`` names a bad spec (as ``cep trace``)."""
    from engine.engines.sql.trace_breaks import parse_sql_breaks

    breaks = parse_sql_breaks(specs, index)
    window = current_window(state, index)
    steps = window.steps
    here = window.first
    if steps:
        k = min(int(state.get("sql_step", 0)), len(steps) - 1)
        if steps[k].event is not None:
            here = int(steps[k].event["id"])
        else:  # a search's result: where the search started
            here = search_of(k, steps) or here
    found: list[tuple[int, str, Any]] = []
    for b in breaks:
        if b.kind == "match":
            if b.value <= len(index.matches):
                found.append((index.match_start(b.value), "match", b.value))
        elif b.kind == "id":
            rows = [r for r, x in enumerate(index.ids, 1) if str(x) == b.value and r > here]
            if rows:
                found.append((rows[0], "row", rows[0]))
        else:
            found.append((int(b.value), "row", int(b.value)))
    ahead = sorted(f for f in found if f[0] > here)
    if not ahead:
        return f"no breakpoint after {index.label(here)}"
    row, kind, value = ahead[0]
    if kind == "match":
        jump_to_match(state, index, value)
        return f"match #{value:,} (its search starts at {index.label(row)})"
    jump_to_row(state, index, row)
    return f"{index.label(row)}"
