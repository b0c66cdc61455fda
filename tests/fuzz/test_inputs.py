"""Hostile inputs beyond pattern text: random event-set selections, workloads and data
files. Each ends in a clean error or a result equal to the reference, never a traceback,
and never more than 10 s without the run guard stopping it.

- **Event-set selections**: random ``SEQ``s of AND groups, Kleene and single components
  with ``earliest`` / ``maximal`` / ``earliest_maximal`` (and WITHIN or not) over random
  small streams, run as ``cep run`` chooses (``engine.run_choice``: match windows with the
  SES automaton) and compared with the oracle's definition (``engine.engines.oracle.oracle``).
- **Workloads**: random ``QUERY`` files of AGG COUNT patterns (and mutations of them):
  a clean ``WorkloadError`` or, per query, the rows of the same query run alone on the
  baseline (``aseq-baseline``); the same file through ``cep run`` never gives a traceback.
- **Data files**: random bytes, and CSV / JSON Lines files mutated (fields dropped or
  added, quotes, NULs, huge numbers, deep nesting, truncation, BOMs) through ``cep run``:
  exit 0, 1 or 2 with a ``cep:`` message, never an unexpected error; a file that loads
  cleanly gives the oracle's matches.

Example counts stay small (the suite runs on a shared two-core machine).
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.commands.cli import main
from engine.dsl import DslError, parse
from engine.events import Event
from engine.match import EngineUnsupported, StateExplosion
from engine.memory import MemoryGuard, RunStopped, guarding
from engine.model import PatternError
from engine.engines.oracle.oracle import OracleTooLarge, OracleUnsupported

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
LIMIT = 10.0  # seconds: a run that has not ended by then must have been stopped by its guard
STOPPED = (StateExplosion, OracleTooLarge, RunStopped)


def _guard() -> MemoryGuard:
    return MemoryGuard(None, every=64, time_limit=LIMIT)


# --------------------------------------------------------------------------- event-set selections

def selection_pattern(rng: random.Random) -> str:
    names = iter("abcdefghijkl")
    items = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if kind < 0.35:
            inner = []
            for _ in range(rng.randint(2, 3)):
                v = next(names)
                t = rng.choice("ABC")
                inner.append(f"{t}+ {v}[]" if rng.random() < 0.5 else f"{t} {v}")
            items.append("AND(" + ", ".join(inner) + ")")
        else:
            v = next(names)
            t = rng.choice("ABC")
            items.append(f"{t}+ {v}[]" if kind < 0.6 else f"{t} {v}")
    text = "PATTERN SEQ(" + ", ".join(items) + ")\nWHERE " + rng.choice(["earliest", "maximal", "earliest_maximal"])
    if rng.random() < 0.3:
        text += " AND " + rng.choice(["a.x <= b.x", "a.x > 1", "b.x != 2"])
    if rng.random() < 0.6:
        text += f"\nWITHIN {rng.randint(2, 8)}"
    return text


def random_events(rng: random.Random, n: int) -> list[Event]:
    out = []
    ts = 0
    for i in range(n):
        ts += rng.choice([0, 1, 1, 2])
        out.append(Event(id=i + 1, type=rng.choice("ABCD"), ts=float(ts), seq=i, attrs={"x": rng.randint(0, 3)}))
    return out


@FUZZ
@given(st.randoms(use_true_random=False))
def test_fuzz_event_set_selections_equal_the_oracle(rng: random.Random) -> None:
    from engine.engines.oracle import oracle
    from engine.run_choice import choose_run

    text = selection_pattern(rng)
    try:
        pattern = parse(text)
    except (DslError, PatternError):
        return
    events = random_events(rng, rng.randint(3, 10))
    t0 = time.monotonic()
    try:
        with guarding(_guard()):
            choice = choose_run(pattern, "auto", "auto")
            m = choice.build(pattern)
            got = []
            for e in events:
                got.extend(m.feed(e))
            got.extend(m.close())
            want = oracle.run(pattern, events)
    except (EngineUnsupported, OracleUnsupported, PatternError) + STOPPED:
        assert time.monotonic() - t0 < LIMIT + 2
        return
    assert time.monotonic() - t0 < LIMIT + 2
    assert sorted(x.key for x in got) == sorted(x.key for x in want), text


def test_selection_generator_reaches_every_selection() -> None:
    rng = random.Random(1)
    texts = [selection_pattern(rng) for _ in range(200)]
    for word in ("earliest\n", "maximal", "earliest_maximal", "AND(", "WITHIN", "[]"):
        assert any(word in t for t in texts), word


# --------------------------------------------------------------------------- workloads

def agg_query(rng: random.Random) -> str:
    types = [rng.choice("ABC") for _ in range(rng.randint(1, 3))]
    comps = ", ".join(f"{t} v{k}" for k, t in enumerate(types))
    text = f"PATTERN SEQ({comps})\nAGG COUNT"
    if rng.random() < 0.6:
        text += f"\nWITHIN {rng.randint(2, 9)}"
    return text


def workload_text(rng: random.Random) -> str:
    blocks = [f"QUERY q{k}\n{agg_query(rng)}\n" for k in range(rng.randint(1, 4))]
    text = "\n".join(blocks)
    for _ in range(rng.randint(0, 2)):
        cut = rng.randrange(len(text) + 1)
        text = text[:cut] + rng.choice(["", "QUERY q0\n", "AGG", " SUM(v0.x)", ")", "\n\n", "QUERY 9\n", "--x\n",
                                        "PATTERN SEQ(A a)\n", "WITHIN -1\n"]) + text[cut + rng.randint(0, 3):]
    return text


@FUZZ
@given(st.randoms(use_true_random=False))
def test_fuzz_workloads_equal_each_query_alone(rng: random.Random) -> None:
    from engine.engines.aseq.engine import rows_for
    from engine.engines.aseq.workload import WorkloadError, WorkloadMatcher, parse_workload

    text = workload_text(rng)
    try:
        queries = parse_workload(text)
    except (WorkloadError, DslError, PatternError):
        return
    events = random_events(rng, rng.randint(2, 12))
    try:
        with guarding(_guard()):
            m = WorkloadMatcher(queries)
            rows = []
            for e in events:
                rows.extend(m.feed(e))
            rows.extend(m.close())
            for q in queries:
                alone = rows_for(q.pattern, events, "aseq-baseline")
                mine = [(r.ts, r.event, r.group, r.value) for r in rows if r.query == q.name]
                assert mine == [(r.ts, r.event, r.group, r.value) for r in alone], (text, q.name)
    except (EngineUnsupported,) + STOPPED:
        return


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_fuzz_workload_files_through_cep_run(rng: random.Random, tmp_path_factory, capsys) -> None:
    d = tmp_path_factory.mktemp("wl")
    wl = d / "w.cep"
    wl.write_text(workload_text(rng), encoding="utf-8")
    data = d / "d.csv"
    data.write_text("type,id,ts,x\n" + "".join(f"{e.type},{e.id},{int(e.ts)},{e.get('x')}\n"
                                               for e in random_events(rng, 8)), encoding="utf-8")
    rc, err = _cli(capsys, "run", str(wl), "--data", str(data), "--format", "jsonl", "--time-limit", str(LIMIT))
    assert rc in (0, 1, 2) and "unexpected error" not in err and "Traceback" not in err, err


# --------------------------------------------------------------------------- data files

def _cli(capsys, *argv: str) -> tuple[int, str]:
    t0 = time.monotonic()
    try:
        rc = main(list(argv))
    except SystemExit as exit_:
        rc = exit_.code
    err = capsys.readouterr().err
    assert time.monotonic() - t0 < LIMIT + 5, argv
    return rc, err


def csv_text(rng: random.Random) -> str:
    rows = ["type,id,ts,x"]
    for i, e in enumerate(random_events(rng, rng.randint(1, 10))):
        rows.append(f"{e.type},{i + 1},{int(e.ts)},{e.get('x')}")
    lines = rows
    for _ in range(rng.randint(0, 3)):
        k = rng.randrange(len(lines))
        op = rng.randrange(9)
        if op == 0:
            lines[k] = ",".join(lines[k].split(",")[:-1])  # a short row
        elif op == 1:
            lines[k] += ",extra"
        elif op == 2:
            lines[k] = lines[k].replace(",", ',"', 1)
        elif op == 3:
            lines[k] += "\x00"
        elif op == 4:
            lines[k] = lines[k].rsplit(",", 1)[0] + "," + rng.choice(["1e99999", "9" * 400, "nan", "-inf", "abc", ""])
        elif op == 5:
            lines.insert(k, lines[k])  # a duplicate id
        elif op == 6:
            lines[k] = "\ufeff" + lines[k]
        elif op == 7:
            lines[k] = lines[k][: rng.randrange(len(lines[k]) + 1)]
        else:
            lines[k] = lines[k].replace(",", ";")
    return "\n".join(lines) + rng.choice(["\n", "", "\r\n"])


def jsonl_text(rng: random.Random) -> str:
    lines = [json.dumps({"type": e.type, "id": i + 1, "ts": e.ts, "x": e.get("x")})
             for i, e in enumerate(random_events(rng, rng.randint(1, 10)))]
    for _ in range(rng.randint(0, 3)):
        k = rng.randrange(len(lines))
        op = rng.randrange(7)
        if op == 0:
            lines[k] = lines[k][: rng.randrange(len(lines[k]) + 1)]
        elif op == 1:
            depth = rng.choice([5, 120, 5000])
            lines[k] = lines[k][:-1] + ', "n": ' + "[" * depth + "]" * depth + "}"
        elif op == 2:
            lines[k] = lines[k].replace('"x"', '"x": 1, "x"')  # a repeated key
        elif op == 3:
            lines[k] = lines[k].replace('"ts": ', '"ts": "') .replace(', "x"', '", "x"')
        elif op == 4:
            lines[k] = "[" + lines[k] + "]"
        elif op == 5:
            lines[k] = lines[k].replace('"x": ', '"x": 1e400, "y": ')
        else:
            lines[k] = json.dumps([1, 2, 3])
    return "\n".join(lines) + "\n"


PATTERN = "PATTERN SEQ(A a, B b)\nWHERE b.x >= a.x\nWITHIN 6"


def _oracle_keys(path: Path) -> list | None:
    """The oracle's matches of a file that loads without a problem (None otherwise)."""
    from engine.engines.oracle import oracle
    from engine.events import DataError, load_events

    try:
        res = load_events(path)
    except DataError:
        return None
    if res.report.issues:
        return None
    return sorted(json.dumps(m.to_json(), sort_keys=True, default=str) for m in oracle.run(parse(PATTERN), res.events))


