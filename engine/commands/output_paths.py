"""Where a command may write: ``--out`` is checked before anything is read or written.

- an output that resolves to an input file (the data, a pattern or workload file; the same
  file through another path, a symlink or a hard link) is refused: writing it would
  destroy the input;
- an output file that is a directory, or whose directory does not exist, is refused with
  a message instead of a traceback;
- an output directory (``cep stream --out``) must not be, hold or lie inside the watched
  source directory (the stream would read its own output) and must not be a file.

Each refusal is a ``CommandError`` (exit 2) naming the flag and the path.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from engine.commands.arguments import CommandError

__all__ = ["input_paths", "same_file", "check_out", "check_out_dir"]


def input_paths(args: Any) -> list[Path]:
    """The files a command reads: ``--data`` (a sample's file for ``sample:NAME``), the
    pattern argument and further patterns when they are files."""
    out: list[Path] = []
    data = getattr(args, "data", None)
    if data:
        if str(data).startswith("sample:"):
            try:
                from engine.commands.arguments import resolve_data

                out.append(Path(resolve_data(str(data))[0]))
            except (ValueError, CommandError):
                pass
        else:
            out.append(Path(str(data)))
    for arg in [getattr(args, "pattern", None), *(getattr(args, "more", None) or [])]:
        if isinstance(arg, str) and "\n" not in arg and len(arg) < 4096:
            try:
                if Path(arg).is_file():
                    out.append(Path(arg))
            except (OSError, ValueError):
                pass
    return out


def _real(p: Path) -> str:
    return os.path.realpath(os.path.abspath(p))


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (``samefile`` when both exist, else their real paths)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return _real(a) == _real(b)


def check_out(args: Any, attr: str = "out", flag: str = "--out", inputs: Iterable[Path] | None = None) -> None:
    """Refuse ``args.<attr>`` (an output file) when it is an input, a directory, or in a
    directory that does not exist (see the module)."""
    raw = getattr(args, attr, None)
    if not raw:
        return
    text = str(raw)
    p = Path(text)
    if text.endswith(("/", os.sep)) or p.is_dir():
        raise CommandError(f"{flag} {text}: is a directory; give a file name (e.g. {p / 'matches.jsonl'})")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise CommandError(f"{flag} {text}: the directory {parent} {what}")
    for src in (input_paths(args) if inputs is None else inputs):
        partial = p.with_name(p.name + ".partial")
        if same_file(p, src) or same_file(partial, src):
            raise CommandError(f"{flag} {text}: is the input file {src}; writing there would destroy it "
                               "(write the output to another file)")


def check_out_dir(out: str, source: str, flag: str = "--out") -> None:
    """Refuse an output directory that is a file, or that is, holds or lies inside the
    watched ``source`` directory."""
    p, s = Path(out), Path(source)
    if p.exists() and not p.is_dir():
        raise CommandError(f"{flag} {out}: is a file; give a directory for the output")
    ro, rs = _real(p), _real(s)
    if ro == rs or ro.startswith(rs.rstrip(os.sep) + os.sep) or rs.startswith(ro.rstrip(os.sep) + os.sep):
        raise CommandError(f"{flag} {out}: is inside the watched directory {source} (or holds it): the stream "
                           "would read its own output; write it elsewhere")
