"""Data in every form the API takes, from the sample streams: the same rows as CSV, JSON Lines,
Parquet, a pandas DataFrame, a pyarrow Table and records."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_streams"


def cli_jsonl(capsys, argv: list[str]) -> str:
    """``cep ARGV --format jsonl``'s stdout (exit status 0 asserted)."""
    from engine.commands.cli import main

    capsys.readouterr()
    status = main([*argv, "--format", "jsonl"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def sample_forms(tmp_path: Path, name: str) -> dict[str, object]:
    """The sample ``name``'s rows as a CSV path, a JSON Lines path, a Parquet path, a pandas
    DataFrame, a pyarrow Table and a list of dicts (null cells left out of the records)."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from engine.events import arrow_to_pandas

    csv_path = SAMPLES / "data" / f"{name}.csv"
    import pyarrow as pa

    table = pcsv.read_csv(csv_path)
    times = {f.name: pa.string() for f in table.schema if pa.types.is_timestamp(f.type)}
    if times:  # date-times stay the text of the file, as the event loaders read them
        table = pcsv.read_csv(csv_path, convert_options=pcsv.ConvertOptions(column_types=times))
    records = [{k: v for k, v in r.items() if v is not None} for r in table.to_pylist()]
    jsonl = tmp_path / f"{name}.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    parquet = tmp_path / f"{name}.parquet"
    pq.write_table(table, parquet)
    return {"csv": str(csv_path), "jsonl": str(jsonl), "parquet": str(parquet),
            "pandas": arrow_to_pandas(table), "arrow": table, "records": records}


@pytest.fixture
def forms(tmp_path):
    return lambda name: sample_forms(tmp_path, name)
