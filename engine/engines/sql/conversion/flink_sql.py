"""MATCH_RECOGNIZE -> Flink 2.3 SQL: refuses what Flink refuses (measured through PyFlink, see
docs/conversion.md) and warns, construct by construct, where Flink's rows differ from SQL:2016's.

Flink orders MATCH_RECOGNIZE by a time attribute: the first ORDER BY column ``c`` becomes
``c_time``, which the Flink runner adds as ``TO_TIMESTAMP_LTZ(c * 1000, 3)`` (a numeric ``c`` in
seconds, as ``WITHIN INTERVAL '5' SECOND`` is 5 units of ``c`` in the studio). Identifiers are
quoted with backticks, Flink's quote."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from engine.engines.sql.conversion.query_text import query_text
from engine.engines.sql.conversion.refusals import FLINK_SQL, ConversionError, at_offset, placed, refuse
from engine.engines.sql.query import Query
from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Node, Permute, Quantified, Var, \
    can_be_empty, render

TIME_SUFFIX = "_time"
REFUSED_FUNCTIONS = {
    "CLASSIFIER": "Flink 2.3 has no CLASSIFIER()",
    "MATCH_NUMBER": "Flink 2.3 has no MATCH_NUMBER()",
    "PREV": "Flink does not support physical offsets within partition; use LAST(v.col, 1)",
    "NEXT": "Flink does not support physical offsets within partition",
}
FLIPPED = {exp.EQ: exp.NEQ, exp.NEQ: exp.EQ, exp.LT: exp.GTE, exp.GTE: exp.LT, exp.GT: exp.LTE, exp.LTE: exp.GT}


@dataclass
class FlinkQuery:
    text: str
    warnings: list[str] = field(default_factory=list)


def to_flink_sql(q: Query) -> FlinkQuery:
    """The Flink SQL text of ``q`` with a ``-- WARNING:`` line per construct Flink answers differently."""
    check_flink(q)
    warnings = flink_warnings(q)
    time_column = q.order_by[0].column + TIME_SUFFIX
    keys = [backticks(time_column)] + [backticks(k.column) + (" DESC" if k.descending else "") for k in q.order_by[1:]]
    body = to_backticks(query_text(q, order_by=keys, quote=True))
    header = [f"-- WARNING: {w}" for w in warnings]
    header.append(f"-- ORDER BY {time_column}: Flink orders MATCH_RECOGNIZE by a time attribute; the table needs "
                  f"{time_column} AS TO_TIMESTAMP_LTZ({q.order_by[0].column} * 1000, 3) with a watermark "
                  f"({q.order_by[0].column} in seconds)")
    return FlinkQuery("\n".join(header) + "\n" + body, warnings)


def check_flink(q: Query) -> None:
    """ConversionError for the first construct Flink 2.3 refuses."""
    if q.values is not None:
        raise refuse("an inline VALUES table", FLINK_SQL, "Flink matches a table with a time attribute",
                     hint="put the rows in a file and run with --data")
    if q.rows_per_match == "all":
        raise refuse("ALL ROWS PER MATCH", FLINK_SQL, "Flink 2.3 supports ONE ROW PER MATCH only")
    if q.order_by and q.order_by[0].descending:
        raise refuse("ORDER BY ... DESC", FLINK_SQL, "Flink orders by an ascending time attribute")
    assert q.pattern is not None
    try:
        _check_pattern(q.pattern)
    except ConversionError as err:
        offsets = _offsets(q.pattern)
        raise placed(err, at_offset(q.source, offsets[0]) if offsets else None) from None
    counts: dict[str, int] = {}
    _count_variables(q.pattern, counts)
    for name, n in counts.items():
        if n > 1:
            raise refuse(f"variable {name} used twice", FLINK_SQL, "Flink 2.3 refuses a pattern variable that "
                         "appears more than once")
    last = q.pattern.parts[-1] if isinstance(q.pattern, Concat) and q.pattern.parts else q.pattern
    if isinstance(last, Quantified) and last.max != last.min:
        raise refuse(f"a greedy quantifier last ({render(last)})", FLINK_SQL,
                     "Flink 2.3 refuses a pattern that ends with a greedy quantifier",
                     hint="end the pattern with a single variable")
    if can_be_empty(q.pattern):
        raise refuse("a pattern that can match no rows", FLINK_SQL, "Flink 2.3 refuses patterns that can be empty")
    expressions = [m.expression for m in q.measures] + list(q.defines.values())
    expressions += [i.expression for i in q.select or [] if i.expression is not None]
    for expression in expressions:
        for node in expression.tree.find_all(exp.Anonymous):
            name = str(node.this).upper()
            if name in REFUSED_FUNCTIONS:
                raise refuse(f"{name}()", FLINK_SQL, REFUSED_FUNCTIONS[name], at_offset(q.source, expression.offset))


def _check_pattern(node: Node) -> None:
    if isinstance(node, Alt):
        raise refuse("alternation |", FLINK_SQL, "Flink 2.3 refuses alternation in PATTERN")
    if isinstance(node, Permute):
        raise refuse("PERMUTE", FLINK_SQL, "Flink 2.3 refuses PERMUTE")
    if isinstance(node, Exclusion):
        raise refuse("exclusion {- -}", FLINK_SQL, "Flink 2.3 refuses exclusion")
    if isinstance(node, Empty):
        raise refuse("the empty pattern ()", FLINK_SQL, "Flink 2.3 refuses patterns that can be empty")
    if isinstance(node, Anchor) and node.kind == "$":
        raise refuse("the anchor $", FLINK_SQL, "Flink 2.3 has no end-of-partition anchor on a stream")
    if isinstance(node, Concat):
        for part in node.parts:
            _check_pattern(part)
    if isinstance(node, Quantified):
        if not isinstance(node.body, Var):
            raise refuse(f"a quantified group ({render(node)})", FLINK_SQL, "Flink 2.3 quantifies single variables only")
        if not node.greedy:
            raise refuse(f"a reluctant quantifier ({render(node)})", FLINK_SQL, "Flink 2.3 refuses reluctant quantifiers")
        if node.min == 0 and node.max is not None and node.max > 1:
            raise refuse(f"{{,{node.max}}} ({render(node)})", FLINK_SQL, "Flink 2.3 refuses {,m}")


def _offsets(node: Node) -> list[int]:
    if isinstance(node, Var):
        return [node.offset]
    out: list[int] = []
    for child in getattr(node, "parts", ()) + getattr(node, "options", ()) + getattr(node, "items", ()):
        out += _offsets(child)
    body = getattr(node, "body", None)
    return out + (_offsets(body) if body is not None else [])


def _count_variables(node: Node, counts: dict[str, int]) -> None:
    if isinstance(node, Var):
        counts[node.name] = counts.get(node.name, 0) + 1
    elif isinstance(node, Concat):
        for part in node.parts:
            _count_variables(part, counts)
    elif isinstance(node, Quantified):
        _count_variables(node.body, counts)


def flink_warnings(q: Query) -> list[str]:
    """One line per construct where Flink 2.3's rows differ from SQL:2016's (see the module)."""
    assert q.pattern is not None
    parts = list(q.pattern.parts) if isinstance(q.pattern, Concat) else [q.pattern]
    out: list[str] = []
    for k, part in enumerate(parts):
        if isinstance(part, Anchor):
            out.append("the anchor ^ is accepted and ignored by Flink 2.3: matches may start anywhere")
        if not isinstance(part, Quantified) or part.min == part.max:
            continue
        name = part.body.name  # type: ignore[union-attr]
        following = parts[k + 1] if k + 1 < len(parts) else None
        if not (isinstance(following, Var) and excludes(q, name, following.name)):
            out.append(f"possessive greedy {render(part)}: Flink never gives back a row that satisfies {name}'s "
                       "DEFINE, so where the next variable needs such a row SQL:2016 backtracks to a match and "
                       "Flink finds none")
        if part.max is not None and part.min >= 1:
            out.append(f"{render(part)}: Flink can miss a match when the row after the last {name} also "
                       f"satisfies {name} (measured on A B{{1,2}} C)")
    if q.within is None and any(isinstance(p, Quantified) and p.max is None for p in parts):
        out.append("held-back matches: Flink holds every completed match while an earlier-started partial match "
                   "is open, so on a finite input an open run can suppress later matches; a WITHIN clause "
                   "releases them")
    if q.subsets:
        out.append("SUBSET: Flink 2.3 accepts it and returns NULL for a union variable (e.g. LAST(S.id))")
    out.append(f"tie order in batch mode: rows with equal {q.order_by[0].column} may be matched in another "
               "order than the file's (streaming mode keeps it)")
    return out


def excludes(q: Query, loop: str, following: str) -> bool:
    """No row satisfies both the DEFINE of ``following`` and the continuation of ``loop``'s (a
    later iteration): different literal ``type``-like equalities, or a conjunct of ``following``
    that negates one of ``loop``'s read at the same row."""
    mine = _conjuncts(q.defines[loop].tree) if loop in q.defines else []
    theirs = _conjuncts(q.defines[following].tree) if following in q.defines else []
    theirs_text = {t.sql() for t in theirs}
    for c in mine:
        c = _strip_first_guard(c, loop)
        moved = _as_following(c, loop, following)
        if moved is None:
            continue
        for t in theirs:
            if _different_constants(moved, t):
                return True
        kind = FLIPPED.get(type(moved))
        if kind is not None and kind(this=moved.this.copy(), expression=moved.expression.copy()).sql() in theirs_text:
            return True
        if exp.Not(this=exp.Paren(this=moved.copy())).sql() in theirs_text or exp.Not(this=moved.copy()).sql() \
                in theirs_text:
            return True
    return False


