"""MATCH_RECOGNIZE -> a FlinkCEP Pattern API program (Java) for the same query, where the Pattern
API can say it; the rest is refused by name.

Each variable is a pattern stage (``begin`` / ``next``: strict contiguity, as rows of a
partition); quantifiers are ``oneOrMore()``, ``optional()``, ``times(n)``, ``timesOrMore(n)``,
``times(n, m)``, each ``consecutive()`` and ``greedy()`` as SQL's are; PARTITION BY is ``keyBy``;
WITHIN is ``within(Duration)``; AFTER MATCH SKIP is the AfterMatchSkipStrategy. A DEFINE becomes a
SimpleCondition when it reads only the row, else an IterativeCondition reading the rows each
variable took (``ctx.getEventsForPattern``). Conditions are written from sqlglot's expression
trees, node by node; user text only ever reaches the program as an escaped Java string literal."""
from __future__ import annotations

from typing import Any

from sqlglot import exp

from engine.engines.sql.conversion.flink_sql import check_flink, flink_warnings
from engine.engines.sql.conversion.java_support import IMPORTS, SQL_HELPER, java_string
from engine.engines.sql.conversion.refusals import FLINK_JAVA, refuse
from engine.engines.sql.conversion.sql_text import literal_value
from engine.engines.sql.query import Query
from engine.engines.sql.row_pattern import Anchor, Concat, Quantified, Var

COMPARISONS = {exp.EQ: "eq", exp.NEQ: "ne", exp.LT: "lt", exp.LTE: "le", exp.GT: "gt", exp.GTE: "ge"}
ARITHMETIC = {exp.Add: "add", exp.Sub: "sub", exp.Mul: "mul", exp.Div: "div"}
SKIPS = {"past_last": "AfterMatchSkipStrategy.skipPastLastEvent()", "next_row": "AfterMatchSkipStrategy.skipToNext()"}


def to_flink_java(q: Query, class_name: str = "CepQuery") -> tuple[str, list[str]]:
    """The Java program and the warnings (Flink's CEP library shares its SQL's semantics)."""
    check_flink(q)
    if q.select is not None:
        raise refuse("a SELECT list", FLINK_JAVA, "the program outputs the measures", hint="write SELECT *")
    if q.final_order:
        raise refuse("ORDER BY after MATCH_RECOGNIZE", FLINK_JAVA, "a stream's matches come in match order")
    if q.subsets:
        raise refuse("SUBSET", FLINK_JAVA, "the Pattern API has no union variables")
    if len(q.order_by) != 1:
        raise refuse("ORDER BY with several columns", FLINK_JAVA, "the program orders by the event time only")
    stages = _stages(q)
    conditions = [ConditionWriter(q, name).condition_class(k) for k, (name, _) in enumerate(stages)]
    measures = [f"{java_string(m.name)}, {MeasureWriter(q).java(m.expression.tree)}" for m in q.measures]
    program = _program(q, class_name, stages, conditions, measures)
    return program, flink_warnings(q)


def _stages(q: Query) -> list[tuple[str, str]]:
    """(variable, quantifier calls) per pattern element."""
    node = q.pattern
    parts = node.parts if isinstance(node, Concat) else (node,)  # type: ignore[union-attr]
    out = []
    for part in parts:
        if isinstance(part, Anchor):
            continue
        if isinstance(part, Var):
            out.append((part.name, ""))
            continue
        assert isinstance(part, Quantified) and isinstance(part.body, Var)
        lo, hi = part.min, part.max
        if (lo, hi) == (0, 1):
            calls = ".optional()"
        elif hi is None:
            calls = (".oneOrMore()" if lo <= 1 else f".timesOrMore({lo})") + (".optional()" if lo == 0 else "")
            calls += ".consecutive().greedy()"
        elif lo == hi:
            calls = f".times({lo}).consecutive()"
        else:
            calls = f".times({lo}, {hi}).consecutive().greedy()"
        out.append((part.body.name, calls))
    return out


