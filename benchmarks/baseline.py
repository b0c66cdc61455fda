"""What the benchmarks share: the engine of an earlier revision importable beside the
current one (so that a change is measured against its baseline in one process), and
markdown tables."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extract_base(rev: str, into: Path) -> None:
    """``git archive REV engine`` unpacked under ``into`` as the package ``engine_base``, so
    that it runs beside ``engine``; ``into`` goes on sys.path. Its absolute imports and the
    ``"engine.x.y:Name"`` strings of its engine specs are rewritten to ``engine_base`` (a
    revision with relative imports needs nothing)."""
    data = subprocess.run(["git", "archive", rev, "engine"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        tf.extractall(into, filter="data")
    base = into / "engine_base"
    (into / "engine").rename(base)
    tops = sorted({p.stem if p.suffix == ".py" else p.name for p in base.iterdir()
                   if p.suffix == ".py" or (p / "__init__.py").exists()} - {"__init__"}, key=len, reverse=True)
    own = re.compile(r"(?<![\w.])engine(?=\.(?:" + "|".join(map(re.escape, tops)) + r")\b)")
    plain = re.compile(r"^(\s*)from engine import ", re.M)
    for f in base.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        new = plain.sub(r"\1from engine_base import ", own.sub("engine_base", text))
        if new != text:
            f.write_text(new, encoding="utf-8")
    sys.path.insert(0, str(into))


def markdown(caption: str, head: list[str], rows: list[list[str]]) -> str:
    """A caption line, a blank line and a markdown table."""
    lines = [caption, "", "| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def report(text: str, out: str | None, title: str, script: str) -> None:
    """Print ``text``; with ``out``, also write it as a markdown page."""
    print(text)
    if out:
        Path(out).write_text(f"# {title}\n\n`python benchmarks/{script}`\n\n{text}\n")
