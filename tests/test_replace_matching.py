"""Delta Lake's dynamic data overwrite (write options replaceUsing, replaceOn, targetAlias): an
overwrite that replaces only the rows matching a row of the data, in one commit. The programs are the
batch guide's examples; the reference runs them too (on tables with deletion vectors: without them
Delta 4.4 fails with DELTA_FILE_TO_OVERWRITE_NOT_FOUND)."""
import pytest

import silt
from silt.delta.tables import DeltaTable
from test_interop import result_on_reference, result_on_silt

STUDENTS = """
students = {path!r}
spark.createDataFrame([("Dylan", "US"), ("Doug", "UK"), ("Julia", "IT"), ("Adam", None)], "name STRING, country STRING") \\
    .write.format("delta").option("delta.enableDeletionVectors", {dvs!r}).save(students)
new_students = spark.createDataFrame([("Peter", "FR"), ("Jennie", "UK"), ("Eva", None)], "name STRING, country STRING")
new_students.write.format("delta").mode("overwrite").option("replaceUsing", "country").save(students)
people_path = {path!r} + "_people"
spark.createDataFrame([("Alice", "table"), (None, "table"), ("Bob", "table")], "name STRING, row_origin STRING") \\
    .write.format("delta").option("delta.enableDeletionVectors", {dvs!r}).save(people_path)
people = spark.createDataFrame([("Alice", "query"), (None, "query"), ("Delta", "query")], "name STRING, row_origin STRING")
people.alias("s").write.format("delta").mode("overwrite").option("targetAlias", "t") \\
    .option("replaceOn", "t.name <=> s.name").save(people_path)
def last(p):
    h = DeltaTable.forPath(spark, p).history(1).first()
    return (h.operation, dict(h.operationParameters), sorted(h.operationMetrics))
result = (sorted((r.name, str(r.country)) for r in spark.read.format("delta").load(students).collect()),
          sorted((str(r.name), r.row_origin) for r in spark.read.format("delta").load(people_path).collect()),
          last(students), last(people_path))
"""

# The batch guide's tables after each write
REPLACED_USING = [("Adam", "None"), ("Dylan", "US"), ("Eva", "None"), ("Jennie", "UK"), ("Julia", "IT"), ("Peter", "FR")]
REPLACED_ON = [("Alice", "query"), ("Bob", "table"), ("Delta", "query"), ("None", "query")]
METRICS = sorted(["numOutputRows", "numRemovedBytes", "numOutputBytes", "numCopiedRows", "numFiles",
                  "numAddedChangeFiles", "numDeletedRows", "numRemovedFiles"])


def check_students(result):
    using, on, using_history, on_history = result
    assert using == REPLACED_USING and on == REPLACED_ON
    assert using_history == ("WRITE", {"mode": "Overwrite", "partitionBy": "[]", "replaceUsingCols": "(country)"}, METRICS)
    assert on_history == ("WRITE", {"mode": "Overwrite", "partitionBy": "[]", "replaceOnCond": "t.name <=> s.name"}, METRICS)


@pytest.mark.parametrize("dvs", ["true", "false"])
def test_the_rows_matching_the_data_are_replaced_in_one_write(spark, tmp_path, dvs):
    check_students(result_on_silt(spark, STUDENTS.format(path=str(tmp_path / f"students_{dvs}"), dvs=dvs)))


def test_the_metrics_count_the_rows(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "k INT, v STRING").write.format("delta").save(p)
    spark.createDataFrame([(2, "B"), (2, "B2"), (9, "z")], "k INT, v STRING").write.format("delta") \
        .mode("overwrite").option("replaceUsing", "k").option("userMetadata", "nightly").save(p)
    assert sorted(tuple(r) for r in spark.read.format("delta").load(p).collect()) == \
        [(1, "a"), (2, "B"), (2, "B2"), (3, "c"), (9, "z")]
    h = DeltaTable.forPath(spark, p).history(1).first()
    m = {k: int(v) for k, v in h.operationMetrics.items()}
    assert (m["numDeletedRows"], m["numOutputRows"] - m["numCopiedRows"]) == (1, 3)
    assert h.userMetadata == "nightly"
    # an empty write deletes nothing
    spark.createDataFrame([], "k INT, v STRING").write.format("delta").mode("overwrite").option("replaceUsing", "k").save(p)
    assert spark.read.format("delta").load(p).count() == 5


