"""``parse(text)``: a pattern of the DSL, or a MATCH_RECOGNIZE query (text starting with
SELECT), checked as ``cep check`` checks it. A mistake raises the CLI's exception with its place
(``DslError`` / ``SqlError``: ``line``, ``column``, and a caret in the message).

>>> import engine
>>> p = engine.parse("PATTERN SEQ(Buy b, Sell s) WHERE b.sym = s.sym WITHIN 10")
>>> p.variables
['b', 's']
>>> print(p)
PATTERN SEQ(Buy b, Sell s) WHERE b.sym = s.sym WITHIN 10
>>> engine.parse("PATTERN SEQ(Buy b, Sell s) WHERE b.sym = c.sym")
Traceback (most recent call last):
...
engine.dsl.errors.DslError: line 1, column 42: undefined variable `c` ...
>>> try:
...     engine.parse("PATTERN SEQ(Buy b, Sell s)\\nWHERE b.price > s.")
... except engine.DslError as err:
...     print(err.line, err.column)
2 19
>>> q = engine.parse("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS at "
...                  "PATTERN (A B) DEFINE B AS B.v > A.v)")
>>> q.kind
'sql'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from engine.model import Pattern as PatternModel

__all__ = ["ParsedPattern", "ParsedQuery", "parse", "as_parsed"]


@dataclass(frozen=True)
class ParsedPattern:
    """A checked pattern of the DSL: ``model`` (``engine.model.Pattern``) and its ``text``.
    In a notebook it shows its text and components; :meth:`automaton` draws it."""

    model: PatternModel
    text: str
    kind: str = field(default="pattern", init=False)

    @property
    def variables(self) -> list[str]:
        """The pattern's variables, in order (negated ones too)."""
        return list(self.model.variables)

    @property
    def is_aggregate(self) -> bool:
        """The pattern has an AGG clause: it gives rows (ts, event, group, value)."""
        return self.model.aggregate is not None

    def components(self) -> list[dict[str, Any]]:
        """One dict per component: variable, event type, quantifier, negated."""
        return [{"variable": c.var, "type": c.type, "quantifier": c.quant, "negated": c.negated}
                for c in self.model.components()]

    def with_strategy(self, strategy: str) -> "ParsedPattern":
        """The same pattern under another selection strategy (``skip_till_any_match`` ...)."""
        from engine.dsl.printer import to_text
        from engine.model import Strategy

        try:
            model = self.model.model_copy(update={"strategy": Strategy(strategy)}).check()
        except ValueError:
            from engine.commands.arguments import CommandError

            known = ", ".join(s.value for s in Strategy)
            raise CommandError(f"unknown strategy {strategy!r}; the strategies are {known}") from None
        return ParsedPattern(model, to_text(model))

    def automaton(self, engine: str | None = None, interval: bool = False) -> Any:
        """The automaton as the Automaton page draws it (an ``engine.api.render.Automaton``:
        a plotly figure in a notebook); ``engine``: one of the drawn engines (default: the
        one ``auto`` runs the pattern with)."""
        from engine.api.render import Automaton

        return Automaton(self, engine, interval)

    def _repr_html_(self) -> str:
        from engine.api.render import pattern_html

        return pattern_html(self)

    def __str__(self) -> str:
        return self.text.strip()


@dataclass(frozen=True)
class ParsedQuery:
    """A parsed MATCH_RECOGNIZE query (``query``: ``engine.engines.sql`` ``Query``) and its text."""

    query: Any
    text: str
    kind: str = field(default="sql", init=False)

    def _repr_html_(self) -> str:
        from engine.api.render import query_html

        return query_html(self)

    def __str__(self) -> str:
        return self.text.strip()


def parse(text: str) -> ParsedPattern | ParsedQuery:
    """The pattern (or MATCH_RECOGNIZE query) in ``text``; ``DslError`` / ``SqlError`` with
    ``line`` and ``column`` when it cannot be read or checked. A ``.json`` pattern is read
    with ``engine.model.Pattern.model_validate_json`` and given as its model to :func:`as_parsed`."""
    if not isinstance(text, str):
        raise TypeError(f"parse() takes the pattern text, not {type(text).__name__}")
    from engine.engines.sql.detect import is_sql

    if is_sql(text):
        from engine.engines.sql.parser import parse_query

        return ParsedQuery(parse_query(text), text)
    from engine.dsl import parse as parse_dsl

    return ParsedPattern(parse_dsl(text), text)


def as_parsed(pattern: Any) -> ParsedPattern | ParsedQuery:
    """``pattern`` as :func:`parse` gives it: a parsed pattern or query as it is; text parsed; a
    file (``pathlib.Path``: ``.cep``, ``.json`` or ``.sql``) or ``"preset:SAMPLE/NAME"`` read as
    ``cep run`` reads its PATTERN argument; an ``engine.model.Pattern`` checked and printed."""
    import os

    if isinstance(pattern, (ParsedPattern, ParsedQuery)):
        return pattern
    if isinstance(pattern, os.PathLike) or (isinstance(pattern, str) and pattern.startswith("preset:")):
        from engine.commands.arguments import CommandError, read_pattern

        if isinstance(pattern, os.PathLike) and not os.path.isfile(pattern):
            raise CommandError(f"pattern file not found: {os.fspath(pattern)}")
        text, origin = read_pattern(os.fspath(pattern))
        if origin.endswith(".json"):
            return _from_json(text, origin)
        return parse(text)
    if isinstance(pattern, str):
        return parse(pattern)
    from engine.model import Pattern

    if isinstance(pattern, Pattern):
        from engine.dsl.printer import to_text

        model = pattern.check()
        return ParsedPattern(model, to_text(model))
    raise TypeError(f"the pattern must be its text, a file, engine.parse(text) or an engine.model.Pattern, "
                    f"not {type(pattern).__name__}")


def _from_json(text: str, origin: str) -> ParsedPattern:
    """A pattern in JSON (the model's own form), as ``cep run PATTERN.json`` reads it."""
    from engine.commands.arguments import CommandError
    from engine.dsl.printer import to_text
    from engine.model import Pattern, PatternError

    try:
        model = Pattern.model_validate_json(text).check()
    except (ValueError, PatternError) as err:
        raise CommandError(f"{origin}: invalid pattern JSON: {err}") from None
    return ParsedPattern(model, to_text(model))
