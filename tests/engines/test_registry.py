"""The engine registry (engine/engines/spec.py, the planner's list): every registered engine is
one folder with its spec, is drawn (or its spec says why not), emits the trace, runs on Spark
(or its spec says why not) with the same output as in process, and agrees with its oracle on
random small streams and patterns. A new engine in the planner's list is checked by these
tests without a line here (docs/engines.md)."""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.engines import planner
from engine.dsl import parse
from engine.engines.spec import EngineSpec, Lazy, load
from engine.events import make_stream
from engine.match import EngineUnsupported
from engine.model import Selection
from engine.trace import Recorder, record
from tests.strategies import small_patterns, small_streams
from tests.support import run

ENGINES_DIR = Path(__file__).resolve().parents[2] / "engine" / "engines"
NAMES = [s.name for s in planner.SPECS]
PATTERN_ENGINES = [s.name for s in planner.SPECS if s.language == "dsl"]
SQL_ENGINES = [s.name for s in planner.SPECS if s.language == "sql"]

POINT_ROWS = [("A", 1, 1, 1), ("B", 2, 2, 3), ("A", 3, 4, 0), ("C", 4, 5, 2), ("B", 5, 7, 5), ("B", 6, 9, 1),
              ("A", 7, 12, 4), ("B", 8, 13, 6)]
INTERVAL_ROWS = [("A", 1, 1, 3, 0), ("B", 2, 2, 5, 1), ("A", 3, 4, 4, 2), ("B", 4, 5, 8, 1), ("C", 5, 6, 7, 0),
                 ("B", 6, 9, 10, 2)]


def point_pattern(spec: EngineSpec) -> str:
    text = "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 6"
    return text.replace(" WITHIN", " AGG COUNT WITHIN") if spec.aggregate else text


def interval_pattern() -> str:
    return "PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 6"


def sample(spec: EngineSpec):
    """(pattern, events) the engine runs: a point or an interval stream."""
    if spec.language == "sql":
        raise NotImplementedError(f"{spec.name}: runs a query over a table, not a pattern over events "
                                  "(its trace: _sql_trace)")
    if spec.interval:
        from engine.engines.uncertain.examples import interval_events

        events = interval_events([(i, t, lo, hi, {"x": x}) for t, i, lo, hi, x in INTERVAL_ROWS])
        return parse(interval_pattern()), events
    rows = [{"type": t, "id": i, "ts": ts, "x": x} for t, i, ts, x in POINT_ROWS]
    return parse(point_pattern(spec)), make_stream(rows)


# --------------------------------------------------------------------------- one folder, one entry

@pytest.mark.parametrize("name", NAMES)
def test_every_engine_is_one_folder_with_its_spec(name):
    spec = planner.ENGINES[name]
    folder = spec.factory.split(":")[0].split(".")[2]
    assert spec.factory.startswith(f"engine.engines.{folder}."), spec.factory
    assert (ENGINES_DIR / folder / "spec.py").is_file() and (ENGINES_DIR / folder / "__init__.py").is_file()
    module = importlib.import_module(f"engine.engines.{folder}.spec")
    assert spec.name in {s.name for s in vars(module).values() if isinstance(s, EngineSpec)}
    assert isinstance(spec.supports, Lazy) and spec.supports.ref.startswith(f"engine.engines.{folder}.")
    assert callable(spec.load()) and spec.title and spec.summary
    if spec.drawing is not None:
        assert spec.drawing.graph.startswith(f"engine.engines.{folder}.")
        load(spec.drawing.graph)


def test_the_list_order_is_autos_preference_and_names_are_unique():
    assert len(NAMES) == len(set(NAMES)) == len(planner.ENGINES)
    prefs = [s.preference for s in planner.SPECS]
    assert prefs == sorted(prefs) and len(set(prefs)) == len(prefs)
    assert planner.engine_names() == ["auto", *NAMES]
    assert list(planner.reasons(parse("PATTERN SEQ(A a, B b) WITHIN 5"))) == NAMES


def test_no_engine_package_is_imported_by_the_planner():
    """The planner imports the specs only: the engines load when they are built."""
    import subprocess
    import sys

    code = ("import sys, engine.engines.planner; "
            "print(sorted(m for m in sys.modules if m.startswith('engine.engines.') and not m.endswith('.spec') "
            "and m.count('.') > 2))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


# --------------------------------------------------------------------------- drawn, or why not

@pytest.mark.parametrize("name", NAMES)
def test_every_engine_is_drawn_or_its_spec_says_why(name):
    spec = planner.ENGINES[name]
    if spec.drawing is None:
        if spec.drawn_as:
            assert planner.ENGINES[spec.drawn_as].drawing is not None
        else:
            assert spec.drawing_refusal, f"{name}: no drawing and no reason"
        return
    if spec.language == "sql":
        from engine.engines.sql.parser import parse_query
        p = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B+ C) DEFINE B AS x > PREV(x))")
    else:
        p, _ = sample(spec)
    g = spec.graph(p)
    assert g.number_of_nodes() >= 2 and g.number_of_edges() >= 1
    assert all("kind" in d for _u, _v, d in g.edges(data=True))


