"""Parse a MATCH_RECOGNIZE query into a :class:`~engine.engines.sql.query.Query`.

The clause structure (SELECT list, FROM, the MATCH_RECOGNIZE clauses, ORDER BY) is read here from
the tokens, because no SQL parser knows the whole clause (sqlglot has no SUBSET, WITHIN or the
standard's pattern syntax); every expression (SELECT items, MEASURES, DEFINE, VALUES rows) is
handed to sqlglot. ``RUNNING f(...)`` / ``FINAL f(...)`` are read by joining the keyword to the
function name (``RUNNING_LAST``), which keeps every character's offset, so sqlglot's errors and the
compiler's point to the query's own line and column. Anything that is not MATCH_RECOGNIZE (WHERE,
JOIN, GROUP BY, ...) is refused by name."""
from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from engine.engines.sql.errors import SqlError, error_at
from engine.engines.sql.lexer import Token, tokenize
from engine.engines.sql.query import Expression, Measure, Query, SelectItem, SortKey
from engine.engines.sql.row_pattern import PatternParser, variable_name

UNITS = {"MILLISECOND": 0.001, "SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400}
CLAUSES = ("PARTITION", "ORDER", "MEASURES", "ONE", "ALL", "AFTER", "PATTERN", "WITHIN", "SUBSET", "DEFINE")
REFUSED = {
    "WHERE": "filter the input file before the query, or put the condition in DEFINE",
    "GROUP": "aggregate in MEASURES (one row per match) instead of GROUP BY",
    "HAVING": "put the condition in DEFINE", "JOIN": "CEP Studio runs MATCH_RECOGNIZE over one table",
    "LEFT": "CEP Studio runs MATCH_RECOGNIZE over one table", "INNER": "CEP Studio runs MATCH_RECOGNIZE over one table",
    "UNION": "run each query on its own", "LIMIT": "the studio shows every row; page through them in the table",
    "WITH": "common table expressions are not supported: name the input file with --data",
    "WINDOW": "window functions are not supported", "OVER": "window functions are not supported",
    "FETCH": "the studio shows every row", "OFFSET": "the studio shows every row", "QUALIFY": "put it in DEFINE",
    "EXCEPT": "run each query on its own", "INTERSECT": "run each query on its own", "INTO": "write rows with --out",
}


def parse_query(source: str) -> Query:
    """The query in ``source``; a :class:`SqlError` with line, column and caret otherwise."""
    return _Parser(source).query()


class _Parser:
    def __init__(self, source: str):
        self.source = source
        self.tokens = tokenize(source)
        self.pos = 0

    # ------------------------------------------------------------------ helpers
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def fail(self, message: str, hint: str | None = None, token: Token | None = None) -> SqlError:
        t = token or self.tok
        return error_at(self.source, t.start, message, hint, max(1, t.end - t.start))

    def found(self) -> str:
        t = self.tok
        return "the end of the query" if t.kind == "end" else repr(t.text)

    def word(self, *words: str, hint: str | None = None) -> Token:
        t = self.tok
        if not t.is_word(*words):
            self._refuse_by_name()
            raise self.fail(f"expected {' or '.join(words)}, found {self.found()}", hint)
        self.pos += 1
        return t

    def symbol(self, s: str, hint: str | None = None) -> Token:
        t = self.tok
        if not t.is_symbol(s):
            raise self.fail(f"expected {s!r}, found {self.found()}", hint)
        self.pos += 1
        return t

    def name(self, what: str) -> Token:
        t = self.tok
        if t.kind not in ("word", "quoted"):
            raise self.fail(f"expected {what}, found {self.found()}")
        self.pos += 1
        return t

    def _refuse_by_name(self) -> None:
        t = self.tok
        if t.kind == "word" and t.upper in REFUSED:
            raise self.fail(f"{t.upper} is not supported: CEP Studio runs one MATCH_RECOGNIZE query, not general SQL",
                            REFUSED[t.upper])

    # ------------------------------------------------------------------ the query
    def query(self) -> Query:
        if self.tok.kind == "end":
            raise self.fail("the query is empty", "write SELECT ... FROM t MATCH_RECOGNIZE (...)")
        self.word("SELECT", hint="a MATCH_RECOGNIZE query starts with SELECT")
        if self.tok.is_word("DISTINCT"):
            raise self.fail("SELECT DISTINCT is not supported", "every output row is shown")
        select = self.select_list()
        self.word("FROM")
        q = Query(source=self.source, select=select, table=None)
        self.source_table(q)
        if not self.tok.is_word("MATCH_RECOGNIZE"):
            self._refuse_by_name()
            raise self.fail(f"expected MATCH_RECOGNIZE after the table, found {self.found()}",
                            "CEP Studio runs SELECT ... FROM t MATCH_RECOGNIZE (...)")
        self.pos += 1
        opened = self.symbol("(")
        self.body(q, opened)
        if self.tok.is_word("AS"):
            self.pos += 1
            q.alias = self.name("an alias after AS").text
        elif self.tok.kind == "quoted" or (self.tok.kind == "word" and not self.tok.is_word("ORDER")
                                           and self.tok.upper not in REFUSED):
            q.alias = self.name("an alias").text
        if self.tok.is_word("ORDER"):
            self.pos += 1
            self.word("BY")
            q.final_order = self.sort_keys(allow_order=True)
        if self.tok.is_symbol(";"):
            self.pos += 1
        if self.tok.kind != "end":
            self._refuse_by_name()
            raise self.fail(f"unexpected {self.found()} after the query", "one query per file; end it here")
        return q

    def select_list(self) -> list[SelectItem] | None:
        if self.tok.is_symbol("*"):
            self.pos += 1
            return None
        items = []
        while True:
            start = self.tok
            end = self.scan_expression(stops=("FROM",), allow_as=True)
            expr_end, alias = self.split_alias(start.start, end)
            e = self.expression(start.start, expr_end, "SELECT item")
            if alias is None:
                if isinstance(e.tree, exp.Column) and not isinstance(e.tree.this, exp.Star):
                    alias = e.tree.name
                else:
                    raise error_at(self.source, start.start, "this SELECT item needs a name",
                                   "write `expression AS name`", max(1, expr_end - start.start))
            items.append(SelectItem(alias, e))
            if self.tok.is_symbol(","):
                self.pos += 1
                continue
            return items

    def source_table(self, q: Query) -> None:
        t = self.tok
        if t.is_symbol("("):
            self.pos += 1
            if not self.tok.is_word("VALUES"):
                raise self.fail("a subquery is not supported", "FROM names a table (bound by --data) or "
                                "(VALUES (...), ...) AS t(col, ...)")
            self.pos += 1
            rows = []
            while True:
                row_start = self.symbol("(", "each VALUES row is in parentheses")
                row = []
                while True:
                    s = self.tok.start
                    end = self.scan_expression(stops=())
                    e = self.expression(s, end, "VALUES item")
                    row.append(e)
                    if self.tok.is_symbol(","):
                        self.pos += 1
                        continue
                    break
                self.symbol(")")
                rows.append((row_start, row))
                if self.tok.is_symbol(","):
                    self.pos += 1
                    continue
                break
            self.symbol(")")
            if self.tok.is_word("AS"):
                self.pos += 1
            alias = self.name("a name for the VALUES table: (VALUES ...) AS t(col, ...)")
            self.symbol("(", "name the columns: AS t(col, ...)")
            cols = [self.name("a column name").text]
            while self.tok.is_symbol(","):
                self.pos += 1
                cols.append(self.name("a column name").text)
            self.symbol(")")
            from engine.engines.sql.expressions import constant_value
            values = []
            for row_start, row in rows:
                if len(row) != len(cols):
                    raise self.fail(f"this VALUES row has {len(row)} values for {len(cols)} columns",
                                    f"give each row {len(cols)} values", row_start)
                values.append([constant_value(e) for e in row])
            q.table, q.table_offset, q.values, q.value_columns = alias.text, alias.start, values, cols
            return
        name = self.name("a table name after FROM")
        if name.is_word("MATCH_RECOGNIZE"):
            raise self.fail("FROM needs a table before MATCH_RECOGNIZE", "write FROM t MATCH_RECOGNIZE (...)", name)
        text = name.text
        while self.tok.is_symbol("."):  # catalog.schema.table: the last part names the table
            self.pos += 1
            text = self.name("a table name").text
        q.table, q.table_offset = text, name.start
        if self.tok.is_word("AS") or (self.tok.kind in ("word", "quoted")
                                      and not self.tok.is_word("MATCH_RECOGNIZE") and self.tok.upper not in REFUSED):
            raise self.fail("an alias between the table and MATCH_RECOGNIZE is not supported",
                            "put the alias after MATCH_RECOGNIZE (...) AS m")

    # ------------------------------------------------------------------ MATCH_RECOGNIZE ( ... )
    def body(self, q: Query, opened: Token) -> None:
        seen: list[str] = []

        def clause(name: str) -> None:
            idx = CLAUSES.index(name)
            for s in seen:
                if CLAUSES.index(s) >= idx and not (s == name == "ALL"):
                    raise self.fail(f"{name} comes after {s} here; the clauses go in the order PARTITION BY, ORDER BY, "
                                    "MEASURES, ONE/ALL ROWS PER MATCH, AFTER MATCH SKIP, PATTERN, SUBSET, DEFINE")
            seen.append(name)

        while not self.tok.is_symbol(")"):
            t = self.tok
            if t.is_word("PARTITION"):
                clause("PARTITION")
                self.pos += 1
                self.word("BY")
                q.partition_by = self.sort_keys(allow_order=False)
            elif t.is_word("ORDER"):
                clause("ORDER")
                self.pos += 1
                self.word("BY")
                q.order_by = self.sort_keys(allow_order=True)
            elif t.is_word("MEASURES"):
                clause("MEASURES")
                self.pos += 1
                q.measures = self.measures()
            elif t.is_word("ONE"):
                clause("ONE")
                self.pos += 1
                self.word("ROW")
                self.word("PER")
                self.word("MATCH")
                q.rows_per_match = "one"
            elif t.is_word("ALL"):
                clause("ALL")
                self.pos += 1
                self.word("ROWS")
                self.word("PER")
                self.word("MATCH")
                q.rows_per_match = "all"
                if self.tok.is_word("SHOW"):
                    self.pos += 1
                    self.word("EMPTY")
                    self.word("MATCHES")
                elif self.tok.is_word("OMIT"):
                    self.pos += 1
                    self.word("EMPTY")
                    self.word("MATCHES")
                    q.empty_matches = "omit"
                elif self.tok.is_word("WITH"):
                    self.pos += 1
                    self.word("UNMATCHED")
                    self.word("ROWS")
                    q.empty_matches = "unmatched"
            elif t.is_word("AFTER"):
                clause("AFTER")
                self.after_match(q)
            elif t.is_word("PATTERN"):
                clause("PATTERN")
                self.pos += 1
                p_open = self.symbol("(", "PATTERN ( A B+ C )")
                parser = PatternParser(self.source, self.tokens, self.pos)
                q.pattern = parser.parse()
                self.pos = parser.pos
                close = self.symbol(")")
                q.pattern_text = self.source[p_open.end:close.start].strip()
            elif t.is_word("WITHIN"):
                clause("WITHIN")
                if "PATTERN" not in seen:
                    raise self.fail("WITHIN follows PATTERN ( ... )")
                self.within(q)
            elif t.is_word("SUBSET"):
                clause("SUBSET")
                self.pos += 1
                self.subsets(q)
            elif t.is_word("DEFINE"):
                clause("DEFINE")
                self.pos += 1
                self.defines(q)
            elif t.kind == "end":
                raise self.fail("MATCH_RECOGNIZE ( is never closed", "end the clause with )", opened)
            else:
                self._refuse_by_name()
                raise self.fail(f"unexpected {self.found()} in MATCH_RECOGNIZE",
                                "the clauses are PARTITION BY, ORDER BY, MEASURES, ONE ROW PER MATCH / ALL ROWS PER "
                                "MATCH, AFTER MATCH SKIP, PATTERN, WITHIN, SUBSET and DEFINE")
        close = self.tok
        self.pos += 1
        if q.pattern is None:
            raise self.fail("MATCH_RECOGNIZE needs a PATTERN", "add PATTERN ( A B+ ) before DEFINE", close)
        if not q.order_by:
            raise self.fail("MATCH_RECOGNIZE needs ORDER BY: the rows of a partition are matched in that order",
                            "add ORDER BY ts after PARTITION BY", opened)

    def sort_keys(self, allow_order: bool) -> list:
        keys = []
        while True:
            t = self.name("a column name")
            col = t.text
            if self.tok.is_symbol("."):  # m.col / t.col: the qualifier names the query's own table
                self.pos += 1
                col = self.name("a column name").text
            if self.tok.is_symbol("("):
                raise self.fail("only columns can be used here, not expressions", "compute the column in the input")
            desc = False
            if allow_order and self.tok.is_word("ASC", "DESC"):
                desc = self.tok.is_word("DESC")
                self.pos += 1
            nulls_first = False  # NULLS LAST in either direction unless said (Trino)
            if allow_order and self.tok.is_word("NULLS"):
                self.pos += 1
                nulls_first = self.word("FIRST", "LAST").is_word("FIRST")
            keys.append(SortKey(col, desc, nulls_first, t.start))
            if self.tok.is_symbol(","):
                self.pos += 1
                continue
            return keys

    def measures(self) -> list[Measure]:
        out = []
        while True:
            start = self.tok
            end = self.scan_expression(stops=CLAUSES, allow_as=True)
            expr_end, alias = self.split_alias(start.start, end)
            if alias is None:
                raise error_at(self.source, start.start, "a measure needs a name", "write `expression AS name`",
                               max(1, end - start.start))
            if any(m.name.upper() == alias.upper() for m in out):
                raise error_at(self.source, start.start, f"two measures are named {alias!r}", "rename one")
            out.append(Measure(alias, self.expression(start.start, expr_end, "measure")))
            if self.tok.is_symbol(","):
                self.pos += 1
                continue
            return out

    def after_match(self, q: Query) -> None:
        start = self.tok
        self.pos += 1
        self.word("MATCH")
        self.word("SKIP")
        if self.tok.is_word("PAST"):
            self.pos += 1
            self.word("LAST")
            self.word("ROW")
            q.after_match = ("past_last", None)
        else:
            self.word("TO", "PAST", hint="AFTER MATCH SKIP PAST LAST ROW | TO NEXT ROW | TO [FIRST | LAST] variable")
            if self.tok.is_word("NEXT") and self.peek().is_word("ROW"):
                self.pos += 2
                q.after_match = ("next_row", None)
            else:
                which = "last"
                if self.tok.is_word("FIRST", "LAST") and self.peek().kind in ("word", "quoted"):
                    which = self.tok.upper.lower()
                    self.pos += 1
                v = self.name("a pattern variable after SKIP TO")
                q.after_match = (which, variable_name(v))
        q.after_match_offset = start.start

    def within(self, q: Query) -> None:
        start = self.tok
        self.pos += 1
        self.word("INTERVAL", hint="WITHIN INTERVAL '10' SECOND")
        t = self.tok
        if t.kind not in ("string", "number"):
            raise self.fail("expected the interval's length as a string: INTERVAL '10' SECOND")
        self.pos += 1
        try:
            value = float(t.text.strip())
        except ValueError:
            raise self.fail(f"{t.text!r} is not a number", "INTERVAL '10' SECOND", t) from None
        if not value > 0 or value != value or value == float("inf"):
            raise self.fail("the interval must be a positive number", None, t)
        unit_tok = self.name("a unit: MILLISECOND, SECOND, MINUTE, HOUR or DAY")
        unit = unit_tok.text.upper().rstrip("S") if unit_tok.text.upper() != "MS" else "MILLISECOND"
        if unit not in UNITS:
            raise self.fail(f"unknown interval unit {unit_tok.text!r}", "MILLISECOND, SECOND, MINUTE, HOUR or DAY",
                            unit_tok)
        q.within = (value * UNITS[unit], self.source[start.start:unit_tok.end])

    def subsets(self, q: Query) -> None:
        while True:
            name = self.name("a subset name: SUBSET U = (A, B)")
            self.symbol("=", "SUBSET U = (A, B)")
            self.symbol("(")
            members = [variable_name(self.name("a pattern variable"))]
            while self.tok.is_symbol(","):
                self.pos += 1
                members.append(variable_name(self.name("a pattern variable")))
            self.symbol(")")
            key = variable_name(name)
            if key in q.subsets:
                raise self.fail(f"the subset {key} is defined twice", None, name)
            q.subsets[key] = tuple(members)
            if self.tok.is_symbol(","):
                self.pos += 1
                continue
            return

    def defines(self, q: Query) -> None:
        while True:
            v = self.name("a pattern variable: DEFINE A AS condition")
            self.word("AS", hint="DEFINE A AS condition")
            start = self.tok.start
            end = self.scan_expression(stops=CLAUSES)
            key = variable_name(v)
            if key in q.defines:
                raise self.fail(f"{key} is defined twice", "give each variable one DEFINE", v)
            q.defines[key] = self.expression(start, end, f"DEFINE of {key}")
            if self.tok.is_symbol(","):
                self.pos += 1
                continue
            return

    # ------------------------------------------------------------------ expressions
    def scan_expression(self, stops: tuple[str, ...], allow_as: bool = False) -> int:
        """Move past one expression (to a depth-0 comma, closing parenthesis or stop word);
        returns the offset where it ends."""
        depth = 0
        start = self.tok
        last_end = start.start
        while True:
            t = self.tok
            if t.kind == "end":
                break
            if t.is_symbol("(", "["):
                depth += 1
            elif t.is_symbol(")", "]"):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (t.is_symbol(",") or t.is_word(*stops)):
                break
            elif depth == 0 and t.is_word("CASE"):
                depth += 1
            elif depth > 0 and t.is_word("END"):
                depth -= 1
            last_end = t.end
            self.pos += 1
        if last_end == start.start:
            raise self.fail(f"expected an expression, found {self.found()}")
        return last_end

    def split_alias(self, start: int, end: int) -> tuple[int, str | None]:
        """(end of the expression, its alias) for ``expr AS name`` / ``expr name`` between offsets."""
        toks = [t for t in self.tokens if start <= t.start < end]
        if len(toks) >= 2 and toks[-1].kind in ("word", "quoted"):
            if toks[-2].is_word("AS"):
                return toks[-2].start, toks[-1].text
            prev = toks[-2]
            if prev.kind in ("word", "quoted", "number", "string") or prev.is_symbol(")"):
                if not toks[-1].is_word("END", "NULL", "TRUE", "FALSE") and not prev.is_word(
                        "CASE", "THEN", "ELSE", "WHEN", "AND", "OR", "NOT", "IS", "RUNNING", "FINAL", "INTERVAL"):
                    if prev.kind != "string" or not any(p.is_word("DATE", "TIMESTAMP", "TIME") for p in toks[-3:-2]):
                        return prev.end, toks[-1].text
        return end, None

    def expression(self, start: int, end: int, what: str) -> Expression:
        text = self.source[start:end]
        rewritten = _join_running_final(text)
        try:
            tree = sqlglot.parse_one(rewritten)
        except (ParseError, TokenError) as e:
            errors = getattr(e, "errors", None) or []
            offset = start
            if errors and errors[0].get("line"):
                offset = _offset_of(text, errors[0]["line"], errors[0].get("col", 1)) + start
            msg = str(errors[0].get("description", e)) if errors else str(e).splitlines()[0]
            raise error_at(self.source, min(offset, end), f"cannot read this {what}: {msg}",
                           "check the parentheses and operators") from None
        if tree is None:
            raise error_at(self.source, start, f"this {what} is empty")
        from engine.engines.sql.expressions import check_shape
        check_shape(tree, self.source, start, what)
        return Expression(tree, text, start)


def _join_running_final(text: str) -> str:
    """``RUNNING LAST(`` -> ``RUNNING_LAST(`` (same length: offsets are kept)."""
    def join(m: re.Match[str]) -> str:
        return m.group(1) + "_" * len(m.group(2)) + m.group(3)
    return re.sub(r"\b(RUNNING|FINAL)(\s+)([A-Za-z_]\w*\s*\()", join, text, flags=re.I)


def _offset_of(text: str, line: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + max(0, col - 1)
