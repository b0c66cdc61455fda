"""Upload errors in plain words: an empty, binary, non-UTF-8 or malformed file gets one line
saying what was expected (never the reader's own message), the column mapping offers only the
file's columns, and the sidebar names the current file."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import runner, uploads
from tests.app_support import select_pattern

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
RUN = str(ROOT / "app" / "pages" / "3_Run.py")
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
RAW = ("No columns to parse", "codec can't decode", "Unexpected character", "Expected object or value",
       "Error tokenizing", "Traceback")

CASES = [
    ("empty.csv", b"", "'empty.csv' is empty; expected a CSV text file"),
    ("blank.jsonl", b"\n\n  \n", "'blank.jsonl' is empty; expected JSON Lines"),
    ("picture.csv", PNG, "'picture.csv' is a PNG image, not text; expected a CSV text file"),
    ("latin.csv", "type,ts,name\nA,1,Jos\u00e9\n".encode("latin-1"),
     "'latin.csv' is not UTF-8 text (byte 0xe9 on line 2 is not UTF-8); save it as UTF-8"),
    ("broken.jsonl", b'{"type": "A", "ts": 1}\n{"type": "B", ts: 2}\n',
     "'broken.jsonl' is not valid JSON Lines (line 2 is not a JSON object"),
    ("broken.json", b'[{"type": "A", "ts": 1},', "'broken.json' is not valid JSON: its array of events is malformed"),
    ("ragged.csv", b"type,ts\nA,1\nB,2,3\n",
     "'ragged.csv' is not a well-formed CSV file: line 3 has 3 values where the header names 2 columns"),
    ("text.parquet", b"type,ts\nA,1\n", "'text.parquet' is not a Parquet file (it holds text)"),
    ("cut.parquet", b"PAR1 and then nothing", "'cut.parquet' is not a readable Parquet file"),
    ("picture.parquet", PNG, "'picture.parquet' is not a Parquet file (it holds a PNG image)"),
]


@pytest.mark.parametrize("name,data,message", CASES, ids=[c[0] for c in CASES])
def test_unreadable_files_are_explained_in_one_line(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(runner.RunError) as err:
        runner.read_preview(str(path), runner.format_of(name))
    text = str(err.value)
    assert text.startswith(message), text
    assert "\n" not in text and not any(raw in text for raw in RAW), text


def test_a_character_cut_at_the_end_of_the_checked_head_is_not_an_error():
    text = ("type,ts,name\n" + "A,1,é\n" * 10).encode()
    assert uploads.content_problem("x.csv", text[:-3], "csv", complete=False) is None
    assert uploads.content_problem("x.csv", text, "csv") is None
    assert uploads.content_problem("x.csv.gz", b"\x1f\x8b\x08", "csv") is None  # the reader decompresses it


def _page_with(tmp_path: Path, monkeypatch, name: str) -> AppTest:
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend")
    at.run()
    at.radio(key="run_source").set_value("path").run()
    at.text_input(key="run_path").input(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("name,data,message", [CASES[0], CASES[2], CASES[3], CASES[4]],
                         ids=["empty", "png", "latin-1", "broken-json"])
def test_the_run_page_shows_the_plain_message(name, data, message):
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend")
    at.run()
    at.radio(key="run_source").set_value("upload").run()
    at.file_uploader(key="run_upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(name in c.value for c in at.sidebar.caption), "the sidebar names the file uploaded"
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and message.replace("'", "") in errors[0].replace("'", "").replace("\\", ""), errors
    assert not any(raw in errors[0] for raw in RAW)


def test_the_mapping_offers_only_the_files_columns(tmp_path, monkeypatch):
    (tmp_path / "prices.csv").write_text("kind,when,symbol,price,volume\nStock,1,GOOG,10,1500\nStock,2,GOOG,12,900\n")
    at = _page_with(tmp_path, monkeypatch, "prices.csv")
    mapping = {s.label: s.options for s in at.selectbox if s.key and s.key.startswith("run_map_")}
    columns = ["kind", "when", "symbol", "price", "volume"]
    for label in ("event type", "time stamp"):
        assert "type" not in mapping[label] and "ts" not in mapping[label], mapping[label]
        assert [o for o in mapping[label] if not o.startswith("(")] == columns
    asks = [w.value for w in at.warning]
    assert any("no column named like the time stamp" in w and "kind, when, symbol, price, volume" in w for w in asks), asks
    assert next(s for s in at.selectbox if s.label == "event type").value == "kind"  # guessed from its name
    next(s for s in at.selectbox if s.label == "time stamp").set_value("when").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(v.value.startswith("Validation: read 2 rows") for v in at.success), [s.value for s in at.success]


def test_the_sidebar_names_the_current_file_even_when_it_cannot_be_read(tmp_path, monkeypatch):
    (tmp_path / "good.csv").write_text("type,ts\nA,1\n")
    (tmp_path / "empty.csv").write_bytes(b"")
    at = _page_with(tmp_path, monkeypatch, "good.csv")
    assert any("good.csv" in c.value for c in at.sidebar.caption)
    at.text_input(key="run_path").input("empty.csv").run()
    side = " ".join(c.value for c in at.sidebar.caption)
    assert "good.csv" not in side and "empty.csv" in side, side
