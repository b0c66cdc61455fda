"""The API's errors are the CLI's: a pattern's with its line and column, the options refused by
``cep run``'s parser with its message, the data's named as ``cep run`` names them."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.commands.cli import main


def _cli_error(capsys, argv: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse refuses a flag value: usage and the message, exit 2
        status = int(stop.code or 0)
    return status, capsys.readouterr().err.strip()


def test_parse_error_has_line_and_column():
    with pytest.raises(engine.DslError) as err:
        engine.parse("PATTERN SEQ(A a, B b)\nWHERE a.x = c.x")
    assert (err.value.line, err.value.column) == (2, 13)
    assert "line 2, column 13" in str(err.value) and "^" in str(err.value)


def test_run_with_pattern_text_raises_the_parse_error_first():
    with pytest.raises(engine.DslError) as err:
        engine.run("PATTERN SEQ(A a, B b) WHERE a.x >", "sample:trades")
    assert err.value.line == 1


@pytest.mark.parametrize("options, flags", [
    ({"engine": "nope"}, ["--engine", "nope"]),
    ({"max_runs": 0}, ["--max-runs", "0"]),
    ({"time_limit": -1}, ["--time-limit=-1"]),
    ({"match_windows": "sometimes"}, ["--match-windows", "sometimes"]),
    ({"min_confidence": 2}, ["--min-confidence", "2"]),
])
def test_option_refusals_are_cep_runs(options, flags, capsys):
    with pytest.raises(engine.CommandError) as err:
        engine.run("PATTERN SEQ(Trade a, Trade b)", "sample:trades", **options)
    status, cli = _cli_error(capsys, ["run", "PATTERN SEQ(Trade a, Trade b)", "--data", "sample:trades", *flags])
    assert status == err.value.status == 2
    assert str(err.value).splitlines()[0] in cli


def test_unknown_option_names_the_nearest():
    with pytest.raises(TypeError, match="did you mean 'skip_bad_rows'"):
        engine.run("PATTERN SEQ(Trade a, Trade b)", "sample:trades", skip_bad_row=True)
    assert "max_runs" in engine.option_names() and "strategy" in engine.option_names()


def test_data_errors_as_cep_run_says_them(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("type,ts,x\nA,1,1\nB,oops,2\n", encoding="utf-8")
    with pytest.raises(engine.CommandError) as err:
        engine.run("PATTERN SEQ(A a, B b)", str(bad))
    status, cli = _cli_error(capsys, ["run", "PATTERN SEQ(A a, B b)", "--data", str(bad)])
    assert status == err.value.status == 2
    assert cli == f"cep: {err.value}"
    assert "row 2" in str(err.value) or "line 3" in str(err.value)
    # the same rows in memory: the same report, named <records>
    with pytest.raises(engine.CommandError) as mem:
        engine.run("PATTERN SEQ(A a, B b)", [{"type": "A", "ts": 1, "x": 1}, {"type": "B", "ts": "oops", "x": 2}])
    assert str(mem.value).startswith("<records>: the data has problems")
    assert len(engine.run("PATTERN SEQ(A a, B b)", str(bad), skip_bad_rows=True)) == 0


def test_unknown_attribute_names_its_place():
    with pytest.raises(engine.CommandError, match=r"line 1, column \d+: unknown attribute `y`"):
        engine.run("PATTERN SEQ(A a, B b) WHERE a.y = 1", [{"type": "A", "ts": 1, "x": 1}])


def test_bad_data_values_are_refused():
    with pytest.raises(TypeError, match="data must be a path"):
        engine.run("PATTERN SEQ(A a, B b)", 3.5)
    with pytest.raises(engine.CommandError, match="record 2 is a list"):
        engine.run("PATTERN SEQ(A a, B b)", [{"type": "A", "ts": 1}, ["B", 2]])
    with pytest.raises(engine.CommandError, match="data is required"):
        engine.run("PATTERN SEQ(A a, B b)")


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet="PATERNSQ(), ABab.=<>1\n", min_size=1, max_size=40))
def test_parse_raises_only_the_dsl_error(text):
    """Any text: a pattern, or a DslError with a line and column inside the text (or none)."""
    try:
        engine.parse(text)
    except engine.DslError as err:
        if err.line is not None:
            assert 1 <= err.line <= text.count("\n") + 1


def test_spark_option_values():
    with pytest.raises(engine.CommandError, match="spark must be True or a master URL"):
        engine.run("PATTERN SEQ(Trade a, Trade b)", "sample:trades", spark=2)
    with pytest.raises(engine.CommandError, match="name two masters"):
        engine.run("PATTERN SEQ(Trade a, Trade b)", "sample:trades", spark="local[1]", master="local[2]")


def test_min_confidence_on_point_data_is_cep_runs_refusal(capsys):
    with pytest.raises(engine.CommandError) as err:
        engine.run("PATTERN SEQ(Trade a, Trade b)", "sample:trades", min_confidence=0.5)
    status, cli = _cli_error(capsys, ["run", "PATTERN SEQ(Trade a, Trade b)", "--data", "sample:trades",
                                      "--min-confidence", "0.5"])
    assert status == err.value.status and cli == f"cep: {err.value}"
