"""The fixed parts of the FlinkCEP program flink_java.py writes: Java string literals, the program's
imports and its ``Sql`` helper class (three-valued logic, exact numbers, navigation over the rows
a variable has taken)."""
from __future__ import annotations


def java_string(text: str) -> str:
    """A Java string literal: quotes, backslashes, control and non-ASCII characters escaped, so that
    no user text can end the literal or the comment around it."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif 32 <= code < 127:
            out.append(ch)
        elif code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)


IMPORTS = """import java.io.BufferedReader;
import java.io.FileReader;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.PatternStream;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.IterativeCondition;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;
"""

SQL_HELPER = """
    /** SQL's values in Java: NULL is null, numbers are exact BigDecimals, logic is three-valued. */
    static final class Sql {
        static List<Row> rows(IterativeCondition.Context<Row> ctx, String variable, Row current) throws Exception {
            List<Row> out = new ArrayList<>();
            for (Row row : ctx.getEventsForPattern(variable)) {
                out.add(row);
            }
            if (current != null) {
                out.add(current);
            }
            return out;
        }

        static List<Row> taken(Map<String, List<Row>> match, String variable) {
            List<Row> rows = match.get(variable);
            return rows == null ? new ArrayList<>() : rows;
        }

        static Object first(List<Row> rows, String column, int offset) {
            return offset < rows.size() ? rows.get(offset).getField(column) : null;
        }

        static Object last(List<Row> rows, String column, int offset) {
            int k = rows.size() - 1 - offset;
            return k >= 0 ? rows.get(k).getField(column) : null;
        }

        static BigDecimal num(Object value) {
            if (value == null) {
                return null;
            }
            if (value instanceof BigDecimal) {
                return (BigDecimal) value;
            }
            if (value instanceof Number) {
                return new BigDecimal(value.toString());
            }
            throw new IllegalArgumentException("not a number: " + value);
        }

        static Integer compare(Object a, Object b) {
            if (a == null || b == null) {
                return null;
            }
            if (a instanceof Number && b instanceof Number) {
                return num(a).compareTo(num(b));
            }
            if (a instanceof Boolean && b instanceof Boolean) {
                return ((Boolean) a).compareTo((Boolean) b);
            }
            return a.toString().compareTo(b.toString());
        }

        static Boolean eq(Object a, Object b) { Integer c = compare(a, b); return c == null ? null : c == 0; }
        static Boolean ne(Object a, Object b) { Integer c = compare(a, b); return c == null ? null : c != 0; }
        static Boolean lt(Object a, Object b) { Integer c = compare(a, b); return c == null ? null : c < 0; }
        static Boolean le(Object a, Object b) { Integer c = compare(a, b); return c == null ? null : c <= 0; }
        static Boolean gt(Object a, Object b) { Integer c = compare(a, b); return c == null ? null : c > 0; }
        static Boolean ge(Object a, Object b) { Integer c = compare(a, b); return c == null ? null : c >= 0; }

        static Boolean and(Boolean a, Boolean b) {
            if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
                return false;
            }
            return a == null || b == null ? null : true;
        }

        static Boolean or(Boolean a, Boolean b) {
            if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
                return true;
            }
            return a == null || b == null ? null : false;
        }

        static Boolean not(Boolean a) { return a == null ? null : !a; }

        @SuppressWarnings("unchecked")
        static <T> T coalesce(T... values) {
            for (T v : values) {
                if (v != null) {
                    return v;
                }
            }
            return null;
        }
        static Boolean isNull(Object a) { return a == null; }
        static boolean isTrue(Boolean a) { return Boolean.TRUE.equals(a); }

        static BigDecimal add(Object a, Object b) { return a == null || b == null ? null : num(a).add(num(b)); }
        static BigDecimal sub(Object a, Object b) { return a == null || b == null ? null : num(a).subtract(num(b)); }
        static BigDecimal mul(Object a, Object b) { return a == null || b == null ? null : num(a).multiply(num(b)); }
        static BigDecimal neg(Object a) { return a == null ? null : num(a).negate(); }

        /** Integers divide with truncation (SQL), anything else as doubles. */
        static Object div(Object a, Object b) {
            if (a == null || b == null) {
                return null;
            }
            if (num(b).signum() == 0) {
                throw new ArithmeticException("division by zero");
            }
            if (isIntegral(a) && isIntegral(b)) {
                return num(a).divide(num(b), 0, RoundingMode.DOWN);
            }
            return toDouble(a).doubleValue() / toDouble(b).doubleValue();
        }

        static boolean isIntegral(Object a) {
            return a instanceof Long || a instanceof Integer || a instanceof Short || a instanceof Byte
                || (a instanceof BigDecimal && ((BigDecimal) a).scale() <= 0);
        }

        static Double toDouble(Object a) { return a == null ? null : num(a).doubleValue(); }

        static Object sum(List<Row> rows, String column) {
            BigDecimal total = null;
            for (Row row : rows) {
                Object v = row.getField(column);
                if (v != null) {
                    total = total == null ? num(v) : total.add(num(v));
                }
            }
            return total;
        }

        static Object avg(List<Row> rows, String column) {
            double total = 0;
            int n = 0;
            for (Row row : rows) {
                Object v = row.getField(column);
                if (v != null) {
                    total += num(v).doubleValue();
                    n += 1;
                }
            }
            return n == 0 ? null : total / n;
        }

        static Object extreme(List<Row> rows, String column, int sign) {
            Object best = null;
            for (Row row : rows) {
                Object v = row.getField(column);
                if (v != null && (best == null || compare(v, best) * sign > 0)) {
                    best = v;
                }
            }
            return best;
        }

        static long count(List<Row> rows) { return rows.size(); }

        static long millis(Object ts) { return num(ts).multiply(BigDecimal.valueOf(1000)).longValue(); }

        /** The input: a CSV file with a header row (numbers read as numbers), in ts order. */
        static List<Row> readCsv(String path) throws Exception {
            List<Row> out = new ArrayList<>();
            try (BufferedReader reader = new BufferedReader(new FileReader(path))) {
                String[] header = reader.readLine().split(",");
                String line;
                while ((line = reader.readLine()) != null) {
                    String[] cells = line.split(",", -1);
                    Row row = Row.withNames();
                    for (int k = 0; k < header.length; k++) {
                        String cell = k < cells.length ? cells[k] : "";
                        Object value = cell;
                        if (cell.isEmpty()) {
                            value = null;
                        } else if (cell.matches("-?[0-9]+")) {
                            value = Long.valueOf(cell);
                        } else if (cell.matches("-?[0-9]*[.][0-9]+([eE][-+]?[0-9]+)?")) {
                            value = new BigDecimal(cell);
                        }
                        row.setField(header[k], value);
                    }
                    out.add(row);
                }
            }
            return out;
        }
    }
"""
