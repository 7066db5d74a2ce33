"""A table's own Hadoop file-system settings, as Delta Lake takes them: `fs.*` options of a path read
or write, and `DeltaTable.forPath(spark, path, hadoopConf)`. The table lives on a `viewfs://` URL
whose mount table exists only in those settings: without them its path leads nowhere, so a
statement that forgot them fails instead of passing unnoticed."""
import os
import uuid

import pytest

import silt
from silt.delta.tables import DeltaTable
from test_interop import result_on_reference

SETUP = """
import os
real = {real!r}
os.makedirs(real, exist_ok=True)
opts = {{"fs.viewfs.mounttable.{auth}.link./t": "file://" + real}}
url = "viewfs://{auth}/t"
"""

PROGRAM = SETUP + """
spark.range(5).write.format("delta").options(**opts).save(url)
spark.range(5, 8).write.format("delta").mode("append").options(**opts).save(url)
n = spark.read.format("delta").options(**opts).load(url).count()
dt = DeltaTable.forPath(spark, url, opts)
dt.delete("id = 1")
dt.update("id = 2", {{"id": "20"}})
dt.alias("t").merge(spark.range(6, 10).alias("s"), "t.id = s.id").whenNotMatchedInsertAll().execute()
dt.optimize().executeCompaction()
dt.vacuum()
history = [r.operation for r in dt.history().collect()]  # VACUUM is not recorded on viewfs, as Delta
rows = sorted(r.id for r in dt.toDF().collect())
local = sorted(r.id for r in spark.read.format("delta").load(real).collect())
result = (n, rows, local, history)
"""

EXPECTED = (8, [0, 3, 4, 5, 6, 7, 8, 9, 20], [0, 3, 4, 5, 6, 7, 8, 9, 20],
            ["OPTIMIZE", "MERGE", "UPDATE", "DELETE", "WRITE", "WRITE"])


def program(tmp_path):
    return PROGRAM.format(real=str(tmp_path / "real"), auth="silt" + uuid.uuid4().hex[:12])


def test_settings_given_with_the_table_reach_its_log_and_files(spark, tmp_path):
    code = program(tmp_path)
    scope = {"spark": spark, "DeltaTable": DeltaTable}
    exec(code.split("spark.range(5)")[0], scope)
    # Without its settings the URL leads nowhere (tried first: Hadoop caches a file system once made).
    with pytest.raises(Exception, match="viewfs|mount|ViewFs"):
        spark.range(1).write.format("delta").save(scope["url"])
    exec(code, scope)
    n, rows, local, history = scope["result"]
    assert (n, rows, local, history) == EXPECTED
    assert "_delta_log" in os.listdir(scope["real"])


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_gives_the_same_rows(tmp_path):
    assert result_on_reference(program(tmp_path)) == EXPECTED


def test_other_keys_and_other_places_are_refused_by_name(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.range(3).write.format("delta").save(path)
    with pytest.raises(silt.UnsupportedOptionException, match="a.b") as e:
        DeltaTable.forPath(spark, path, {"a.b": "c"})
    assert e.value.getCondition() == "DELTA_TABLE_FOR_PATH_UNSUPPORTED_HADOOP_CONF"
    assert e.value.getSqlState() == "0AKDC"
    spark.sql(f"CREATE TABLE fs_opts_named USING silt LOCATION '{path}'")
    try:
        # A catalog table's storage settings come from the session: an fs.* option there is refused.
        with pytest.raises(silt.UnsupportedOptionException, match="fs.test.key"):
            spark.read.option("fs.test.key", "x").table("fs_opts_named").collect()
        with pytest.raises(silt.UnsupportedOptionException, match="fs.test.key"):
            spark.range(1).write.format("delta").mode("append").option("fs.test.key", "x").saveAsTable("fs_opts_named")
    finally:
        spark.sql("DROP TABLE fs_opts_named")
    with pytest.raises(silt.UnsupportedOptionException, match="fs.test.key"):
        spark.readStream.format("delta").option("fs.test.key", "x").load(path)