# --------------------------------------------------------------------------- the trace

def _json(m) -> str:
    """A match, a signature or an aggregate row as JSON text (a trace step may hold the row's JSON)."""
    return json.dumps(m if isinstance(m, dict) else m.to_json(), default=str, sort_keys=True)


@pytest.mark.parametrize("name", NAMES)
def test_every_engine_emits_the_trace(name):
    spec = planner.ENGINES[name]
    if spec.language == "sql":
        _sql_trace(name)
        return
    p, events = sample(spec)
    plain = planner.make_matcher(p, name, interval=spec.interval)
    want = [m for e in events for m in plain.feed(e)] + list(plain.close())
    traced = planner.make_matcher(p, name, interval=spec.interval, tracer=Recorder())
    steps = list(record(traced, events, limit=None))
    assert len(steps) == len(events) + 1 and steps[-1].step == "close"
    got = [m for s in steps for m in s.matches]
    assert [_json(m) for m in got] == [_json(m) for m in want]
    assert want, f"{name}: the sample has a match (or a row)"


SQL_SAMPLE = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY type ORDER BY ts MEASURES FIRST(A.id) AS a, "
              "LAST(B.id) AS b ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+) "
              "DEFINE B AS B.x > A.x)")


def _sql_trace(name: str) -> None:
    """A SQL engine traces a query over a table (there is no event stream to feed): the rows of
    the trace's steps, in order, are the rows of the untraced run, and every DEFINE evaluated
    is reported with its values."""
    from engine.engines.sql.parser import parse_query
    from engine.engines.sql.output import json_row
    from engine.engines.sql.run import Table, run_query
    from engine.engines.sql.trace import trace_query

    columns = ["type", "id", "ts", "x"]
    table = Table(columns, [dict(zip(columns, r)) for r in POINT_ROWS])
    query = parse_query(SQL_SAMPLE)
    want = [json_row(r) for r in run_query(query, table, name).rows]
    trace = trace_query(query, table, name, limit=None)
    assert trace.steps[-1].step == "close"
    got = [m for s in trace.steps for m in s.matches]
    assert [_json(m) for m in got] == [_json(m) for m in want]
    assert want, f"{name}: the sample has a match (or a row)"
    takes = [a for s in trace.steps for a in s.actions if a.kind == "take" and a.to == "B"]
    assert takes and all(a.predicates[0].text == "B.x > A.x" and set(a.predicates[0].values) == {"B.x", "A.x"}
                         for a in takes)


# --------------------------------------------------------------------------- Spark

def _write_data(tmp_path: Path, spec: EngineSpec) -> list[str]:
    if spec.interval:
        path = tmp_path / "intervals.csv"
        path.write_text("type,id,lower,upper,x\n" + "".join(
            f"{t},{i},{lo},{hi},{x}\n" for t, i, lo, hi, x in INTERVAL_ROWS))
        return ["--data", str(path), "--lower-col", "lower", "--upper-col", "upper"]
    path = tmp_path / "points.csv"
    path.write_text("type,id,ts,x\n" + "".join(f"{t},{i},{ts},{x}\n" for t, i, ts, x in POINT_ROWS))
    return ["--data", str(path)]


@pytest.mark.parametrize("name", NAMES)
def test_every_engine_runs_on_spark_as_in_process_or_says_why(name, spark, tmp_path, capsys):
    spec = planner.ENGINES[name]
    if spec.spark is None:
        assert spec.spark_refusal, f"{name}: no Spark path and no reason"
        return
    p = interval_pattern() if spec.interval else point_pattern(spec)
    argv = ["run", p, *_write_data(tmp_path, spec), "--engine", name, "--format", "jsonl", "--match-windows", "off"]
    if spec.language == "sql":
        p = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY type ORDER BY ts MEASURES FIRST(A.id) AS a, LAST(B.id) "
             "AS b PATTERN (A B+) DEFINE B AS x > PREV(x))")
        argv = ["run", p, *_write_data(tmp_path, spec), "--engine", name, "--format", "jsonl"]
    rc, local, err = run(capsys, *argv)
    assert rc == 0, err
    rc, on_spark, err = run(capsys, *argv, "--spark", "--master", "local[2]")
    assert rc == 0, err
    assert sorted(on_spark.splitlines()) == sorted(local.splitlines()) and local.strip()


# --------------------------------------------------------------------------- the oracle property

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def _keys(matches) -> list:
    return sorted(m.key for m in matches)


@pytest.mark.parametrize("name", [s.name for s in planner.SPECS if not s.reference and not s.interval
                                  and not s.aggregate and s.language == "dsl"])
def test_every_point_engine_equals_the_oracle(name):
    from engine.engines.oracle import oracle
    from engine.engines.oracle.oracle import OracleTooLarge

    spec = planner.ENGINES[name]
    selections = sorted(spec.selections)

    @PROPERTY
    @given(small_patterns(max_positive=3), small_streams(max_size=7), st.sampled_from(selections))
    def check(p, events, selection):
        p = p.model_copy(update={"selection": Selection(selection)})
        assume(planner.reasons(p).get(name) is None)
        try:
            want = oracle.run(p, events)
        except OracleTooLarge:
            assume(False)
        m = planner.make_matcher(p, name)
        got = [x for e in events for x in m.feed(e)] + list(m.close())
        assert _keys(got) == _keys(want), (name, p, events)

    check()


