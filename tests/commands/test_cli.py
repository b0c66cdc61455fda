"""The `cep` command end to end: check, run (every format, engines, errors), samples."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import sample_streams
from engine.commands.cli import main
from tests.support import run

Q3 = sample_streams.load("stocks_sase").presets["stock_trend"]


def test_check_prints_normalised_dsl(capsys):
    code, out, _ = run(capsys, "check", "PATTERN seq(Stock+ a[], Stock b) where SKIP_TILL_NEXT_MATCH "
                                        "and [symbol] and b.volume < 80% * a[a.LEN].volume within 1 HOUR")
    assert code == 0
    assert out == ("PATTERN SEQ(Stock+ a[], Stock b)\nWHERE skip_till_next_match\n  AND [symbol]\n"
                   "  AND b.volume < 80% * a[a.len].volume\nWITHIN 1 hour\n")


def test_check_error_has_line_column_caret_and_exit_2(capsys):
    code, out, err = run(capsys, "check", "PATTERN SEQ(Stock a, Stock b)\nWHERE a.price > 10\nWIHTIN 1 hour")
    assert code == 2 and out == ""
    assert "line 3, column 1" in err and "did you mean `WITHIN`?" in err
    assert "\n  WIHTIN 1 hour\n  ^^^^^^" in err


def test_check_reads_a_file(tmp_path, capsys):
    f = tmp_path / "q.cep"
    f.write_text(Q3)
    code, out, _ = run(capsys, "check", str(f))
    assert code == 0 and out.startswith("PATTERN SEQ(Stock+ a[], Stock b)")


def test_run_jsonl_is_the_public_contract(tmp_path, capsys):
    code, out, _ = run(capsys, "run", "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase",
                       "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows == [
        {"match": {"a": [1, 2, 3, 4, 5], "b": [6]}, "start": 1.0, "end": 6.0},
        {"match": {"a": [3, 4], "b": [6]}, "start": 3.0, "end": 6.0},
        {"match": {"a": [1, 2, 3, 4, 5, 6, 7], "b": [8]}, "start": 1.0, "end": 8.0},
    ] or sorted(map(json.dumps, rows)) == sorted(map(json.dumps, [
        {"match": {"a": [1, 2, 3, 4, 5], "b": [6]}, "start": 1.0, "end": 6.0},
        {"match": {"a": [3, 4], "b": [6]}, "start": 3.0, "end": 6.0},
        {"match": {"a": [1, 2, 3, 4, 5, 6, 7], "b": [8]}, "start": 1.0, "end": 8.0}]))


def test_run_count_table_csv_and_out(tmp_path, capsys):
    data = str(sample_streams.load("stocks_sase").path)
    any_q = sample_streams.load("stocks_sase").presets["stock_trend_any"]
    assert run(capsys, "run", any_q, "--data", data, "--format", "count")[1] == "68\n"
    code, out, _ = run(capsys, "run", any_q, "--data", data, "--format", "count", "--engine", "oracle")
    assert out == "68\n"
    code, out, _ = run(capsys, "run", Q3, "--data", data)
    assert code == 0 and out.splitlines()[0].split() == ["#", "start", "end", "a", "b"]
    assert out.splitlines()[-1] == "(3 matches)"
    dest = tmp_path / "m.csv"
    code, out, _ = run(capsys, "run", Q3, "--data", data, "--format", "csv", "--out", str(dest))
    assert code == 0 and out == ""
    lines = dest.read_text().splitlines()
    assert lines[0] == "match,start,end,a,b" and len(lines) == 4
    assert "1 2 3 4 5,6" in lines[1] or "1 2 3 4 5,6" in "".join(lines)


def test_optional_and_or_vars_map_to_empty_lists(tmp_path, capsys):
    f = tmp_path / "d.csv"
    f.write_text("type,ts,id\nA,1,10\nB,2,11\n")
    code, out, _ = run(capsys, "run", "PATTERN SEQ(A a, C? c, OR(B b, D d))", "--data", str(f), "--format", "jsonl")
    assert code == 0
    assert json.loads(out) == {"match": {"a": [10], "c": [], "b": [11], "d": []}, "start": 1.0, "end": 2.0}


def test_bad_data_gives_the_report_not_a_traceback(tmp_path, capsys):
    f = tmp_path / "bad.csv"
    f.write_text("type,ts,price\nStock,1,10\n,2,11\nStock,xyz,12\nStock,4,abc\n")
    code, out, err = run(capsys, "run", "PATTERN SEQ(Stock a, Stock b) WHERE b.price > a.price", "--data", str(f))
    assert code == 2 and out == ""
    assert "Traceback" not in err
    # file lines (the header is line 1), with the data row beside them
    assert "  line 3 (data row 2), column type: missing event type\n" in err
    assert "  line 4 (data row 3), column ts: cannot parse 'xyz' as a number or ISO date-time\n" in err
    assert ("  line 5 (data row 4), column price: non-numeric value compared numerically: "
            "Stock.price = 'abc'") in err
    code, out, err = run(capsys, "run", "PATTERN SEQ(Stock a, Stock b) WHERE b.price > a.price", "--data", str(f),
                         "--skip-bad-rows", "--format", "count")
    assert code == 0 and out == "0\n"  # 'abc' compares false; the rejected rows are listed on stderr
    assert "line 3 (data row 2), column type" in err


def test_missing_column_and_missing_file(tmp_path, capsys):
    f = tmp_path / "d.csv"
    f.write_text("kind,time\nA,1\n")
    code, _, err = run(capsys, "run", "PATTERN SEQ(A a)", "--data", str(f))
    assert code == 2 and "type" in err
    code, _, err = run(capsys, "run", "PATTERN SEQ(A a)", "--data", str(f), "--type-col", "kind", "--ts-col", "time",
                       "--format", "count")
    assert code == 0
    code, _, err = run(capsys, "run", "PATTERN SEQ(A a)", "--data", str(tmp_path / "nope.csv"))
    assert code == 2 and "nope.csv" in err


def test_unknown_attribute_against_the_data(capsys):
    code, _, err = run(capsys, "run", "PATTERN SEQ(Stock a) WHERE a.prise > 1", "--data", "sample:stocks_sase")
    assert code == 2 and "did you mean `price`?" in err and "^^^" in err


def test_engine_refusal_is_clear(capsys):
    code, _, err = run(capsys, "run", Q3, "--data", "sample:stocks_sase", "--engine", "oracle")
    assert code == 2 and "skip_till_any_match" in err


def test_state_explosion_exit_1(tmp_path, capsys):
    f = tmp_path / "d.csv"
    f.write_text("type,ts\n" + "".join(f"A,{i}\n" for i in range(40)))
    code, _, err = run(capsys, "run", "PATTERN SEQ(A+ a[], A b) WHERE skip_till_any_match WITHIN 100",
                       "--data", str(f), "--max-runs", "5000", "--format", "count")
    assert code == 1 and "state explosion" in err and "skip_till_any_match" in err


def test_samples_lists_presets(capsys):
    code, out, _ = run(capsys, "samples")
    assert code == 0
    for name in sample_streams.names():
        assert f"{name}:" in out
    assert "preset:stocks_sase/stock_trend" in out


def test_console_script_installed():
    exe = shutil.which("cep") or str(Path(sys.executable).parent / "cep")
    out = subprocess.run([exe, "run", "preset:rfid/shoplifting", "--data", "sample:rfid", "--format", "count"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "3\n"


def test_nothing_below_the_cli_imports_it():
    """engine/spark and the modules the CLI shares (arguments, output) never import engine.commands.cli."""
    import ast

    engine_dir = Path(__file__).resolve().parents[2] / "engine"
    files = [*sorted((engine_dir / "spark").rglob("*.py")), engine_dir / "commands" / "arguments.py", engine_dir / "commands" / "output.py"]
    offenders = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if isinstance(node, ast.ImportFrom):
                names += [f"{node.module or ''}.{a.name}" for a in node.names]
            if any(n in ("cli", "engine.commands.cli", ".cli") or n.endswith(".cli") or n.endswith("engine.commands.cli") for n in names):
                offenders.append(f"{f.name}:{node.lineno}")
    assert offenders == []


def test_a_subcommand_module_plugs_in_with_one_line(tmp_path, monkeypatch, capsys):
    from engine.commands import cli

    (tmp_path / "cep_hello_cmd.py").write_text(
        "from engine.commands.arguments import CommandError\n"
        "def add_parser(sub):\n"
        "    p = sub.add_parser('hello', help='say hello')\n"
        "    p.add_argument('name')\n"
        "    return p\n"
        "def run(args):\n"
        "    if args.name == 'nobody':\n"
        "        raise CommandError('nobody to greet', status=1)\n"
        "    print('hello', args.name)\n"
        "    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "COMMANDS", {**cli.COMMANDS, "hello": "cep_hello_cmd"})
    assert run(capsys, "hello", "you") == (0, "hello you\n", "")
    assert run(capsys, "hello", "nobody") == (1, "", "cep: nobody to greet\n")
    assert run(capsys, "check", "PATTERN SEQ(A a)")[0] == 0  # the built-ins are still there


def test_mapping_from_args_takes_a_namespace_or_a_dict():
    import argparse

    from engine.commands.arguments import add_mapping_args, mapping_from_args

    ap = argparse.ArgumentParser()
    add_mapping_args(ap)
    ns = ap.parse_args(["--ts-col", "time", "--id-col", "key"])
    hint = {"type_col": "kind", "ts_col": "t0"}
    m1 = mapping_from_args(ns, hint)
    m2 = mapping_from_args({"ts_col": "time", "id_col": "key"}, hint)
    assert m1 == m2
    assert (m1.type_col, m1.ts_col, m1.id_col) == ("kind", "time", "key")


def test_na_text_is_matched_as_written(tmp_path, capsys):
    """The CSV text NA is the string 'NA' (and a type may be called NA)."""
    f = tmp_path / "na.csv"
    f.write_text("type,ts,id,name\nNA,1,1,NA\nB,2,2,null\nB,3,3,\n")
    code, out, err = run(capsys, "run", "PATTERN SEQ(NA a, B b) WHERE a.name = 'NA' AND b.name = 'null'",
                         "--data", str(f), "--format", "jsonl")
    assert code == 0, err
    assert [json.loads(line)["match"] for line in out.splitlines()] == [{"a": [1], "b": [2]}]


def test_check_imports_only_what_it_needs():
    """Start-up: `cep check` builds only its own parser and imports neither the
    planner and matchers nor pandas / pyarrow / networkx / pyspark."""
    code = ("import sys; from engine.commands.cli import main; main(['check', 'PATTERN SEQ(A a, B b) WITHIN 10']); "
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pandas', 'numpy', 'pyarrow', 'networkx', 'pyspark') or m in ('engine.engines.planner', 'engine.matchers')); "
            "print(heavy, file=sys.stderr); sys.exit(1 if heavy else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("PATTERN SEQ(A a, B b)")


def test_unknown_command_lists_every_command(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(["nope"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nope'" in err and "check" in err and "run" in err and "stream" in err


def test_engine_choices_are_the_planners(capsys):
    import pytest

    from engine.engines.planner import engine_names

    with pytest.raises(SystemExit):
        main(["run", "PATTERN SEQ(A a)", "--data", "x.csv", "--engine", "bogus"])
    err = capsys.readouterr().err
    assert "argument --engine: invalid choice: 'bogus' (choose from " + ", ".join(map(repr, engine_names())) in err
