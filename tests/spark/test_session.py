"""engine.spark.session: a clear message when Java is missing or too old (no Spark start)."""
from __future__ import annotations

import pytest

from engine.spark import session


def test_missing_java_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(session.shutil, "which", lambda name: None)
    assert session.java_version() is None
    with pytest.raises(session.SparkUnavailable, match="Spark needs Java 17\\+: apt-get install openjdk-17-jre-headless"):
        session._check_java()


def test_old_java_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(session, "java_version", lambda: 11)
    with pytest.raises(session.SparkUnavailable, match="found Java 11"):
        session._check_java()


def test_default_master(monkeypatch):
    monkeypatch.delenv("CEP_SPARK_MASTER", raising=False)
    assert session.default_master() == "local[*]"
    monkeypatch.setenv("CEP_SPARK_MASTER", "spark://h:7077")
    assert session.default_master() == "spark://h:7077"