def _program(q: Query, class_name: str, stages: list[tuple[str, str]], conditions: list[str],
             measures: list[str]) -> str:
    kind, var = q.after_match
    skip = SKIPS.get(kind) or (f"AfterMatchSkipStrategy.skipTo{'First' if kind == 'first' else 'Last'}"
                               f"({java_string(var or '')})")
    chain = []
    for k, (name, calls) in enumerate(stages):
        start = f"Pattern.<Row>begin({java_string(name)}, {skip})" if k == 0 else f".next({java_string(name)})"
        chain.append(f"            {start}.where(new Condition{k}()){calls}")
    if q.within is not None:
        chain.append(f"            .within(Duration.ofMillis({round(q.within[0] * 1000)}L))")
    time_column = java_string(q.order_by[0].column)
    keys = [java_string(k.column) for k in q.partition_by]
    keyed = "ordered"
    if keys:
        key_expr = " + \"\\u0000\" + ".join(f"String.valueOf(row.getField({k}))" for k in keys)
        keyed = f"ordered.keyBy(row -> {key_expr})"
    partition_fields = "".join(f"            out.setField({k}, Sql.last(any, {k}, 0));\n" for k in keys)
    measure_fields = "".join(f"            out.setField({m});\n" for m in measures)
    lines = [
        "// Written by `cep convert --to flink-java`: the MATCH_RECOGNIZE query as a FlinkCEP program.",
        "// Run at parallelism 1 on a CSV file with a header (args[0]), rows in " + java_comment(q.order_by[0].column)
        + " order, numeric times in seconds.",
        IMPORTS,
        f"public class {class_name} {{",
        "    public static void main(String[] args) throws Exception {",
        "        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();",
        "        env.setParallelism(1);",
        "        DataStream<Row> input = env.fromData(Sql.readCsv(args[0]));",
        "        DataStream<Row> ordered = input.assignTimestampsAndWatermarks(WatermarkStrategy.<Row>forMonotonousTimestamps()",
        f"            .withTimestampAssigner((row, previous) -> Sql.millis(row.getField({time_column}))));",
        f"        PatternStream<Row> matches = CEP.pattern({keyed}, pattern());",
        "        matches.process(new Measures()).print();",
        f"        env.execute({java_string('cep convert: ' + class_name)});",
        "    }",
        "",
        "    static Pattern<Row, ?> pattern() {",
        "        return",
        "\n".join(chain) + ";",
        "    }",
        "",
        "    /** ONE ROW PER MATCH: the PARTITION BY columns, then the measures. */",
        "    static final class Measures extends PatternProcessFunction<Row, Row> {",
        "        @Override",
        "        public void processMatch(Map<String, List<Row>> match, Context ctx, Collector<Row> collector) {",
        "            Row out = Row.withNames();",
        "            List<Row> any = new ArrayList<>();",
        "            for (List<Row> rows : match.values()) {",
        "                any.addAll(rows);",
        "            }",
        partition_fields + measure_fields + "            collector.collect(out);",
        "        }",
        "    }",
        "",
        "\n\n".join(conditions),
        SQL_HELPER,
        "}",
    ]
    return "\n".join(lines) + "\n"


