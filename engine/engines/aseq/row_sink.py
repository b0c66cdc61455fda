"""Where ``cep run`` puts AGG rows as they come: a list written at the end (``table``,
``csv``, Parquet), or, for a file read in batches in ``jsonl`` / ``count``, written as they
are produced so that the rows of a big file are not all held in memory.

A streamed ``--out FILE`` is written as ``FILE.partial`` and renamed when the run ends, as
the match path does; a run that stops leaves the ``.partial`` file with the rows written
before it, and the message says so.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO

from engine.engines.aseq.output import emit_rows, write_rows
from engine.engines.aseq.values import AggRow

__all__ = ["RowSink"]


class RowSink:
    """Rows of one AGG run (see the module): ``extend`` as they come, ``finish`` at the end."""

    def __init__(self, args: Any, workload: bool, stream: bool) -> None:
        out = getattr(args, "out", None)
        self.args = args
        self.workload = workload
        self.format = args.format
        self.stream = stream and self.format in ("jsonl", "count") and not (
            out and out.lower().endswith((".parquet", ".pq")))
        self.rows: list[AggRow] = []
        self.count = 0
        self.partial: Path | None = None
        self.fh: TextIO | None = None
        if self.stream:
            if out:
                self.partial = Path(out).with_name(Path(out).name + ".partial")
                self.fh = open(self.partial, "w", encoding="utf-8", newline="")
            else:
                self.fh = sys.stdout

    def extend(self, rows: list[AggRow]) -> None:
        self.count += len(rows)
        if not self.stream:
            self.rows.extend(rows)
        elif rows and self.format == "jsonl":
            assert self.fh is not None
            write_rows(rows, "jsonl", self.fh, self.workload)

    def __len__(self) -> int:
        return self.count

    def written(self) -> str:
        """For a stop message: what was written before it."""
        if not self.stream or self.format != "jsonl" or not self.count:
            return ""
        where = f" in {self.partial}" if self.partial else ""
        return f" ({self.count:,} rows found before it were written{where})"

    def abort(self) -> None:
        """The run stopped: close a ``.partial`` file (kept when it holds rows)."""
        if self.partial is not None and self.fh is not None:
            self.fh.close()
            if not self.count or self.format == "count":
                self.partial.unlink(missing_ok=True)

    def finish(self) -> None:
        """Write what is left: the list, or the count, and rename a ``.partial`` file."""
        if not self.stream:
            emit_rows(self.rows, self.args, self.workload)
            return
        assert self.fh is not None
        if self.format == "count":
            self.fh.write(f"{self.count}\n")
        if self.partial is not None:
            self.fh.close()
            os.replace(self.partial, self.args.out)
