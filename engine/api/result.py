"""The result of :func:`engine.api.runner`: the matches (or signatures, or AGG rows, or the rows of a
MATCH_RECOGNIZE query) as ``cep run`` gives them, in its order.

- ``len(result)``, ``result[k]``, ``for m in result``: the engine's objects (``engine.match.Match``:
  ``bindings``, ``start``, ``end``; interval signatures with ``range`` and ``confidence``;
  ``AggRow``: ``ts``, ``event``, ``group``, ``value``; a query's rows as dicts);
- ``to_records()``: one dict per item, the JSON of ``cep run --format jsonl``; ``to_jsonl()``
  its text, line for line;
- ``to_pandas()`` / ``to_arrow()``: a table, one row per item: matches ``match`` (1-based),
  ``start``, ``end`` and a column per variable (its events' ids, a list); signatures
  ``range_lo``, ``range_hi``, ``confidence``, ``confidence_exact`` and the variables; AGG rows
  ``ts``, ``event``, ``group``, ``value``; a query its own columns;
- ``explain(k)`` / ``why_not(spec)`` / ``trace()``: what ``cep explain`` and ``cep trace`` say,
  over the same data with the same engine choice (:mod:`engine.api.explain`);
- in a notebook: a table of the first rows and the timeline figure (:mod:`engine.api.render`).

>>> import engine
>>> rows = [{"type": "A", "ts": 1, "x": 1}, {"type": "B", "ts": 2, "x": 1}, {"type": "B", "ts": 4, "x": 1}]
>>> result = engine.run("PATTERN SEQ(A a, B b) WHERE a.x = b.x", rows)
>>> result
<Result: 2 matches of PATTERN SEQ(A a, B b) WHERE a.x = b.x (engine lazy-chain)>
>>> result.to_pandas()
   match  start  end    a    b
0      1    1.0  2.0  [0]  [1]
1      2    1.0  4.0  [0]  [2]
>>> print(result.to_jsonl(), end="")
{"match": {"a": [0], "b": [1]}, "start": 1.0, "end": 2.0}
{"match": {"a": [0], "b": [2]}, "start": 1.0, "end": 4.0}
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

    from engine.api.explain import Explanation, Trace
    from engine.api.parsing import ParsedPattern, ParsedQuery

__all__ = ["Result"]

_NOUNS = {"matches": ("match", "matches"), "signatures": ("signature", "signatures"), "rows": ("row", "rows"),
          "sql": ("row", "rows")}


@dataclass(eq=False)
class Result:
    """See the module. ``kind``: ``matches``, ``signatures`` (interval data), ``rows`` (AGG) or
    ``sql``; ``engine``: the engine that ran it; ``warnings``: what ``cep run`` prints on stderr;
    ``stats``: the engine's counters; ``seconds``: the run's time."""

    kind: str
    pattern: ParsedPattern | ParsedQuery
    items: list[Any]
    engine: str
    warnings: list[str] = field(default_factory=list)
    request: Any = field(default=None, repr=False)
    events: list[Any] | None = field(default=None, repr=False)
    loader: Callable[[], list[Any]] | None = field(default=None, repr=False)
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict, repr=False)
    u_max: Any = None
    columns: list[str] = field(default_factory=list)
    table: Any = field(default=None, repr=False)

    # ------------------------------------------------------------------ a sequence
    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def __getitem__(self, k: int) -> Any:
        return self.items[k]

    def __repr__(self) -> str:
        one, many = _NOUNS[self.kind]
        text = " ".join(str(self.pattern).split())
        if len(text) > 60:
            text = text[:57] + "..."
        return f"<Result: {len(self)} {one if len(self) == 1 else many} of {text} (engine {self.engine})>"

    @property
    def variables(self) -> list[str]:
        """The pattern's positive variables (the columns of the matches)."""
        model = getattr(self.pattern, "model", None)
        return [c.var for c in model.positive] if model is not None else []

    def all_events(self) -> list[Any]:
        """The data's events as the run read them (loaded again for a run that did not keep them)."""
        if self.events is None:
            if self.loader is None:
                raise ValueError("this result keeps no events")
            self.events = self.loader()
        return self.events

    # ------------------------------------------------------------------ as data
    def to_records(self) -> list[dict[str, Any]]:
        """One dict per item: the JSON objects of ``cep run --format jsonl``."""
        if self.kind == "sql":
            from engine.engines.sql.output import json_row

            return [json_row(r) for r in self.items]
        if self.kind == "rows":
            return [r.to_json() for r in _finite_rows(self.items, self.warnings)]
        return [m.to_json() for m in self.items]

    def to_jsonl(self) -> str:
        """The text ``cep run --format jsonl`` prints for this run."""
        out = io.StringIO()
        if self.kind == "rows":
            from engine.engines.aseq.output import write_rows

            write_rows(_finite_rows(self.items, []), "jsonl", out)
        elif self.kind == "sql":
            from engine.json_text import json_text

            for r in self.to_records():
                out.write(json_text(r) + "\n")
        else:
            from engine.commands.output import format_matches

            format_matches(self.items, "jsonl", out, self.variables, uncertain=self.kind == "signatures")
        return out.getvalue()

    def table_rows(self) -> tuple[list[str], list[dict[str, Any]]]:
        """(columns, rows) of :meth:`to_pandas`, as plain Python values."""
        records = self.to_records()
        if self.kind in ("rows", "sql"):
            columns = self.columns if self.kind == "sql" else ["ts", "event", "group", "value"]
            return columns, [{c: r.get(c) for c in columns} for r in records]
        variables = self.variables
        head = ["range_lo", "range_hi", "confidence", "confidence_exact"] if self.kind == "signatures" \
            else ["start", "end"]
        rows = []
        for k, r in enumerate(records, 1):
            row: dict[str, Any] = {"match": k}
            if self.kind == "signatures":
                row.update(range_lo=r["range"][0], range_hi=r["range"][1], confidence=r["confidence"],
                           confidence_exact=r["confidence_exact"])
            else:
                row.update(start=r["start"], end=r["end"])
            for v in variables:
                row[v] = list(r["match"].get(v, []))
            rows.append(row)
        return ["match", *head, *variables], rows

    def to_pandas(self) -> pd.DataFrame:
        """A pandas DataFrame, one row per item (see the module); integers stay integers."""
        import pandas as pd

        columns, rows = self.table_rows()
        frame = pd.DataFrame(rows, columns=columns)
        return frame

    def to_arrow(self) -> pa.Table:
        """A pyarrow Table with the columns of :meth:`to_pandas`."""
        import pyarrow as pa

        columns, rows = self.table_rows()
        if not rows:
            return pa.table({c: pa.array([], pa.null()) for c in columns})
        return pa.Table.from_pylist(rows).select(columns)

    # ------------------------------------------------------------------ why
    def explain(self, k: int) -> Explanation:
        """Why match ``k`` (1-based, as ``cep explain --match K``) fired, step by step."""
        from engine.api.explain import explain_result

        return explain_result(self, match=k)

    def why_not(self, spec: str | list[Any]) -> Explanation:
        """Whether these events form a match and, if not, the furthest partial run and the first
        condition that fails (``cep explain --why-not``): event ids ``"1,2,3"`` or a list of
        them, or variables fixed ``"a=1,2;b=6"``; for a query, input rows ``"3-5"``."""
        from engine.api.explain import explain_result

        if isinstance(spec, (list, tuple)):
            spec = ",".join(str(i) for i in spec)
        return explain_result(self, why_not=str(spec))

    def trace(self, limit: int | None = None) -> Trace:
        """The run step by step (``cep trace``): one record per event, then the close step."""
        from engine.api.explain import trace_result

        return trace_result(self, limit)

    # ------------------------------------------------------------------ notebooks
    def timeline(self) -> Any:
        """The Run page's figure (plotly): the events by type over time and one row per match;
        AGG rows: the aggregate's value after each triggering event."""
        from engine.api.render import result_figure

        return result_figure(self)

    def _repr_html_(self) -> str:
        from engine.api.render import result_html

        return result_html(self)


def _finite_rows(rows: list[Any], warnings: list[str]) -> list[Any]:
    """AGG rows whose value is beyond the float range written as None (as ``cep run`` does)."""
    from engine.engines.aseq.values import AggRow, TooLarge

    out = []
    for k, r in enumerate(rows, 1):
        if isinstance(r.value, TooLarge):
            note = f"row {k}: the aggregate is beyond the float range (about ±1.8e308); written as null"
            if note not in warnings:
                warnings.append(note)
            r = AggRow(r.ts, r.event, r.group, None, r.query, r.seq)
        out.append(r)
    return out
