"""Helpers of the lesson tests: a small valid lesson file as text, to be broken line by line."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"

#: a valid lesson; each line's number is its index + 1 (the tests break single lines)
VALID = """+++
id = "tiny"
title = "Tiny"
order = 1
pattern = '''
PATTERN SEQ(A a, B b)
WHERE b.x > a.x
'''

[stream]
rows = '''
id,type,ts,x
1,A,1,5
2,B,2,7
3,A,3,9
4,B,4,8
'''

[exercise]
kind = "predict"
ask = "count"
count = 2
+++
A tiny lesson.

## Hints
- one
- two

## Explanation
1 then 2, and 1 then 4.
"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` holding ``needle`` (``CLOSE``: the line
    that closes the header)."""
    if needle == "CLOSE":
        return [i for i, ln in enumerate(text.splitlines(), 1) if ln.strip() == "+++"][1]
    for i, ln in enumerate(text.splitlines(), 1):
        if needle in ln:
            return i
    raise AssertionError(f"{needle!r} not in the text")
