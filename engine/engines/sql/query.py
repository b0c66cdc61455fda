"""A parsed MATCH_RECOGNIZE query (engine/engines/sql/parser.py builds it): the clauses as
written, each expression kept as sqlglot's tree with its text and offset for messages."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.engines.sql.row_pattern import Node, variables


@dataclass(frozen=True)
class SortKey:
    column: str                 # as written (matched to the table's columns case-insensitively)
    descending: bool = False
    nulls_first: bool = False   # default NULLS LAST in either direction (as Trino)
    offset: int = 0


@dataclass(frozen=True)
class Expression:
    """One expression of the query: sqlglot's tree, the text and where it starts."""

    tree: Any
    text: str
    offset: int


@dataclass(frozen=True)
class Measure:
    name: str
    expression: Expression


@dataclass(frozen=True)
class SelectItem:
    name: str
    expression: Expression | None   # None: the star


@dataclass
class Query:
    """The query's clauses. ``table`` names the input (bound by ``--data``); ``values`` holds an
    inline ``(VALUES ...) AS t(cols)`` table instead."""

    source: str
    select: list[SelectItem] | None          # None: SELECT *
    table: str | None
    table_offset: int = 0
    values: list[list[Any]] | None = None
    value_columns: list[str] | None = None
    partition_by: list[SortKey] = field(default_factory=list)
    order_by: list[SortKey] = field(default_factory=list)
    measures: list[Measure] = field(default_factory=list)
    rows_per_match: Literal["one", "all"] = "one"
    empty_matches: Literal["show", "omit", "unmatched"] = "show"
    after_match: tuple[str, str | None] = ("past_last", None)  # past_last | next_row | first | last
    after_match_offset: int = 0
    pattern: Node | None = None
    pattern_text: str = ""
    within: tuple[float, str] | None = None  # (seconds, as written)
    subsets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    defines: dict[str, Expression] = field(default_factory=dict)
    alias: str | None = None
    final_order: list[SortKey] = field(default_factory=list)

    @property
    def variables(self) -> list[str]:
        """The pattern's variables in order of first appearance."""
        return variables(self.pattern) if self.pattern is not None else []
