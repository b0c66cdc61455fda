"""The API on every input kind gives what ``cep run --format jsonl`` prints: presets of the
sample streams (matches), an AGG pattern (rows) and interval data (signatures)."""
from __future__ import annotations

import pytest

import engine
from tests.api.conftest import SAMPLES, cli_jsonl

KINDS = ("csv", "jsonl", "parquet", "pandas", "arrow", "records")

#: preset -> (its sample, options of the API, the same as cep run flags)
CASES = {
    "trades__three_tickers": ("trades", {}, []),
    "stocks_sase__stock_trend": ("stocks_sase", {}, []),
    "rfid__shoplifting": ("rfid", {"engine": "nfab"}, ["--engine", "nfab"]),
    "clicks__login_count": ("clicks", {}, []),  # AGG: rows
    "cluster__query1": ("cluster", {"lower_col": "lower", "upper_col": "upper", "ts_col": None},
                        ["--lower-col", "lower", "--upper-col", "upper"]),  # interval data: signatures
}


def _preset(name: str) -> str:
    return (SAMPLES / "presets" / f"{name}.cep").read_text(encoding="utf-8")


@pytest.mark.parametrize("preset", list(CASES))
def test_every_input_kind_equals_cep_run(preset, forms, capsys):
    sample, options, flags = CASES[preset]
    data = forms(sample)
    text = _preset(preset)
    expected = cli_jsonl(capsys, ["run", f"preset:{sample}/{preset.split('__')[1]}", "--data", f"sample:{sample}",
                                  *flags])
    assert expected.strip(), "the preset finds something on its sample"
    got = engine.run(text, f"sample:{sample}", **options)
    assert got.to_jsonl() == expected
    for kind in KINDS:
        if kind in ("csv", "jsonl", "parquet"):  # the CLI on the same file
            assert cli_jsonl(capsys, ["run", text, "--data", data[kind], *flags]) == expected, kind
        result = engine.run(engine.parse(text), data[kind], **options)
        assert result.to_jsonl() == expected, kind
        assert len(result) == len(expected.splitlines())


def test_kinds_of_results(forms):
    trades = engine.run(_preset("trades__three_tickers"), "sample:trades")
    assert trades.kind == "matches" and len(trades) > 0
    frame = trades.to_pandas()
    assert list(frame.columns) == ["match", "start", "end", *trades.variables]
    assert trades.to_arrow().num_rows == len(trades) == len(list(trades))
    rows = engine.run(_preset("clicks__login_count"), "sample:clicks")
    assert rows.kind == "rows" and list(rows.to_pandas().columns) == ["ts", "event", "group", "value"]
    signatures = engine.run(_preset("cluster__query1"), "sample:cluster")
    assert signatures.kind == "signatures"
    assert list(signatures.to_pandas().columns)[:5] == ["match", "range_lo", "range_hi", "confidence",
                                                        "confidence_exact"]


def test_read_in_batches_equals_cep_run(capsys, tmp_path):
    text = _preset("trades__three_tickers")
    data = str(SAMPLES / "data" / "trades.csv")
    expected = cli_jsonl(capsys, ["run", text, "--data", data, "--read", "batches"])
    result = engine.run(text, data, read="batches")
    assert result.to_jsonl() == expected and result.events is None
    assert len(result.all_events()) == 400  # loaded again, whole, for explain and the timeline
    assert str(result.explain(1)).startswith("match #1")
    bad = tmp_path / "bad.csv"
    bad.write_text("type,ts,x\nA,1,1\nB,2,oops\nB,3,2\n", encoding="utf-8")
    from engine.commands.cli import main

    capsys.readouterr()
    assert main(["run", "PATTERN SEQ(A a, B b) WHERE b.x > a.x", "--data", str(bad), "--read", "batches"]) == 2
    cli = capsys.readouterr().err
    with pytest.raises(engine.CommandError) as err:
        engine.run("PATTERN SEQ(A a, B b) WHERE b.x > a.x", str(bad), read="batches")
    assert cli == f"cep: {err.value}\n"


def test_pattern_files_and_presets_as_cep_run_reads_them(tmp_path, capsys):
    from pathlib import Path

    from engine.dsl.printer import to_text

    expected = cli_jsonl(capsys, ["run", "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase"])
    assert engine.run("preset:stocks_sase/stock_trend", "sample:stocks_sase").to_jsonl() == expected
    cep = SAMPLES / "presets" / "stocks_sase__stock_trend.cep"
    assert engine.run(cep, "sample:stocks_sase").to_jsonl() == expected
    model = engine.parse(cep.read_text(encoding="utf-8")).model
    as_json = tmp_path / "trend.json"
    as_json.write_text(model.model_dump_json(), encoding="utf-8")
    assert cli_jsonl(capsys, ["run", str(as_json), "--data", "sample:stocks_sase"]) == expected
    assert engine.run(as_json, "sample:stocks_sase").to_jsonl() == expected
    assert engine.run(model, "sample:stocks_sase").to_jsonl() == expected
    assert to_text(engine.run(as_json, "sample:stocks_sase").pattern.model) == to_text(model)
    with pytest.raises(engine.CommandError, match="unknown preset 'nope'"):
        engine.run("preset:stocks_sase/nope", "sample:stocks_sase")
    with pytest.raises(engine.CommandError, match="pattern file not found"):
        engine.run(Path(tmp_path / "missing.cep"), "sample:stocks_sase")
