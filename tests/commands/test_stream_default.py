"""``cep run`` reads a plain CSV file above ``STREAM_ABOVE_BYTES`` in batches when its times are
sorted numbers (the same output as a whole read, in bounded memory), and whole otherwise."""
from __future__ import annotations

from pathlib import Path

import pytest

import engine.events as events
from engine.commands import cli
from engine.events.arrow_batches import sorted_csv

PATTERN = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND b.x > a.x WITHIN 3"


def _file(tmp_path: Path, rows: int, shuffle: bool = False) -> Path:
    ts = list(range(rows))
    if shuffle:
        ts[rows // 2], ts[rows // 2 + 1] = ts[rows // 2 + 1], ts[rows // 2]
    path = tmp_path / "d.csv"
    path.write_text("id,type,ts,x,name\n" + "".join(f"{i},{'ABC'[i % 3]},{t},{(i * 7) % 11},n{i % 5}\n"
                                                    for i, t in enumerate(ts)))
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("shuffle", [False, True])
def test_sorted_big_files_stream_and_give_the_whole_reads_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch, shuffle: bool) -> None:
    monkeypatch.setattr("engine.events.arrow_batches.STREAM_ABOVE_BYTES", 1 << 20)
    path = _file(tmp_path, 70_000, shuffle)
    assert path.stat().st_size > 1 << 20
    assert sorted_csv(path) is not shuffle
    used: list[bool] = []
    real = events.BatchReader

    def counting(*a: object, **k: object) -> object:
        used.append(True)
        return real(*a, **k)

    monkeypatch.setattr(events, "BatchReader", counting)
    auto = _run(["run", PATTERN, "--data", str(path), "--format", "jsonl"], capsys)
    assert bool(used) is not shuffle
    whole = _run(["run", PATTERN, "--data", str(path), "--format", "jsonl", "--read", "whole"], capsys)
    assert auto == whole and auto[1].count("\n") > 1000


@pytest.mark.parametrize("cells", ["1\n2\n2\n3\n", "1\n2.5\n3\n", "1\n\n3\n", "2011-01-01\n2011-01-02\n", "3\n2\n"])
def test_only_sorted_numbers_stream(tmp_path: Path, cells: str) -> None:
    path = tmp_path / "d.csv"
    path.write_text("type,ts\n" + "".join(f"A,{c}\n" for c in cells.split("\n") if c != "" or cells == "1\n\n3\n"))
    expected = cells in ("1\n2\n2\n3\n", "1\n2.5\n3\n")
    assert sorted_csv(path) is expected