def _conjuncts(tree: Any) -> list[Any]:
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.And):
        return _conjuncts(tree.this) + _conjuncts(tree.expression)
    return [tree]


def _strip_first_guard(tree: Any, loop: str) -> Any:
    """``(COUNT(v.*) = 1 OR e)`` is ``e`` on a later iteration."""
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.Or):
        guard = tree.this
        if isinstance(guard, exp.EQ) and isinstance(guard.this, exp.Count) and guard.expression.sql() == "1" \
                and _qualifier(guard.this.this) == loop:
            return _strip_first_guard(tree.expression, loop)
    return tree


def _as_following(tree: Any, loop: str, following: str) -> Any:
    """``tree`` read for a row labelled ``following`` instead of ``loop``: ``loop.x`` of the row is
    ``following.x``, ``LAST(loop.x, 1)`` is ``LAST(loop.x)``; None when it reads ``loop`` otherwise."""
    copy = tree.copy()
    navigations = (exp.First, exp.Last, exp.Count, exp.Avg, exp.Sum, exp.Min, exp.Max, exp.Anonymous)
    for node in list(copy.find_all(exp.Column)):
        if _qualifier(node) != loop:
            continue
        parent = node.parent
        if isinstance(parent, exp.Last) and parent.this is node:
            offset = parent.args.get("expression")
            if offset is None or offset.sql() != "1":
                return None
            parent.set("expression", None)
        elif isinstance(parent, navigations):
            return None
        else:
            node.set("table", exp.to_identifier(following, quoted=following != following.upper()))
    return copy


