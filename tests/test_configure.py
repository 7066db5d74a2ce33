"""silt.configure adds Silt (and S3 support) to a builder beside the user's own settings, never replacing them."""
import pytest

import silt
from silt import session


class Builder:
    """The part of SparkSession.Builder that configure uses."""

    def __init__(self, **options):
        self._options = dict(options)

    def config(self, key, value):
        self._options[key] = str(value)
        return self


@pytest.fixture(autouse=True)
def no_spark_defaults(monkeypatch, tmp_path):
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))


def test_adds_to_the_users_jars_and_extensions():
    b = silt.configure(Builder(**{"spark.jars": "/opt/mine.jar", "spark.sql.extensions": "com.example.Ext"}))
    assert b._options["spark.jars"] == f"/opt/mine.jar,{silt.jar_path()}"
    assert b._options["spark.sql.extensions"] == f"com.example.Ext,{silt.EXTENSION}"
    assert b._options["spark.sql.catalog.spark_catalog"] == silt.CATALOG
    # configuring twice adds nothing twice
    assert silt.configure(b)._options["spark.jars"] == f"/opt/mine.jar,{silt.jar_path()}"


def test_adds_to_spark_defaults_which_a_builder_setting_would_replace(tmp_path, monkeypatch):
    monkeypatch.setattr(session, "hadoop_version", lambda: "3.5.0")  # one that can write S3 (pyspark 3.5's cannot)
    (tmp_path / "spark-defaults.conf").write_text("# mine\nspark.jars.packages  com.example:lib:1.0\n")
    b = silt.configure(Builder(), storage="s3")
    packages = b._options["spark.jars.packages"].split(",")
    assert packages[0] == "com.example:lib:1.0"
    assert f"org.apache.hadoop:hadoop-aws:{session.hadoop_version()}" in packages
    assert any(p.startswith("software.amazon.awssdk:s3:") for p in packages)
    assert b._options["spark.jars.excludes"] == "software.amazon.awssdk:bundle"


def test_another_session_catalog_is_not_replaced():
    with pytest.raises(ValueError, match="spark.sql.catalog.spark_catalog is already com.example.Catalog"):
        silt.configure(Builder(**{"spark.sql.catalog.spark_catalog": "com.example.Catalog"}))
    b = silt.configure(Builder(**{"spark.sql.catalog.spark_catalog": "com.example.Catalog"}), catalog=False)
    assert b._options["spark.sql.catalog.spark_catalog"] == "com.example.Catalog"


def test_unknown_storage_and_too_old_hadoop_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="storage='gcs' is not one Silt configures"):
        silt.configure(Builder(), storage="gcs")
    monkeypatch.setattr(session, "hadoop_version", lambda: "3.3.6")
    with pytest.raises(ValueError, match="needs hadoop-aws 3.4.2 or later .* Hadoop 3.3.6"):
        silt.configure(Builder(), storage="s3")


def test_the_connect_plugin_is_configured_where_the_jar_has_one(monkeypatch):
    """Spark 3.5's jar has no Spark Connect plugin: configure does not name one a server would fail to load."""
    monkeypatch.setattr(session, "jar_path", lambda spark_version=None: "/silt.jar")
    for minor, has_plugin in [("3.5", False), ("4.0", True), ("4.3", True)]:
        monkeypatch.setattr(session, "spark_minor", lambda version=None, m=minor: m)
        assert (session.CONNECT_PLUGIN_KEY in silt.configure(Builder())._options) == has_plugin, minor
