"""The engine as a dependency of a cluster's Python workers.

A cluster's workers do not have this project installed (and must not rely on a folder shared
with the driver). When the session's master is not local, ``ship(spark)`` zips the installed
``engine`` package (its files as they are on the driver, ``__pycache__`` left out) into a
file named by its content hash, and adds it to the session: ``SparkContext.addPyFile`` on a
classic session (standalone, YARN, Kubernetes), ``SparkSession.addArtifacts(pyfile=True)`` on
Spark Connect. Spark puts it on the workers' ``sys.path`` before a task's functions are
unpickled, so ``import engine`` there loads the shipped copy. The workers' Python still needs
the engine's third-party dependencies (pandas, pyarrow, numpy, pydantic, networkx, sqlglot);
docs/spark.md says how to provide them.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["engine_archive", "ship", "package_files"]

# a fixed time stamp so that equal files give an equal archive
_ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def package_files(root: Path) -> list[Path]:
    """The files of the package at ``root`` that belong in the archive, sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")) or name.startswith("."):
                continue
            out.append(Path(dirpath) / name)
    return out


def engine_archive(folder: str | os.PathLike[str] | None = None) -> Path:
    """A zip of the installed ``engine`` package (``engine/...`` at its top), written once per
    content: ``engine-<sha256 prefix>.zip`` in ``folder`` (default: a ``cep-spark`` folder in
    the temporary directory)."""
    import engine

    root = Path(engine.__file__).resolve().parent
    files = package_files(root)
    digest = hashlib.sha256()
    contents = []
    for f in files:
        rel = f.relative_to(root.parent).as_posix()
        data = f.read_bytes()
        digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
        contents.append((rel, data))
    out_dir = Path(folder) if folder is not None else Path(tempfile.gettempdir()) / "cep-spark"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"engine-{digest.hexdigest()[:16]}.zip"
    if target.exists():
        return target
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in contents:
            info = zipfile.ZipInfo(rel, _ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    os.replace(tmp, target)
    return target


def ship(spark: Any) -> Path:
    """Add the engine archive to ``spark`` (classic or Spark Connect); returns its path."""
    from engine.spark.session import is_connect

    path = engine_archive()
    if is_connect(spark):
        spark.addArtifacts(str(path), pyfile=True)
    else:
        spark.sparkContext.addPyFile(str(path))
    return path
