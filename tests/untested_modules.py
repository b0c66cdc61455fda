"""List the modules of engine/ and visualizers/ that no test module imports directly.

A module counts as imported when a test module (``tests/**/test_*.py``) names it in an import
statement: ``import engine.x.y``, ``from engine.x.y import name`` or ``from engine.x import y``
(``y`` a module of the package ``engine.x``). A package's ``__init__`` counts when a name it
holds is imported from it (not when only its modules are). Imports inside functions count too; what a module reaches through
another module does not (that is what "directly" means).

Run from the repository root: ``python -m tests.untested_modules`` (``--all`` also lists each
module with the test modules that import it)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "visualizers")


def holds_code(path: Path) -> bool:
    """Whether the module holds more than a docstring (a package face that only lists its
    modules has nothing of its own to test)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               and not (isinstance(node, ast.ImportFrom) and node.module == "__future__") for node in body)


def source_modules(root: Path = ROOT) -> list[str]:
    """Dotted names of every module under the packages that holds code (``__init__`` as the
    package's name)."""
    names = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if not holds_code(path):
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that the file at ``path`` imports directly."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                if child in known:  # ``from engine.x import y``, y a module
                    found.add(child)
                elif node.module in known:  # a name the module (or the package's face) holds
                    found.add(node.module)
    return found


def coverage(root: Path = ROOT) -> dict[str, list[str]]:
    """Each source module -> the test modules (paths under tests/) that import it directly."""
    modules = source_modules(root)
    known = set(modules)
    users: dict[str, list[str]] = {m: [] for m in modules}
    for test in sorted((root / "tests").rglob("test_*.py")):
        for module in imported_modules(test, known):
            users[module].append(str(test.relative_to(root)))
    return users


def main(argv: list[str]) -> int:
    users = coverage()
    if "--all" in argv:
        for module, tests in users.items():
            print(f"{module}: {', '.join(tests) or '-'}")
        return 0
    for module, tests in users.items():
        if not tests:
            print(module)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