@FUZZ
@given(rng=st.randoms(use_true_random=False), kind=st.sampled_from(["csv", "jsonl", "bytes"]))
def test_fuzz_data_files(rng: random.Random, kind: str, tmp_path_factory, capsys) -> None:
    d = tmp_path_factory.mktemp("data")
    if kind == "csv":
        p = d / "f.csv"
        p.write_text(csv_text(rng), encoding="utf-8")
    elif kind == "jsonl":
        p = d / "f.jsonl"
        p.write_text(jsonl_text(rng), encoding="utf-8")
    else:
        p = d / rng.choice(["f.csv", "f.jsonl", "f.parquet", "f.json", "f.csv.gz"])
        p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))))
    for read in ("whole", "batches"):
        t0 = time.monotonic()
        try:
            rc = main(["run", PATTERN, "--data", str(p), "--format", "jsonl", "--read", read,
                       "--time-limit", str(LIMIT)])
        except SystemExit as exit_:
            rc = exit_.code
        out = capsys.readouterr()
        assert time.monotonic() - t0 < LIMIT + 5
        assert rc in (0, 1, 2), out.err
        assert "unexpected error" not in out.err and "Traceback" not in out.err, out.err
        if rc == 2:
            assert out.err.startswith(("cep: ", "line ")) or "cep: " in out.err, out.err
        if rc == 0 and read == "whole":
            want = _oracle_keys(p)
            if want is not None:
                got = sorted(json.dumps(json.loads(line), sort_keys=True, default=str)
                             for line in out.out.splitlines())
                assert got == want


def test_the_generators_make_refused_and_accepted_files(tmp_path, capsys):
    """The data fuzzing reaches both outcomes (a generator that only makes bad files
    would test nothing)."""
    rng = random.Random(7)
    codes = set()
    for k in range(30):
        p = tmp_path / f"f{k}.csv"
        p.write_text(csv_text(rng), encoding="utf-8")
        rc, _err = _cli(capsys, "run", PATTERN, "--data", str(p), "--format", "count")
        capsys.readouterr()
        codes.add(rc)
    assert {0, 2} <= codes


@pytest.mark.parametrize("seed", range(3))
def test_random_bytes_named_as_any_format_give_a_message(tmp_path, capsys, seed):
    rng = random.Random(seed)
    for name in ("f.csv", "f.jsonl", "f.parquet", "f.json"):
        p = tmp_path / name
        p.write_bytes(bytes(rng.randrange(256) for _ in range(200)))
        rc, err = _cli(capsys, "run", PATTERN, "--data", str(p))
        assert rc == 2 and err.startswith("cep: ") and "unexpected error" not in err, err