class ConditionWriter:
    """One variable's DEFINE as a Java condition class (running semantics: the variable's own
    rows so far, with the row being tested last)."""

    def __init__(self, q: Query, variable: str):
        self.q, self.variable = q, variable
        self.iterative = False

    def condition_class(self, k: int) -> str:
        definition = self.q.defines.get(self.variable)
        body = self.java(definition.tree) if definition is not None else "true"
        test = f"Sql.isTrue({body})" if definition is not None else "true"
        where = f"DEFINE {self.variable}"
        if self.iterative:
            return (f"    /** {java_comment(where)} */\n"
                    f"    static final class Condition{k} extends IterativeCondition<Row> {{\n"
                    "        @Override\n"
                    "        public boolean filter(Row value, Context<Row> ctx) throws Exception {\n"
                    f"            return {test};\n        }}\n    }}")
        return (f"    /** {java_comment(where)} */\n"
                f"    static final class Condition{k} extends SimpleCondition<Row> {{\n"
                "        @Override\n"
                "        public boolean filter(Row value) {\n"
                f"            return {test};\n        }}\n    }}")

    def fail(self, construct: str, why: str) -> Exception:
        return refuse(construct, FLINK_JAVA, why, f"DEFINE {self.variable}")

    def rows(self, var: str) -> str:
        """The rows ``var`` has taken so far (with the row being tested, for the variable's own)."""
        if var not in self.q.defines and var not in _pattern_variables(self.q):
            raise self.fail(f"{var}", "not a pattern variable")
        self.iterative = True
        current = "value" if var == self.variable else "null"
        return f"Sql.rows(ctx, {java_string(var)}, {current})"

    def column(self, node: Any, how: str, offset: int = 0) -> str:
        table = node.args.get("table")
        var = None if table is None else (table.name if table.args.get("quoted") else table.name.upper())
        column = java_string(node.name)
        if var is None or (var == self.variable and how == "row"):
            if var is None and how != "row":
                raise self.fail(f"{how.upper()} of an unqualified column", "qualify it with a variable")
            return f"value.getField({column})"
        if how == "row":
            how = "last"
        return f"Sql.{how}({self.rows(var)}, {column}, {offset})"

    def java(self, tree: Any) -> str:
        if isinstance(tree, exp.Paren):
            return self.java(tree.this)
        for kind, name in COMPARISONS.items():
            if type(tree) is kind:
                return f"Sql.{name}({self.java(tree.this)}, {self.java(tree.expression)})"
        for kind, name in ARITHMETIC.items():
            if type(tree) is kind:
                return f"Sql.{name}({self.java(tree.this)}, {self.java(tree.expression)})"
        if isinstance(tree, exp.And):
            return f"Sql.and({self.java(tree.this)}, {self.java(tree.expression)})"
        if isinstance(tree, exp.Or):
            return f"Sql.or({self.java(tree.this)}, {self.java(tree.expression)})"
        if isinstance(tree, exp.Not):
            return f"Sql.not({self.java(tree.this)})"
        if isinstance(tree, exp.Neg):
            return f"Sql.neg({self.java(tree.this)})"
        if isinstance(tree, exp.Coalesce):
            items = [tree.this] + list(tree.expressions)
            return "Sql.coalesce(" + ", ".join(self.java(i) for i in items) + ")"
        if isinstance(tree, exp.Is) and isinstance(tree.expression, exp.Null):
            return f"Sql.isNull({self.java(tree.this)})"
        if isinstance(tree, exp.Null):
            return "null"
        if isinstance(tree, exp.Boolean):
            return "Boolean.TRUE" if tree.this else "Boolean.FALSE"
        if isinstance(tree, exp.Literal):
            value = literal_value(tree)
            if isinstance(value, str):
                return java_string(value)
            return f"new BigDecimal({java_string(repr(value) if isinstance(value, float) else str(value))})"
        if isinstance(tree, exp.Cast) and tree.to.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT):
            return f"Sql.toDouble({self.java(tree.this)})"
        if isinstance(tree, exp.Column):
            if isinstance(tree.this, exp.Star):
                raise self.fail("v.* outside COUNT", "only COUNT(v.*) reads a variable's rows")
            return self.column(tree, "row")
        if isinstance(tree, (exp.First, exp.Last)):
            offset = tree.args.get("expression")
            n = 0
            if offset is not None:
                value = literal_value(offset) if isinstance(offset, exp.Literal) else None
                if not isinstance(value, int):
                    raise self.fail("FIRST/LAST with a computed offset", "the offset is a whole number")
                n = value
            if not isinstance(tree.this, exp.Column):
                raise self.fail("FIRST/LAST of an expression", "navigate to a column")
            return self.column(tree.this, "first" if isinstance(tree, exp.First) else "last", n)
        if isinstance(tree, exp.Count) and isinstance(tree.this, exp.Column) and isinstance(tree.this.this, exp.Star):
            table = tree.this.args.get("table")
            if table is None:
                raise self.fail("COUNT(*)", "count a variable's rows: COUNT(v.*)")
            var = table.name if table.args.get("quoted") else table.name.upper()
            return f"Sql.count({self.rows(var)})"
        aggregates = {exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max"}
        for kind, name in aggregates.items():
            if type(tree) is kind and isinstance(tree.this, exp.Column) and tree.this.args.get("table") is not None:
                table = tree.this.args["table"]
                var = table.name if table.args.get("quoted") else table.name.upper()
                rows = self.rows(var)
                column = java_string(tree.this.name)
                if name in ("min", "max"):
                    return f"Sql.extreme({rows}, {column}, {1 if name == 'max' else -1})"
                return f"Sql.{name}({rows}, {column})"
        raise self.fail(_name(tree), "the program writes comparisons, arithmetic, AND/OR/NOT, IS NULL, CAST AS DOUBLE, "
                        "FIRST/LAST and aggregates over a variable")


class MeasureWriter(ConditionWriter):
    """A measure over the whole match (``match.get(v)``)."""

    def __init__(self, q: Query):
        super().__init__(q, "")

    def fail(self, construct: str, why: str) -> Exception:
        return refuse(construct, FLINK_JAVA, why, "MEASURES")

    def rows(self, var: str) -> str:
        return f"Sql.taken(match, {java_string(var)})"

    def column(self, node: Any, how: str, offset: int = 0) -> str:
        table = node.args.get("table")
        if table is None:
            raise self.fail(f"unqualified column {node.name} in MEASURES", "qualify it with a variable")
        if how == "row":
            how = "last"
        var = table.name if table.args.get("quoted") else table.name.upper()
        return f"Sql.{how}({self.rows(var)}, {java_string(node.name)}, {offset})"

    def java(self, tree: Any) -> str:
        if isinstance(tree, exp.Anonymous):
            name = str(tree.this).upper()
            if name.startswith("FINAL_") or name.startswith("RUNNING_"):
                import sqlglot

                inner = exp.Anonymous(this=name.split("_", 1)[1], expressions=tree.expressions)
                return self.java(sqlglot.parse_one(inner.sql()))
        return super().java(tree)


def _pattern_variables(q: Query) -> list[str]:
    return q.variables


def java_comment(text: str) -> str:
    """Text safe inside a Java comment: no ``*/``, no line break, and backslashes doubled so that
    no ``\\u000a`` unicode escape (which Java reads even in comments) can end the comment."""
    text = text.replace("\\", "\\\\").replace("*/", "* /")
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


def _name(tree: Any) -> str:
    if isinstance(tree, exp.Anonymous):
        return f"{str(tree.this).upper()}()"
    if isinstance(tree, exp.Func):
        return f"{tree.sql_name()}()"
    return tree.key.upper()