def test_saveastable_replaces_the_rows_of_a_catalog_table(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS replace_events")
    try:
        spark.createDataFrame([(1, "2024-01-01", "a"), (2, "2024-01-02", "b")], "event_id INT, start_date STRING, v STRING") \
            .write.format("delta").saveAsTable("replace_events")
        spark.createDataFrame([(2, "2024-01-02", "new"), (3, "2024-01-03", "c")], "event_id INT, start_date STRING, v STRING") \
            .write.format("delta").mode("overwrite").option("replaceUsing", "event_id, start_date").saveAsTable("replace_events")
        assert sorted(tuple(r) for r in spark.table("replace_events").collect()) == \
            [(1, "2024-01-01", "a"), (2, "2024-01-02", "new"), (3, "2024-01-03", "c")]
        assert DeltaTable.forName(spark, "replace_events").history(1).first().operationParameters["replaceUsingCols"] == \
            "(event_id, start_date)"
    finally:
        spark.sql("DROP TABLE IF EXISTS replace_events")


WRONG = {
    "append": (lambda w: w.mode("append").option("replaceUsing", "k"), silt.InvalidTableOperationException, "overwrite"),
    "with replaceWhere": (lambda w: w.mode("overwrite").option("replaceUsing", "k").option("replaceWhere", "k = 1"),
                          silt.UnsupportedOptionException, "replaceWhere"),
    "both": (lambda w: w.mode("overwrite").option("replaceUsing", "k").option("replaceOn", "true"),
             silt.InvalidTableOperationException, "both"),
    "unknown column": (lambda w: w.mode("overwrite").option("replaceUsing", "nope"), silt.InvalidTableOperationException,
                       "nope"),
    "targetAlias alone": (lambda w: w.mode("overwrite").option("targetAlias", "t"), silt.UnsupportedOptionException,
                          "targetAlias"),
    "mergeSchema": (lambda w: w.mode("overwrite").option("replaceUsing", "k").option("mergeSchema", "true"),
                    silt.UnsupportedOptionException, "mergeSchema"),
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_wrong_uses_are_refused_by_name_and_change_nothing(spark, tmp_path, case):
    p = str(tmp_path / "t")
    spark.createDataFrame([(1, "a")], "k INT, v STRING").write.format("delta").save(p)
    writer, error, named = WRONG[case]
    with pytest.raises(error, match=named):
        writer(spark.createDataFrame([(1, "b")], "k INT, v STRING").write.format("delta")).save(p)
    assert [tuple(r) for r in spark.read.format("delta").load(p).collect()] == [(1, "a")]
    assert DeltaTable.forPath(spark, p).history().count() == 1


def test_a_column_the_table_lacks_or_a_missing_table_is_refused(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.createDataFrame([(1, "a")], "k INT, v STRING").write.format("delta").save(p)
    with pytest.raises(silt.SchemaMismatchException, match="extra"):
        spark.createDataFrame([(1, "b", 2)], "k INT, v STRING, extra INT").write.format("delta") \
            .mode("overwrite").option("replaceUsing", "k").save(p)
    with pytest.raises(silt.InvalidTableOperationException, match="existing table"):
        spark.createDataFrame([(1, "b")], "k INT, v STRING").write.format("delta") \
            .mode("overwrite").option("replaceUsing", "k").save(str(tmp_path / "none"))
    assert [tuple(r) for r in spark.read.format("delta").load(p).collect()] == [(1, "a")]


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_replaces_the_same_rows(tmp_path):
    check_students(result_on_reference(STUDENTS.format(path=str(tmp_path / "ref"), dvs="true")))


# replaceWhere on data columns: the rows matching the predicate replaced one by one (the batch
# guide's example: a table partitioned by start_date, a predicate on end_date too)
REPLACE_WHERE = """
events = {path!r}
spark.createDataFrame([(1, "2017-01-01", "2017-01-05", "a"), (2, "2017-01-20", "2017-02-03", "b"),
                       (3, "2017-01-15", "2017-01-16", "c"), (4, "2017-02-10", "2017-02-11", "d")],
                      "id INT, start_date STRING, end_date STRING, v STRING") \\
    .write.format("delta").partitionBy("start_date").option("delta.enableDeletionVectors", {dvs!r}).save(events)
replace_data = spark.createDataFrame([(5, "2017-01-15", "2017-01-31", "new")], "id INT, start_date STRING, end_date STRING, v STRING")
replace_data.write.format("delta").mode("overwrite") \\
    .option("replaceWhere", "start_date >= '2017-01-01' AND end_date <= '2017-01-31'").save(events)
h = DeltaTable.forPath(spark, events).history(1).first()
result = (sorted(r.id for r in spark.read.format("delta").load(events).collect()),
          (h.operation, dict(h.operationParameters), sorted(h.operationMetrics)))
"""
WHERE_HISTORY = ("WRITE", {"mode": "Overwrite", "partitionBy": "[]",
                           "predicate": "start_date >= '2017-01-01' AND end_date <= '2017-01-31'"}, METRICS)


@pytest.mark.parametrize("dvs", ["true", "false"])
def test_replacewhere_on_data_columns_replaces_the_matching_rows(spark, tmp_path, dvs):
    # 1 and 3 matched (2 ends in February, 4 starts there)
    assert result_on_silt(spark, REPLACE_WHERE.format(path=str(tmp_path / "events"), dvs=dvs)) == ([2, 4, 5], WHERE_HISTORY)


def test_replacewhere_checks_the_data_and_deletes_even_without_rows(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "k INT, v STRING").write.format("delta").save(p)
    with pytest.raises(Exception, match="does not satisfy"):
        spark.createDataFrame([(1, "x")], "k INT, v STRING").write.format("delta").mode("overwrite") \
            .option("replaceWhere", "k >= 2").save(p)
    assert spark.read.format("delta").load(p).count() == 3 and DeltaTable.forPath(spark, p).history().count() == 1
    spark.conf.set("spark.databricks.delta.replaceWhere.constraintCheck.enabled", "false")
    try:
        spark.createDataFrame([(1, "x")], "k INT, v STRING").write.format("delta").mode("overwrite") \
            .option("replaceWhere", "k >= 2").save(p)
    finally:
        spark.conf.unset("spark.databricks.delta.replaceWhere.constraintCheck.enabled")
    assert sorted(tuple(r) for r in spark.read.format("delta").load(p).collect()) == [(1, "a"), (1, "x")]
    # no rows: the matching rows go all the same
    spark.createDataFrame([], "k INT, v STRING").write.format("delta").mode("overwrite").option("replaceWhere", "v = 'x'").save(p)
    assert [tuple(r) for r in spark.read.format("delta").load(p).collect()] == [(1, "a")]
    # in SQL
    spark.sql(f"INSERT INTO delta.`{p}` VALUES (2, 'b')")
    spark.sql(f"INSERT INTO delta.`{p}` REPLACE WHERE k = 1 SELECT 1 AS k, 'q' AS v")
    assert sorted(tuple(r) for r in spark.read.format("delta").load(p).collect()) == [(1, "q"), (2, "b")]


def test_replacewhere_on_partition_columns_only_when_data_columns_are_off(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.createDataFrame([(1, "a")], "k INT, v STRING").write.format("delta").save(p)
    spark.conf.set("spark.databricks.delta.replaceWhere.dataColumns.enabled", "false")
    try:
        with pytest.raises(silt.InvalidTableOperationException, match="not a partition column"):
            spark.createDataFrame([(2, "b")], "k INT, v STRING").write.format("delta").mode("overwrite") \
                .option("replaceWhere", "k = 2").save(p)
    finally:
        spark.conf.unset("spark.databricks.delta.replaceWhere.dataColumns.enabled")
    assert [tuple(r) for r in spark.read.format("delta").load(p).collect()] == [(1, "a")]


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_replaces_where_the_same_rows(tmp_path):
    assert result_on_reference(REPLACE_WHERE.format(path=str(tmp_path / "ref"), dvs="false")) == ([2, 4, 5], WHERE_HISTORY)


# What the history says of writes, as the reference records it: the writer's partitionBy (none
# given: []), replaceWhere's predicate as written, and its row counts whether it dropped files or rows
WRITES = """
p = {path!r}
spark.createDataFrame([(1, "a"), (2, "b")], "k INT, day STRING").write.format("delta").partitionBy("day").save(p)
spark.createDataFrame([(3, "a")], "k INT, day STRING").write.format("delta").mode("overwrite").option("replaceWhere", "day = 'a'").save(p)
spark.createDataFrame([(4, "b")], "k INT, day STRING").write.format("delta").mode("overwrite").save(p)
spark.createDataFrame([(4, "c")], "k INT, day STRING").write.format("delta").mode("overwrite").option("replaceWhere", "k = 4").save(p)
result = [(r.version, r.operation, dict(r.operationParameters), sorted(r.operationMetrics))
          for r in DeltaTable.forPath(spark, p).history().collect()]
"""
OVERWRITE_METRICS = ["numFiles", "numOutputBytes", "numOutputRows", "numRemovedBytes", "numRemovedFiles"]
WRITES_HISTORY = [
    (3, "WRITE", {"mode": "Overwrite", "partitionBy": "[]", "predicate": "k = 4"}, METRICS),
    (2, "WRITE", {"mode": "Overwrite", "partitionBy": "[]"}, OVERWRITE_METRICS),
    (1, "WRITE", {"mode": "Overwrite", "partitionBy": "[]", "predicate": "day = 'a'"}, METRICS),
    (0, "WRITE", {"mode": "ErrorIfExists", "partitionBy": '["day"]'}, ["numFiles", "numOutputBytes", "numOutputRows"])]


def test_writes_are_recorded_as_the_reference_records_them(spark, tmp_path):
    silt_history = [(v, op, params, [m for m in metrics if m in METRICS + OVERWRITE_METRICS])
                    for v, op, params, metrics in result_on_silt(spark, WRITES.format(path=str(tmp_path / "t")))]  # may record more
    assert silt_history == WRITES_HISTORY


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_records_writes_so(tmp_path):
    assert result_on_reference(WRITES.format(path=str(tmp_path / "ref"))) == WRITES_HISTORY


@pytest.mark.parametrize("option, value", [("txnAppId", "job"), ("maxRecordsPerFile", "1"), ("dataChange", "false"),
                                           ("overwriteSchema", "true")])
def test_replacewhere_on_data_columns_refuses_what_it_would_not_do(spark, tmp_path, option, value):
    p = str(tmp_path / "t")
    spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING").write.format("delta").save(p)
    writer = spark.createDataFrame([(2, "x")], "k INT, v STRING").write.format("delta").mode("overwrite") \
        .option("replaceWhere", "k = 2").option(option, value)
    if option == "txnAppId":
        writer = writer.option("txnVersion", "1")
    with pytest.raises(silt.UnsupportedOptionException, match=option):
        writer.save(p)
    assert sorted(tuple(r) for r in spark.read.format("delta").load(p).collect()) == [(1, "a"), (2, "b")]
