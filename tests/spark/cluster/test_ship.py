"""Cheap checks around the cluster tests (no Spark started): the engine archive the session
ships, the workers' Python that cannot import the project, the session's kinds of master and
``cep run``'s ``--master`` / ``--remote`` flags."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile

import pytest

from engine.commands.arguments import CommandError
from engine.commands.run import spark_target
from engine.spark import session
from engine.spark.ship import engine_archive
from tests.spark.cluster.cluster_support import worker_python


def test_engine_archive_is_the_package_once_per_content(tmp_path):
    first = engine_archive(tmp_path)
    assert engine_archive(tmp_path) == first  # cached by content hash
    names = zipfile.ZipFile(first).namelist()
    assert "engine/__init__.py" in names and "engine/spark/pipeline.py" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert all(n.startswith("engine/") for n in names)


def test_workers_python_cannot_import_the_project_but_the_archive_can(tmp_path):
    python = worker_python(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import pyarrow, pandas, pyspark\ntry:\n    import engine\n    print('engine')\nexcept ImportError:\n    print('none')"
    out = subprocess.run([python, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path, check=True)
    assert out.stdout.strip() == "none"
    archive = engine_archive(tmp_path)
    code = f"import sys; sys.path.insert(0, {str(archive)!r}); import engine.spark.pipeline, engine; print(engine.__file__)"
    out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path, check=True)
    assert out.stdout.strip().startswith(str(archive))


def test_kinds_of_master():
    assert session.is_remote("sc://127.0.0.1:15002") and not session.is_remote("spark://h:7077")
    assert session.is_local("local[2]") and not session.is_local("spark://h:7077") and not session.is_local("yarn")


def _args(**kw):
    base = {"master": None, "remote": None, "spark": False}
    base.update(kw)
    return argparse.Namespace(**base)


def test_master_and_remote_flags():
    args = _args(master="spark://127.0.0.1:7077")
    spark_target(args)
    assert args.spark and args.master == "spark://127.0.0.1:7077"
    args = _args(remote="sc://127.0.0.1:15002")
    spark_target(args)
    assert args.spark and args.master == "sc://127.0.0.1:15002"
    with pytest.raises(CommandError, match="Spark Connect address"):
        spark_target(_args(remote="spark://127.0.0.1:7077"))
    with pytest.raises(CommandError, match="not both"):
        spark_target(_args(master="local[2]", remote="sc://h:1"))
    args = _args()
    spark_target(args)
    assert not args.spark  # no flag: in process, as before


def test_a_cluster_session_uses_pysparks_daemon_and_the_clusters_python(monkeypatch):
    """On a cluster the engine is not installed where the Python workers start, so their
    daemon is pyspark's (``engine.spark.daemon`` could not be imported before the shipped zip
    is on the path) and their Python is the cluster's, not this interpreter's path."""
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    local = session.session_settings("local[2]")
    assert local["spark.python.daemon.module"] == "engine.spark.daemon"
    assert local["spark.pyspark.python"] == sys.executable
    cluster = session.session_settings("spark://127.0.0.1:7077")
    assert "spark.python.daemon.module" not in cluster and "spark.pyspark.python" not in cluster
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/py/bin/python")
    assert session.session_settings("yarn")["spark.pyspark.python"] == "/opt/py/bin/python"


def test_a_spark_connect_address_nothing_listens_at_fails_at_once(monkeypatch):
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("SPARK_CONNECT_MODE_ENABLED", raising=False)
    t0 = time.monotonic()
    with pytest.raises(session.SparkUnavailable, match=f"cannot reach the Spark Connect server at 127.0.0.1:{port}"):
        session.get_spark(f"sc://127.0.0.1:{port}")
    assert time.monotonic() - t0 < 10
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ  # this process's classic Spark is untouched
    assert session.connect_address("sc://h.example") == ("h.example", 15002)
    assert session.connect_address("sc://h:443/;token=x") == ("h", 443)
    with pytest.raises(session.SparkUnavailable, match="not a Spark Connect address"):
        session.connect_address("sc://h:port")
