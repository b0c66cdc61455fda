"""engine.spark.columnar_run: a CSV read in byte ranges by Python tasks, matched by the lazy chain's
columnar path on Spark, gives exactly ``cep run``'s matches in process (keyed, time-chunked, a count
window, ranges cut anywhere), counts them without building them, and steps aside (None) where a
whole-file read could answer differently (problem rows, unsorted rows, typing that differs between
ranges, a window longer than a range)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.dsl import parse
from engine.events import load_events
from engine.events.event_columns import type_counts
from engine.run_choice import choose_run
from engine.spark.columnar_run import run_columnar
from engine.spark.range_read import byte_ranges, key_hash, read_prefix, records_before
from engine.type_filter import bindable_types

pytestmark = pytest.mark.spark

KEYED = "PATTERN SEQ(A a, B b, C c) WHERE [key] AND b.value > a.value WITHIN 40"
CHUNKED = "PATTERN SEQ(A a, B b, C c) WHERE a.key = c.key AND b.value > a.value WITHIN 6"
COUNTED = "PATTERN SEQ(A a, C c) WHERE a.key = c.key WITHIN 5 EVENTS"
COUNTED_CHUNKS = "PATTERN SEQ(A a, B b, C c) WHERE a.key = c.key WITHIN 8 EVENTS"
MODES = {KEYED: "keyed", CHUNKED: "time-chunked", COUNTED: "keyed", COUNTED_CHUNKS: "time-chunked"}


def _write(path: Path, n: int, seed: int, keys: int = 7, value=lambda r: r.randint(0, 50)) -> Path:
    r = random.Random(seed)
    lines = ["id,type,ts,key,value"]
    for i in range(n):
        lines.append(f"{i * 3 + 1},{r.choice('ABCD')},{i},{r.randint(0, keys)},{value(r)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _in_process(text: str, path: Path, ordered: bool = True) -> list[dict]:
    """``cep run``'s in-process matches (the columnar load, the planner with the type counts), in
    canonical order, or (``ordered`` False) in the order ``cep run`` writes them."""
    pattern = parse(text)
    loaded = load_events(path, lazy=True, types=bindable_types(pattern))
    choice = choose_run(pattern, "auto", "auto", rates=type_counts(loaded.events))
    matcher = choice.build(pattern)
    out = []
    for e in loaded.events:
        out.extend(matcher.feed(e))
    out.extend(matcher.close())
    if not ordered:
        return [m.to_json() for m in out]
    out.sort(key=lambda m: (m.end_seq, m.start_seq, repr(m.bindings)))
    return [m.to_json() for m in out]


@pytest.mark.parametrize("text", list(MODES))
@pytest.mark.parametrize("parts", [2, 5])
@pytest.mark.parametrize("layout", ["ranges", "shuffle"])
def test_same_matches_as_in_process(spark, tmp_path, text, parts, layout):
    path = _write(tmp_path / "events.csv", 600, seed=parts)
    want = _in_process(text, path)
    assert want  # the data has matches
    got = run_columnar(parse(text), str(path), spark, parts=parts, layout=layout)
    assert got is not None, "the columnar path should take a plain sorted CSV"
    assert got.mode == (MODES[text] if layout == "shuffle" else "time-chunked")
    assert got.engine == "lazy-chain"
    assert sorted(m.to_json()["match"].__repr__() for m in got.to_matches()) == sorted(w["match"].__repr__() for w in want)
    if layout == "ranges":  # in cep run's own order
        assert [m.to_json() for m in got.to_matches()] == _in_process(text, path, ordered=False)
    else:
        assert [m.to_json() for m in got.to_matches()] == want
    assert got.count == len(want)
    counted = run_columnar(parse(text), str(path), spark, parts=parts, count_only=True, layout=layout)
    assert counted is not None and counted.count == len(want) and counted.table is None
    assert got.report.rows_read == 600 and got.report.rows_loaded == 600 and not got.report.issues


def test_floats_and_missing_values(spark, tmp_path):
    """A float column with missing cells (None travels in the Arrow column) compares as in process."""
    path = _write(tmp_path / "floats.csv", 400, seed=3, value=lambda r: r.choice(["1.5", "7", "", "0.125", "-3.25"]))
    got = run_columnar(parse(KEYED), str(path), spark, parts=3)
    assert got is not None
    assert [m.to_json() for m in got.to_matches()] == _in_process(KEYED, path, ordered=False)


def test_steps_aside_for_problem_rows_and_unsorted_rows(spark, tmp_path):
    path = _write(tmp_path / "bad.csv", 200, seed=1)
    lines = path.read_text().splitlines()
    lines[50] = "999,A,notatime,1,2"
    path.write_text("\n".join(lines) + "\n")
    assert run_columnar(parse(KEYED), str(path), spark, parts=2) is None
    unsorted = _write(tmp_path / "unsorted.csv", 200, seed=2)
    lines = unsorted.read_text().splitlines()
    lines[10], lines[150] = lines[150], lines[10]
    unsorted.write_text("\n".join(lines) + "\n")
    assert run_columnar(parse(KEYED), str(unsorted), spark, parts=2) is None


def test_a_window_longer_than_a_range(spark, tmp_path):
    """Ranges: a task reads back as far as the window reaches; shuffled chunks step aside."""
    path = _write(tmp_path / "short.csv", 100, seed=4)
    wide = "PATTERN SEQ(A a, B b, C c) WHERE a.key = c.key AND b.value > a.value WITHIN 60"
    assert run_columnar(parse(wide), str(path), spark, parts=4, layout="shuffle") is None
    got = run_columnar(parse(wide), str(path), spark, parts=4)
    assert got is not None and [m.to_json() for m in got.to_matches()] == _in_process(wide, path, ordered=False)


def test_steps_aside_for_other_inputs(spark, tmp_path):
    path = _write(tmp_path / "events.csv", 50, seed=5)
    single = "PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5"  # one partition: not this path
    assert run_columnar(parse(single), str(path), spark) is None
    assert run_columnar(parse(KEYED), str(tmp_path / "missing.csv"), spark) is None
    jsonl = tmp_path / "events.jsonl"
    jsonl.write_text('{"id": 1, "type": "A", "ts": 1, "key": 1, "value": 1}\n')
    assert run_columnar(parse(KEYED), str(jsonl), spark) is None


def test_byte_ranges_start_at_lines(tmp_path):
    path = _write(tmp_path / "events.csv", 1000, seed=6)
    data = path.read_bytes()
    header, ranges = byte_ranges(str(path), 7)
    assert header == data.split(b"\n", 1)[0] + b"\n"
    assert ranges[0][0] == len(header) and ranges[-1][1] == len(data)
    for (a, b), (c, _) in zip(ranges, ranges[1:]):
        assert b == c and data[c - 1:c] == b"\n"
    assert b"".join(data[a:b] for a, b in ranges) == data[len(header):]


def test_key_hash_follows_python_equality():
    for parts in (2, 3, 8):
        assert key_hash((1,), parts) == key_hash((1.0,), parts) == key_hash((True,), parts)
        assert key_hash(("k",), parts) == key_hash(("k",), parts)


@pytest.mark.parametrize("count_window", [False, True])
def test_read_prefix_reads_back_block_by_block(tmp_path, count_window):
    """The events before a range back to the window's reach, read in growing blocks from the range's
    start, with global seqs; equal to the same events of a whole-file read."""
    path = _write(tmp_path / "events.csv", 3000, seed=7)
    header, ranges = byte_ranges(str(path), 3)
    start = ranges[2][0]
    offset = records_before(str(path), len(header), start)
    loaded = load_events(path, lazy=True)
    need = offset - 700 if count_window else float(loaded.events.ts[offset]) - 700
    mapping = loaded.mapping
    why, got = read_prefix(str(path), header, len(header), start, ",", mapping, None, offset, need, count_window,
                           {}, block=512)
    assert why == "" and got is not None
    events = loaded.events
    assert list(got.seqs) == list(events.seqs[got.seqs[0]:offset])
    assert got.seqs[0] <= need + 1 and (got.seqs[0] == 0 or (events.seqs if count_window else events.ts)[got.seqs[0] - 1] < need)
    def facts(evs):
        return [(e.id, e.type, e.ts, e.seq, e.attrs) for e in evs]

    assert facts(got.events()) == facts(events.events()[got.seqs[0]:offset])


@pytest.mark.parametrize("fmt", ["count", "jsonl"])
def test_cep_run_spark_takes_this_path(spark, tmp_path, capsys, fmt):
    """``cep run --spark`` on a plain CSV: this path (its stats say so), the in-process output."""
    from engine.commands import cli

    path = _write(tmp_path / "events.csv", 800, seed=8)
    assert cli.main(["run", KEYED, "--data", str(path), "--format", fmt]) == 0
    want = capsys.readouterr().out
    assert cli.main(["run", KEYED, "--data", str(path), "--format", fmt, "--spark", "--stats"]) == 0
    got = capsys.readouterr()
    assert got.out == want
    assert "python-ranges" in got.err


def test_text_compared_as_numbers_takes_the_usual_read(spark, tmp_path):
    path = _write(tmp_path / "text.csv", 300, seed=9, value=lambda r: r.choice(["x", "3", "5"]))
    assert run_columnar(parse(KEYED), str(path), spark, parts=2) is None


def test_single_event_match_texts_equal_the_general_ones():
    from engine.match import Match
    from engine.spark.match_rows import MatchColumns

    for names in (("a", "b", "c"), ("x", "y"), ("p", "q", "r", "s")):
        ms = [Match(tuple((v, (k * 7 + j,)) for j, v in enumerate(names)), float(k), float(k + 1), k, k + 1)
              for k in range(20)]
        fast, general = MatchColumns(ints=True, single=True), MatchColumns(ints=True)
        fast.add(ms, None)
        general.add(ms, None)
        assert fast.batch().to_pylist() == general.batch().to_pylist()


def test_a_missing_column_takes_the_usual_read(spark, tmp_path, capsys):
    """A read failing in a task (here: no ts column) gives the usual read's message, as in process."""
    from engine.commands import cli

    path = tmp_path / "nots.csv"
    path.write_text("id,type,key,value\n1,A,1,2\n2,B,1,3\n3,C,1,4\n")
    assert run_columnar(parse(KEYED), str(path), spark, parts=2) is None
    assert cli.main(["run", KEYED, "--data", str(path), "--format", "count"]) != 0
    want = capsys.readouterr().err
    assert cli.main(["run", KEYED, "--data", str(path), "--format", "count", "--spark"]) != 0
    got = capsys.readouterr().err
    assert want.strip().splitlines()[-1] in got
