"""No crash from a file, no input destroyed, nothing lost in streams without a word:
JSON nesting depth refused with its line before pyarrow reads it; every output path that
is an input, a directory or in a missing directory refused before anything is written;
``cep stream`` names a file that changed after it was read and states the write-then-rename
rule; ``cep explain`` and ``cep trace`` answer on interval data and AGG patterns."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.commands.cli import main
from tests.support import run


def deep_jsonl(tmp_path: Path, depth: int = 20_000, name: str = "deep.jsonl") -> Path:
    rows = [json.dumps({"type": "A", "id": i, "ts": i, "x": 1}) for i in range(25)]
    rows.append('{"type": "A", "id": 99, "ts": 99, "x": ' + "[" * depth + "]" * depth + "}")
    rows += [json.dumps({"type": "B", "id": 100 + i, "ts": 100 + i, "x": 1}) for i in range(3)]
    p = tmp_path / name
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


# --------------------------------------------------------------------------- JSON depth

@pytest.mark.parametrize("read", ["whole", "batches"])
def test_deeply_nested_json_lines_are_refused_with_the_line(tmp_path, capsys, read):
    p = deep_jsonl(tmp_path)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", p, "--read", read)
    assert rc == 2
    assert "line 26 nests arrays or objects more than 100 deep" in err


def test_depth_check_runs_before_pyarrow(tmp_path, monkeypatch):
    import pyarrow.json as pj

    from engine.events import DataError, load_events

    def never(*_a, **_k):
        raise AssertionError("pyarrow saw a file nested too deep")

    monkeypatch.setattr(pj, "read_json", never)
    with pytest.raises(DataError, match="line 26"):
        load_events(deep_jsonl(tmp_path, depth=150))


def test_depth_check_ignores_brackets_in_strings_and_allows_modest_nesting(tmp_path):
    from engine.events.formats import MAX_JSON_DEPTH, check_json_depth

    p = tmp_path / "ok.jsonl"
    p.write_text(json.dumps({"type": "A", "s": "[" * 500 + '\\"{'}) + "\n"
                 + json.dumps({"type": "A", "v": [[[[1]]]]}) + "\n", encoding="utf-8")
    check_json_depth(p)
    nested = tmp_path / "limit.jsonl"
    nested.write_text('{"v": ' + "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1) + "}\n", encoding="utf-8")
    check_json_depth(nested)  # exactly at the limit


def test_deep_json_array_is_refused_cleanly(tmp_path, capsys):
    p = tmp_path / "arr.json"
    p.write_text("[\n" + "[\n" * 5000 + "]\n" * 5000 + "]\n", encoding="utf-8")
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", p)
    assert rc == 2 and "nested too deeply" in err


def test_the_issue_file_does_not_kill_the_process(tmp_path):
    """A 40 KB file whose 26th row nests an array 20,000 deep used to segfault `cep run`."""
    import subprocess
    import sys

    p = deep_jsonl(tmp_path)
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "engine.commands.cli", "run", "PATTERN SEQ(A a, B b)", "--data", str(p)],
                       capture_output=True, text=True, timeout=120, cwd=root,
                       env={**os.environ, "PYTHONPATH": str(root)})
    assert r.returncode == 2 and "line 26" in r.stderr


# --------------------------------------------------------------------------- output paths

def small_csv(tmp_path: Path) -> Path:
    p = tmp_path / "f.csv"
    p.write_text("type,id,ts\nA,1,1\nB,2,2\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink"])
@pytest.mark.parametrize("command", ["run", "run-agg", "trace"])
def test_out_that_is_the_input_is_refused_and_the_input_kept(tmp_path, capsys, monkeypatch, how, command):
    data = small_csv(tmp_path)
    before = data.read_bytes()
    monkeypatch.chdir(tmp_path)
    if how == "same":
        out = str(data)
    elif how == "relative":
        out = "./f.csv"
    elif how == "symlink":
        os.symlink(data, tmp_path / "link.csv")
        out = str(tmp_path / "link.csv")
    else:
        os.link(data, tmp_path / "hard.csv")
        out = str(tmp_path / "hard.csv")
    pattern = "PATTERN SEQ(A a, B b)" + (" AGG COUNT" if command == "run-agg" else "")
    rc, _out, err = run(capsys, command.split("-")[0], pattern, "--data", str(data), "--out", out)
    assert rc == 2 and "is the input file" in err
    assert data.read_bytes() == before


def test_out_that_is_the_pattern_file_is_refused(tmp_path, capsys):
    data = small_csv(tmp_path)
    pat = tmp_path / "p.cep"
    pat.write_text("PATTERN SEQ(A a, B b)\n", encoding="utf-8")
    rc, _out, err = run(capsys, "run", pat, "--data", data, "--out", pat)
    assert rc == 2 and "is the input file" in err
    assert pat.read_text(encoding="utf-8") == "PATTERN SEQ(A a, B b)\n"


@pytest.mark.parametrize("command", ["run", "trace"])
def test_out_to_a_directory_or_a_missing_directory_is_a_clean_error(tmp_path, capsys, command):
    data = small_csv(tmp_path)
    for out in (str(tmp_path) + "/", str(tmp_path), str(tmp_path / "nope" / "x.jsonl")):
        rc, _out, err = run(capsys, command, "PATTERN SEQ(A a, B b)", "--data", data, "--out", out)
        assert rc == 2 and err.startswith("cep: --out"), err


def test_interval_out_to_the_input_is_refused(tmp_path, capsys):
    p = tmp_path / "iv.csv"
    p.write_text("type,id,lower,upper\nA,1,1,2\nB,2,3,4\n", encoding="utf-8")
    before = p.read_bytes()
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b)", "--data", p, "--lower-col", "lower",
                        "--upper-col", "upper", "--out", p)
    assert rc == 2 and "is the input file" in err and p.read_bytes() == before


# --------------------------------------------------------------------------- stream

def test_stream_out_inside_the_source_is_refused(tmp_path):
    from engine.commands.arguments import CommandError
    from engine.commands.output_paths import check_out_dir

    src = tmp_path / "in"
    src.mkdir()
    for out in (src, src / "out", tmp_path):
        with pytest.raises(CommandError, match="watched directory"):
            check_out_dir(str(out), str(src))
    (tmp_path / "file").write_text("x")
    with pytest.raises(CommandError, match="is a file"):
        check_out_dir(str(tmp_path / "file"), str(src))
    check_out_dir(str(tmp_path / "elsewhere"), str(src))


def test_change_watcher_names_a_file_written_after_it_was_seen(tmp_path):
    from engine.spark.stream_files import ChangeWatcher

    f = tmp_path / "a.csv"
    f.write_text("type,id,ts\nA,1,1\n")
    (tmp_path / ".b.csv").write_text("type,id,ts\n")
    (tmp_path / "_c.csv").write_text("type,id,ts\n")
    (tmp_path / "d.csv.tmp").write_text("type,id,ts\n")
    w = ChangeWatcher(tmp_path, ("csv", "tsv"))
    assert w.poll() == []
    with open(f, "a") as fh:
        fh.write("B,2,2\n")
    for name in (".b.csv", "_c.csv", "d.csv.tmp"):
        with open(tmp_path / name, "a") as fh:
            fh.write("B,2,2\n")  # ignored names: being written is fine
    msgs = w.poll()
    assert len(msgs) == 1 and "a.csv changed after the stream saw it" in msgs[0] and "rename" in msgs[0]
    assert w.poll() == []  # told once


def test_changed_since_listed_compares_sizes(tmp_path):
    from engine.spark.stream_files import changed_since_listed

    f = tmp_path / "a.csv"
    f.write_text("type,id,ts\nA,1,1\n")
    size = f.stat().st_size
    assert changed_since_listed(f"file://{f}", size, None, size) is None
    assert "changed after the stream read it" in changed_since_listed(str(f), size - 3, None, size)
    with open(f, "a") as fh:
        fh.write("B,2,2\n")
    assert "has " in changed_since_listed(str(f), size, None, size)


def test_stream_help_states_the_write_then_rename_rule(capsys):
    with pytest.raises(SystemExit):
        main(["stream", "--help"])
    out = capsys.readouterr().out
    assert "rename" in out and "read once" in out


def test_readme_states_the_write_then_rename_rule():
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    line = text[text.index("- `cep stream`"):].split("\n- ", 1)[0]
    assert "rename" in line and "ignores" in line


# --------------------------------------------------------------------------- explain, trace

def test_explain_on_interval_data_gives_the_run_verdict(capsys):
    rc, out, err = run(capsys, "explain", "preset:cluster/query1", "--data", "sample:cluster", "--why-not", "1,2,4,5")
    assert rc == 0, err
    assert out.startswith("signature 1 of `cep run`") and "confidence 1/1" in out
    rc, out, _err = run(capsys, "explain", "preset:cluster/query1", "--data", "sample:cluster", "--why-not",
                        "1,2,4,5", "--format", "json")
    d = json.loads(out)
    assert d["verdict"] == "match" and d["confidence_exact"] == "1/1" and d["match"] == {
        "a": [1], "b": [2], "c": [4], "d": [5]}


def test_explain_interval_signatures_agree_with_cep_run(capsys):
    rc, out, _ = run(capsys, "run", "preset:cluster/query1", "--data", "sample:cluster", "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and rows
    for k, row in enumerate(rows, 1):
        rc, out, _ = run(capsys, "explain", "preset:cluster/query1", "--data", "sample:cluster", "--match", str(k),
                         "--format", "json")
        d = json.loads(out)
        assert rc == 0 and d["match"] == row["match"] and d["confidence_exact"] == row["confidence_exact"]
    rc, out, _ = run(capsys, "explain", "preset:cluster/query1", "--data", "sample:cluster", "--why-not", "1,3,2,5")
    assert rc == 0 and out.startswith("no match (engine uncertain-event)")


def test_trace_table_on_an_agg_pattern_shows_rows(tmp_path, capsys):
    data = small_csv(tmp_path)
    rc, out, err = run(capsys, "trace", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--format", "table")
    assert rc == 0, err
    assert "ROW event=2 group=null value=1" in out


def test_trace_table_on_interval_data_shows_signatures(capsys):
    rc, out, err = run(capsys, "trace", "preset:cluster/query1", "--data", "sample:cluster", "--format", "table")
    assert rc == 0, err
    assert "MATCH a=1 b=2 c=4 d=5 range=[1, 5] confidence=1.0" in out


def test_explain_on_an_agg_pattern_says_what_it_explains(tmp_path, capsys):
    data = small_csv(tmp_path)
    rc, out, err = run(capsys, "explain", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--match", "1")
    assert rc == 0 and "a=[1] b=[2]" in out
    assert "aggregate rows" in err
