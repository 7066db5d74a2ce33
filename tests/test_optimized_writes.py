"""Optimized writes, as Delta Lake's `optimizeWrite`: a write's rows are shuffled by partition before
its files are written, so that a partition gets few files near the bin size instead of one per
task. Turned on by the write option, the session setting (under Delta Lake's name too) or the table
property `delta.autoOptimize.optimizeWrite`, in that order."""
import pytest

from silt.errors import UnsupportedOptionException, reraise
from test_interop import result_on_reference, result_on_silt

SCATTERED = "SELECT id, id % 3 AS p FROM range(0, 3000, 1, 12)"  # 12 tasks, each with every partition


def files(spark, path):
    return spark.sql(f"DESCRIBE DETAIL delta.`{path}`").first().numFiles


def rows(spark, path):
    return sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())


@pytest.mark.smoke
def test_the_option_writes_a_file_per_partition_instead_of_one_per_task(spark, tmp_path):
    plain, optimized = str(tmp_path / "plain"), str(tmp_path / "optimized")
    spark.sql(SCATTERED).write.format("delta").partitionBy("p").save(plain)
    spark.sql(SCATTERED).write.format("delta").partitionBy("p").option("optimizeWrite", "true").save(optimized)
    assert files(spark, plain) == 36
    assert files(spark, optimized) == 3
    assert rows(spark, optimized) == rows(spark, plain)
    # an unpartitioned table: one file where the tasks were twelve
    spark.sql(SCATTERED).write.format("delta").mode("overwrite").option("optimizeWrite", "true") \
        .option("overwriteSchema", "true").partitionBy().save(optimized)
    assert files(spark, optimized) == 1


def test_the_session_setting_and_the_table_property_and_which_wins(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, p BIGINT) USING delta PARTITIONED BY (p) "
              "TBLPROPERTIES (delta.autoOptimize.optimizeWrite = true)")
    spark.sql(SCATTERED).write.format("delta").mode("append").save(path)
    assert files(spark, path) == 3                                      # the table's property
    spark.sql(SCATTERED).write.format("delta").mode("append").option("optimizeWrite", "false").save(path)
    assert files(spark, path) == 3 + 36                                 # the option wins
    spark.conf.set("spark.databricks.delta.optimizeWrite.enabled", "false")  # Delta Lake's name
    try:
        spark.sql(SCATTERED).write.format("delta").mode("append").save(path)
        assert files(spark, path) == 3 + 36 + 36                        # the session wins over the table
        spark.sql(f"INSERT INTO delta.`{path}` {SCATTERED}")
        assert files(spark, path) == 3 + 36 + 36 + 36
    finally:
        spark.conf.unset("spark.databricks.delta.optimizeWrite.enabled")
    spark.sql(f"INSERT INTO delta.`{path}` {SCATTERED}")                # SQL writes too
    assert files(spark, path) == 3 + 36 + 36 + 36 + 3
    assert len(rows(spark, path)) == 5 * 3000


@pytest.mark.full  # second tier (make test keeps the option and precedence cases)
def test_dml_rewrites_optimize_too(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(SCATTERED).write.format("delta").partitionBy("p").save(path)
    spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES (delta.autoOptimize.optimizeWrite = true)")
    spark.sql(f"UPDATE delta.`{path}` SET id = id + 1 WHERE id % 2 = 0")   # rewrites every file
    assert files(spark, path) == 3
    assert sorted(r.id for r in spark.read.format("delta").load(path).collect()) == \
        sorted(i + 1 if i % 2 == 0 else i for i in range(3000))


# The same writes, as a program for both engines: the files each leaves.
PROGRAM = """
S = "SELECT id, id % 3 AS p FROM range(0, 3000, 1, 12)"
def files(p): return spark.sql(f"DESCRIBE DETAIL delta.`{p}`").first().numFiles
out = []
spark.sql(S).write.format("delta").partitionBy("p").save(root + "/a")
spark.sql(S).write.format("delta").partitionBy("p").option("optimizeWrite", "true").save(root + "/b")
spark.sql(S).write.format("delta").option("optimizeWrite", "true").save(root + "/c")
out += [files(root + "/a"), files(root + "/b"), files(root + "/c")]
spark.sql(f"CREATE TABLE delta.`{root}/d` (id BIGINT, p BIGINT) USING delta PARTITIONED BY (p) "
          "TBLPROPERTIES (delta.autoOptimize.optimizeWrite = true)")
spark.sql(S).write.format("delta").mode("append").save(root + "/d")
spark.sql(f"UPDATE delta.`{root}/d` SET id = id + 1 WHERE id % 2 = 0")
out.append(files(root + "/d"))
spark.conf.set("spark.databricks.delta.optimizeWrite.enabled", "false")
try:
    spark.sql(S).write.format("delta").mode("append").save(root + "/d")
finally:
    spark.conf.unset("spark.databricks.delta.optimizeWrite.enabled")
out.append(files(root + "/d"))
result = out
"""


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_leaves_as_many_files(spark, tmp_path):
    assert result_on_silt(spark, PROGRAM, root=str(tmp_path / "silt")) == \
        result_on_reference(PROGRAM, root=str(tmp_path / "reference")) == [36, 3, 1, 3, 39]


def test_a_bad_value_is_refused_by_name(spark, tmp_path):
    with pytest.raises(UnsupportedOptionException, match="optimizeWrite"):
        reraise(lambda: spark.range(3).write.format("delta").option("optimizeWrite", "yes").save(str(tmp_path / "t")))
