"""``cep convert``: each target, files and inline text, --out, the WARNING lines and the refusals."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.commands.cli import main

PATTERN = """PATTERN SEQ(Stock+ a[], Stock b)
WHERE partition_contiguity AND [symbol] AND a[i].price > a[i-1].price AND b.price <= a[last].price
WITHIN 1 hour
"""


def test_pattern_to_each_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "rise.cep"
    source.write_text(PATTERN, encoding="utf-8")
    assert main(["convert", str(source), "--to", "sql"]) == 0
    sql = capsys.readouterr().out
    assert sql.startswith("SELECT * FROM events MATCH_RECOGNIZE (")
    query_file = tmp_path / "rise.sql"
    query_file.write_text(sql, encoding="utf-8")
    assert main(["convert", str(query_file), "--to", "dsl"]) == 0
    assert capsys.readouterr().out == ("PATTERN SEQ(Stock+ a[], Stock b)\nWHERE partition_contiguity\n  AND [symbol]\n"
                                       "  AND a[i].price > a[i-1].price\n  AND b.price <= a[a.len].price\n"
                                       "WITHIN 1 hour\n")
    assert main(["convert", str(query_file), "--to", "sql"]) == 0
    assert capsys.readouterr().out == sql
    assert main(["convert", PATTERN, "--to", "flink-sql"]) == 0
    out, err = capsys.readouterr()
    warnings = [line for line in err.splitlines() if line.startswith("WARNING: ")]
    assert warnings and [f"-- {w}" for w in warnings] == out.splitlines()[:len(warnings)]
    target = tmp_path / "Rise.java"
    assert main(["convert", str(source), "--to", "flink-java", "--out", str(target)]) == 0
    assert "Pattern.<Row>begin(\"a\"" in target.read_text(encoding="utf-8")


def test_refusal_names_the_construct(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "PATTERN SEQ(A a, B b) WHERE skip_till_next_match", "--to", "sql"]) == 2
    assert "skip_till_next_match has no MATCH_RECOGNIZE form" in capsys.readouterr().err
    assert main(["convert", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A (B | C)) DEFINE A AS x > 1)",
                 "--to", "flink-sql"]) == 2
    assert "alternation | has no Flink SQL form" in capsys.readouterr().err
    assert main(["convert", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B) DEFINE A AS x >)",
                 "--to", "dsl"]) == 2
    assert "line 1, column" in capsys.readouterr().err