@pytest.mark.parametrize("name", [s.name for s in planner.SPECS if not s.reference and s.interval])
def test_every_interval_engine_equals_the_possible_worlds_oracle(name):
    from engine.engines.uncertain.examples import interval_events
    from engine.engines.uncertain.oracle import run_uncertain

    @st.composite
    def streams(draw):
        rows = []
        for i in range(draw(st.integers(2, 6))):
            t = draw(st.integers(1, 10))
            lo, hi = t - draw(st.integers(0, 2)), t + draw(st.integers(0, 2))
            rows.append((t, (i, draw(st.sampled_from("ABC")), lo, hi, {"v": draw(st.integers(0, 2))})))
        rows.sort(key=lambda r: r[0])  # arrival by true time
        return interval_events([r for _t, r in rows])

    templates = ["SEQ(A a, B b)", "SEQ(A a, B b, C c)", "SEQ(A a, B b) WHERE b.v > a.v", "SEQ(A a, ANY b)"]

    @PROPERTY
    @given(st.sampled_from(templates), st.sampled_from(["skip_till_any_match", "skip_till_next_match"]),
           st.sampled_from(["", " WITHIN 3", " WITHIN 6"]), streams())
    def check(base, strategy, window, events):
        glue = " AND " if "WHERE" in base else " WHERE "
        p = parse(f"PATTERN {base}{glue}{strategy}{window}")
        want = sorted(json.dumps(m.to_json(), sort_keys=True) for m in run_uncertain(p, events))
        m = planner.make_matcher(p, name, interval=True, u_max=max(e.upper - e.lower for e in events))
        got = [x for e in events for x in m.feed(e)] + list(m.close())
        assert sorted(json.dumps(x.to_json(), sort_keys=True) for x in got) == want, (name, p)

    check()


@pytest.mark.parametrize("name", [s.name for s in planner.SPECS if s.aggregate])
def test_every_aggregate_engine_equals_the_aggregate_over_the_oracles_matches(name):
    from engine.engines.aseq.engine import rows_for
    from tests.aseq_util import expected_rows, same_rows

    @PROPERTY
    @given(st.sampled_from(["SEQ(A a, B b)", "SEQ(A a, !C n, B b)", "SEQ(A a, B b, A c)", "SEQ(A a, ANY b)"]),
           st.sampled_from(["", " WHERE a.x < b.x", " WHERE [k]"]),
           st.sampled_from(["COUNT", "SUM(a.x)", "MAX(b.x)"]), st.sampled_from([" WITHIN 3", " WITHIN 5"]),
           st.lists(st.tuples(st.sampled_from("ABC"), st.integers(0, 2), st.integers(0, 4), st.integers(0, 1)),
                    max_size=10))
    def check(seq, where, func, window, rows):
        p = parse(f"PATTERN {seq}{where} AGG {func}{window}")
        ts = 0
        stream = []
        for i, (t, gap, x, k) in enumerate(rows):
            ts += gap
            stream.append({"id": i, "type": t, "ts": ts, "x": x, "k": k})
        events = make_stream(stream)
        got = [(r.event, r.group, r.value) for r in rows_for(p, events, name)]
        assert same_rows(got, expected_rows(p, events)), (name, p)

    check()


# --------------------------------------------------------------------------- the SQL engines

def test_each_side_refuses_the_others_input():
    from engine.engines.sql.parser import parse_query

    query = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS x > 0)")
    assert planner.choose_query("auto").name == "sql"
    for name in SQL_ENGINES:
        assert planner.ENGINES[name].supports(query) is None
        assert "MATCH_RECOGNIZE" in planner.ENGINES[name].supports(parse("PATTERN SEQ(A a)"))
    with pytest.raises(EngineUnsupported, match="studio patterns"):
        planner.choose_query("nfab")
    assert planner.choose(parse("PATTERN SEQ(A a, B b)")).language == "dsl"


@pytest.mark.parametrize("name", SQL_ENGINES)
def test_every_sql_engine_runs_a_query_as_its_reference(name):
    """The SQL engines against their oracle on random queries: tests/engines/sql/test_engine_vs_oracle.py;
    here each runs through ``cep run``."""
    q = ("SELECT * FROM (VALUES (1, 5), (2, 7), (3, 2)) AS t(ts, x) MATCH_RECOGNIZE (ORDER BY ts MEASURES "
         "count(*) AS n PATTERN (A+ B) DEFINE A AS x > PREV(x) OR PREV(x) IS NULL, B AS x < PREV(x))")
    import io
    from contextlib import redirect_stdout

    from engine.commands.cli import main
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", q, "--engine", name, "--format", "jsonl"]) == 0
    assert out.getvalue() == '{"n": 3}\n'
