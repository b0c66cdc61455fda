"""MATCH_RECOGNIZE queries through the API: the rows of ``cep run QUERY.sql --format jsonl`` on
every input kind, explain as ``cep explain``, and the errors with their place."""
from __future__ import annotations

import json

import pytest

import engine
from tests.api.conftest import SAMPLES, cli_jsonl

SQL = SAMPLES / "sql"


@pytest.mark.parametrize("query", ["v_shape", "w_shape"])
def test_query_rows_equal_cep_run_on_every_input_kind(query, capsys, tmp_path):
    import pyarrow.csv as pcsv

    path = SQL / f"{query}.sql"
    data = SQL / "ticker.csv"
    expected = cli_jsonl(capsys, ["run", str(path), "--data", str(data)])
    assert expected.strip()
    table = pcsv.read_csv(data)
    text = path.read_text(encoding="utf-8")
    parsed = engine.parse(text)
    assert parsed.kind == "sql"
    for kind, value in {"path": str(data), "pandas": table.to_pandas(), "arrow": table,
                        "records": table.to_pylist()}.items():
        result = engine.run(parsed, value)
        assert result.to_jsonl() == expected, kind
        assert list(result.to_pandas().columns) == result.columns
    assert result.to_records() == [json.loads(line) for line in expected.splitlines()]


def test_query_explain_equals_cep_explain(capsys):
    from engine.commands.cli import main

    path, data = SQL / "v_shape.sql", SQL / "ticker.csv"
    capsys.readouterr()
    assert main(["explain", str(path), "--data", str(data), "--match", "1"]) == 0
    expected = capsys.readouterr().out
    assert str(engine.run(path.read_text(encoding="utf-8"), str(data)).explain(1)) == expected


def test_query_errors_have_their_place():
    with pytest.raises(engine.SqlError) as err:
        engine.parse("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B) DEFINE B AS B.v >)")
    assert err.value.line == 1 and err.value.column > 1
    with pytest.raises(engine.CommandError, match="the query reads the table ticker: give it as data"):
        engine.run((SQL / "v_shape.sql").read_text(encoding="utf-8"))
