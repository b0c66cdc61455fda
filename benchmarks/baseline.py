"""What the benchmarks share: the engine of an earlier revision importable beside the
current one (so that a change is measured against its baseline in one process), and
markdown tables."""
from __future__ import annotations

import importlib
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
    rewrite_engine_imports(base, base)
    if str(into) not in sys.path:
        sys.path.insert(0, str(into))


def rewrite_engine_imports(tree: Path, engine_dir: Path) -> None:
    """Make the modules under ``tree`` import ``engine_base`` (the package at ``engine_dir``)
    wherever they import ``engine``: ``from engine.x import``, ``import engine.x``, ``from engine
    import x`` and the ``"engine.x.y:Name"`` strings that name its modules."""
    tops = sorted({p.stem if p.suffix == ".py" else p.name for p in engine_dir.iterdir()  # namespace packages too
                   if p.suffix == ".py" or (p.is_dir() and any(p.glob("*.py")))} - {"__init__"}, key=len, reverse=True)
    own = re.compile(r"(?<![\w.])engine(?=\.(?:" + "|".join(map(re.escape, tops)) + r")\b)")
    plain = re.compile(r"^(\s*)from engine import ", re.M)
    for f in tree.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        new = plain.sub(r"\1from engine_base import ", own.sub("engine_base", text))
        if new != text:
            f.write_text(new, encoding="utf-8")


#: Where the modules of today's layout were before each engine had a folder (engine/engines/)
#: and the CLI a floor (engine/commands/): the base side of an A/B run against such a revision.
OLD_LAYOUT = {
    "match": "matchers.base",
    "engines.planner": "planner",
    "engines.oracle.oracle": "oracle",
    "engines.nfab.matcher": "matchers.nfab",
    "engines.nfab.compiler": "automata.nfab",
    "engines.lazy.chain_matcher": "matchers.lazy",
    "engines.lazy.tree_matcher": "matchers.lazy",
    "engines.lazy.eager_matcher": "matchers.eager",
    "engines.ses.matcher": "matchers.ses",
    "commands.cli": "cli",
    "commands.output": "output",
}
_OLD_PACKAGES = {"engines.aseq.": "aseq.", "engines.uncertain.": "uncertain.", "engines.windows.": "windows."}


def module_in(package: str, name: str) -> str:
    """The dotted name of today's module ``engine.NAME`` in ``package`` (``engine`` or
    ``engine_base``): the same name, or where a revision before the engine folders kept it."""
    root = Path(importlib.import_module(package).__file__).parent  # type: ignore[arg-type]
    if not (root / "engines").is_dir():
        name = OLD_LAYOUT.get(name, name)
        for new, old in _OLD_PACKAGES.items():
            if name.startswith(new):
                name = old + name[len(new):]
    return f"{package}.{name}"


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
