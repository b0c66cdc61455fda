"""``cep lesson``: lessons as files (docs/lessons.md).

- ``cep lesson check FILE|FOLDER...`` loads each lesson (every problem with its file and line)
  and runs its reference answers (``engine.lessons.check_lesson``): exit 0 when all pass, 1
  otherwise; ``--format json`` prints ``{"files": [{"file", "id", "ok", "problems": [{"line",
  "message"}]}], "ok"}``.
- ``cep lesson list [FOLDER]`` prints the course order (default folder: ``lessons``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> argparse.ArgumentParser:
    ap = sub.add_parser("lesson", help="check lesson files and list the course")
    verbs = ap.add_subparsers(dest="verb", required=True)
    check = verbs.add_parser("check", help="validate lesson files and run their reference answers")
    check.add_argument("files", nargs="+", help="lesson files (.md) or folders of them")
    check.add_argument("--format", choices=("text", "json"), default="text")
    show = verbs.add_parser("list", help="print the course: the lessons in order")
    show.add_argument("folder", nargs="?", default="lessons")
    return ap


def _files(names: list[str]) -> list[Path]:
    from engine.commands.arguments import CommandError

    out: list[Path] = []
    for name in names:
        p = Path(name)
        if p.is_dir():
            out.extend(sorted(p.glob("*.md")))
        elif p.exists():
            out.append(p)
        else:
            raise CommandError(f"no such lesson file or folder: {name}")
    return out


def run(args: argparse.Namespace) -> int:
    if args.verb == "list":
        return _list(args)
    from engine.json_text import json_text
    from engine.lessons import LessonError, check_lesson, load_lesson

    results: list[dict[str, Any]] = []
    for path in _files(args.files):
        entry: dict[str, Any] = {"file": str(path), "id": None, "ok": True, "problems": []}
        try:
            lesson = load_lesson(path)
            entry["id"] = lesson.id
            problems = check_lesson(lesson)
        except LessonError as err:
            problems = err.problems
        entry["problems"] = [{"line": p.line, "message": p.message} for p in problems]
        entry["ok"] = not problems
        results.append(entry)
    ok = all(r["ok"] for r in results)
    if args.format == "json":
        print(json_text({"files": results, "ok": ok}, "the lesson check"))
    else:
        for r in results:
            if r["ok"]:
                print(f"ok   {r['file']} ({r['id']})")
            for p in r["problems"]:
                where = f"{r['file']}, line {p['line']}" if p["line"] is not None else r["file"]
                print(f"{where}: {p['message']}", file=sys.stderr)
        bad = sum(1 for r in results if not r["ok"])
        print(f"{len(results) - bad} of {len(results)} lesson file{'s' if len(results) != 1 else ''} pass")
    return 0 if ok else 1


def _list(args: argparse.Namespace) -> int:
    from engine.commands.arguments import CommandError
    from engine.lessons import LessonError, course

    if not Path(args.folder).is_dir():
        raise CommandError(f"no such folder: {args.folder}")
    try:
        lessons = course(args.folder)
    except LessonError as err:
        raise CommandError(f"the course does not load:\n{err}", status=1) from None
    for n, lesson in enumerate(lessons, 1):
        print(f"{n:2d}. {lesson.title}  [{lesson.exercise.kind}]  {lesson.id}  ({Path(lesson.source).name})")
    return 0