def _different_constants(a: Any, b: Any) -> bool:
    """``v.c = 'x'`` and ``v.c = 'y'`` with x != y (the same column of the same row)."""
    if not (isinstance(a, exp.EQ) and isinstance(b, exp.EQ)):
        return False
    if not (isinstance(a.expression, exp.Literal) and isinstance(b.expression, exp.Literal)):
        return False
    if not (isinstance(a.this, exp.Column) and isinstance(b.this, exp.Column)):
        return False
    same_column = a.this.name.lower() == b.this.name.lower() and _qualifier(a.this) == _qualifier(b.this)
    return same_column and a.expression.sql() != b.expression.sql()


def _qualifier(column: Any) -> str | None:
    if not isinstance(column, exp.Column):
        return None
    table = column.args.get("table")
    if table is None:
        return None
    return table.name if table.args.get("quoted") else table.name.upper()


def backticks(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def to_backticks(text: str) -> str:
    """Double-quoted identifiers of canonical text as Flink's backtick-quoted ones (string
    literals, where a double quote is a character, are left alone)."""
    out: list[str] = []
    k, n = 0, len(text)
    while k < n:
        ch = text[k]
        if ch == "'":
            end = k + 1
            while end < n:
                if text[end] == "'" and end + 1 < n and text[end + 1] == "'":
                    end += 2
                    continue
                if text[end] == "'":
                    break
                end += 1
            out.append(text[k:end + 1])
            k = end + 1
        elif ch == '"':
            end = k + 1
            name: list[str] = []
            while end < n:
                if text[end] == '"' and end + 1 < n and text[end + 1] == '"':
                    name.append('"')
                    end += 2
                    continue
                if text[end] == '"':
                    break
                name.append(text[end])
                end += 1
            out.append(backticks("".join(name)))
            k = end + 1
        elif ch == "-" and text.startswith("--", k):
            end = text.find("\n", k)
            end = n if end < 0 else end
            out.append(text[k:end])
            k = end
        else:
            out.append(ch)
            k += 1
    return "".join(out)
