"""Which engine jar runs on which Spark: one jar per Spark minor, picked for the installed pyspark;
another minor is refused by name, in Python before a session starts and by the engine itself."""
import pyspark
import pytest

import silt
from silt.session import jar_name, spark_minor

pytestmark = pytest.mark.smoke


def test_the_installed_pysparks_jar_is_bundled_and_picked():
    minor = spark_minor()
    assert minor == ".".join(pyspark.__version__.split(".")[:2])
    assert silt.jar_path().name == f"{jar_name(minor)}-{silt.__version__}.jar"
    # pyspark 3.5 is built for Scala 2.12, pyspark 4 for 2.13: the jar is the one for its Scala
    assert jar_name(minor).endswith("_2.12" if minor == "3.5" else "_2.13")


@pytest.mark.parametrize("version", ["3.4.4", "4.4.0", "5.0.0"])
def test_an_unsupported_spark_is_refused_by_name(version):
    with pytest.raises(silt.UnsupportedSparkVersionException) as info:
        silt.jar_path(version)
    assert version in str(info.value) and "3.5" in str(info.value) and "4.3" in str(info.value)


def test_the_session_runs_the_jar_of_its_spark(spark):
    jvm_spark = spark.version
    built_for = spark.sparkContext._jvm.io.silt.config.SiltVersion.SparkBuiltFor()
    assert spark_minor(built_for) == spark_minor(jvm_spark)


def test_a_column_expression_over_connect_to_spark_3_is_refused_by_name():
    from silt.expressions import SlottedSql

    class Spark35:
        version = "3.5.9"

    statement = SlottedSql()
    text = statement.text(object())  # a Column: a slot, which needs the plugin
    with pytest.raises(silt.UnsupportedOptionException, match="Column expression over Spark Connect needs Spark 4.0"):
        statement.run(Spark35(), f"DELETE FROM t WHERE {text}")
