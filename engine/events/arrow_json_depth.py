"""The nesting-depth check of JSON input (``check_json_depth``), without pandas.

``formats.read_jsonl`` (the exact reader and its batches) and ``arrow_jsonl`` (pyarrow's JSON
reader) run it before any parser sees a line; ``formats`` re-exports it.
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.events.lines import open_binary
from engine.events.report import DataError

__all__ = ["MAX_JSON_DEPTH", "check_json_depth"]

#: the deepest nesting of arrays and objects a JSON input may have (a record is depth 1);
#: deeper input is refused before any JSON parser sees it (pyarrow's reader overflows its
#: stack on a few thousand levels and kills the process)
MAX_JSON_DEPTH = 100

_JSON_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
_JSON_BRACKET = re.compile(rb"[\[\]{}]")


_KEEP_OPENERS = bytes(c for c in range(256) if c not in b"[{\n")


def check_json_depth(path: Path, limit: int = MAX_JSON_DEPTH, chunk: int = 1 << 22) -> None:
    """Refuse a JSON Lines file with a line nested deeper than ``limit`` with its line
    number (``DataError``), before any parser reads it. Cheap: every byte but ``[``, ``{``
    and newlines is deleted at C speed, and only a line left longer than ``limit`` (that
    many opening brackets) is scanned, its strings skipped, without recursion."""
    try:
        fh = open_binary(path)
    except (OSError, EOFError, ValueError):
        return  # the reader says what is wrong with the file
    if fh is None:
        return
    with fh:
        number = 0  # lines before the current block
        carry = b""
        while True:
            try:
                block = fh.read(chunk)
            except (OSError, EOFError, ValueError):
                return
            last = not block
            block = carry + block
            if not last:
                cut = block.rfind(b"\n") + 1
                block, carry = block[:cut], block[cut:]
            if block:
                openers = block.translate(None, _KEEP_OPENERS).split(b"\n")
                if max(map(len, openers)) > limit:
                    for k, line in enumerate(block.split(b"\n")):
                        if len(openers[k]) > limit:
                            _scan_line(line, number + k + 1, limit, path)
                number += block.count(b"\n")
            if last:
                return


def _scan_line(line: bytes, number: int, limit: int, path: Path) -> None:
    """Raise when ``line`` nests deeper than ``limit`` (strings skipped)."""
    depth = 0
    for m in _JSON_BRACKET.finditer(_JSON_STRING.sub(b'""', line)):
        if m.group() in (b"[", b"{"):
            depth += 1
            if depth > limit:
                raise DataError(f"cannot read '{path.name}' as JSON: line {number} nests arrays or objects "
                                f"more than {limit} deep (refused before parsing)")
        else:
            depth = max(0, depth - 1)
