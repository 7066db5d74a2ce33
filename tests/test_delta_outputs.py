"""What Silt's statements and API calls return has Delta Lake's shape: the columns and types of
DESCRIBE DETAIL, DESCRIBE HISTORY / history(), SHOW TBLPROPERTIES, DESCRIBE TABLE [EXTENDED], the
result rows of OPTIMIZE, VACUUM, RESTORE, CLONE, CONVERT, DELETE, UPDATE and MERGE, and the names in
the history's operationParameters and operationMetrics. One program runs on Silt here and on the
reference Delta Lake in the second tier; EXPECTED is what the reference returned (Delta Lake 4.4)."""
import pytest

from test_interop import run_reference

PROGRAM = r'''
import os, tempfile
d = tempfile.mkdtemp()
p = d + "/t"
out = {}
def shape(df):
    return [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
def rows(df):
    return [tuple(str(v) for v in r) for r in df.collect()]
def described(table):
    keep = ("Type", "Provider", "Table Properties", "Is_managed_location")
    return [r for r in rows(spark.sql(f"DESCRIBE TABLE EXTENDED {table}")) if r[0] in keep]

spark.range(0, 60).selectExpr("id", "id % 3 AS k", "CAST(id AS STRING) AS s") \
    .write.format("delta").partitionBy("k").save(p)
spark.range(60, 90).selectExpr("id", "id % 3 AS k", "CAST(id AS STRING) AS s") \
    .write.format("delta").mode("append").save(p)
spark.sql(f"CREATE TABLE t USING delta LOCATION '{p}'")
spark.sql("CREATE TABLE m USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'foo' = 'bar') "
          "AS SELECT 1 AS id")
dt = DeltaTable.forPath(spark, p)

out["detail"] = shape(spark.sql("DESCRIBE DETAIL t"))
out["show_tblproperties"] = shape(spark.sql("SHOW TBLPROPERTIES t"))
out["tblproperties"] = rows(spark.sql("SHOW TBLPROPERTIES t")) + rows(spark.sql("SHOW TBLPROPERTIES m"))
out["tblproperty"] = rows(spark.sql("SHOW TBLPROPERTIES m ('delta.minWriterVersion')"))
out["path_tblproperties"] = rows(spark.sql(f"SHOW TBLPROPERTIES delta.`{p}`"))
out["describe"] = shape(spark.sql("DESCRIBE TABLE t"))
out["describe_rows"] = rows(spark.sql("DESCRIBE TABLE t"))
out["described"] = {"external": described("t"), "managed": described("m"), "path": described(f"delta.`{p}`")}
out["optimize"] = shape(dt.optimize().executeCompaction())
out["zorder"] = shape(dt.optimize().executeZOrderBy("id"))
out["optimize_sql"] = shape(spark.sql("OPTIMIZE t"))
out["restore"] = shape(dt.restoreToVersion(1))
out["restore_sql"] = shape(spark.sql("RESTORE TABLE t TO VERSION AS OF 1"))
out["clone"] = shape(spark.sql("CREATE TABLE c SHALLOW CLONE t"))
spark.range(0, 10).write.parquet(d + "/pq")
out["convert"] = shape(spark.sql(f"CONVERT TO DELTA parquet.`{d}/pq`"))
out["delete"] = shape(spark.sql("DELETE FROM t WHERE id = 1"))
out["update"] = shape(spark.sql("UPDATE t SET s = 'x' WHERE id = 2"))
out["merge"] = shape(spark.sql("MERGE INTO t USING (SELECT CAST(id AS BIGINT) AS id FROM range(3, 5)) src "
                               "ON t.id = src.id WHEN MATCHED AND t.id = 3 THEN DELETE "
                               "WHEN MATCHED THEN UPDATE SET s = 'y'"))
out["history"] = shape(dt.history())
out["history_sql"] = shape(spark.sql("DESCRIBE HISTORY t"))
out["recorded"] = {r["operation"]: (sorted(r["operationParameters"]), sorted(r["operationMetrics"]))
                   for r in dt.history().collect() if r["operation"] in ("DELETE", "UPDATE", "MERGE", "OPTIMIZE", "RESTORE")}
spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
out["vacuum"] = shape(dt.vacuum(0))
out["vacuum_sql"] = shape(spark.sql("VACUUM t RETAIN 0 HOURS"))
out["vacuum_dry_run"] = shape(spark.sql("VACUUM t RETAIN 0 HOURS DRY RUN"))
result = out
'''

LONG = "bigint"
FILE_SIZES = "struct<min:bigint,max:bigint,avg:double,totalFiles:bigint,totalSize:bigint>"
OPTIMIZE_METRICS = (
    "struct<numFilesAdded:bigint,numFilesRemoved:bigint,filesAdded:" + FILE_SIZES + ",filesRemoved:" + FILE_SIZES +
    ",partitionsOptimized:bigint,zOrderStats:struct<strategyName:string,inputCubeFiles:struct<num:bigint,size:bigint>,"
    "inputOtherFiles:struct<num:bigint,size:bigint>,inputNumCubes:bigint,mergedFiles:struct<num:bigint,size:bigint>,"
    "numOutputCubes:bigint,mergedNumCubes:bigint>,clusteringStats:struct<inputZCubeFiles:struct<numFiles:bigint,"
    "size:bigint>,inputOtherFiles:struct<numFiles:bigint,size:bigint>,inputNumZCubes:bigint,mergedFiles:struct<"
    "numFiles:bigint,size:bigint>,numOutputZCubes:bigint{silt_clustering}>,numBins:bigint,numBatches:bigint,"
    "totalConsideredFiles:bigint,totalFilesSkipped:bigint,preserveInsertionOrder:boolean,"
    "numFilesSkippedToReduceWriteAmplification:bigint,numBytesSkippedToReduceWriteAmplification:bigint,"
    "startTimeMs:bigint,endTimeMs:bigint,totalClusterParallelism:bigint,totalScheduledTasks:bigint,"
    "autoCompactParallelismStats:struct<maxClusterActiveParallelism:bigint,minClusterActiveParallelism:bigint,"
    "maxSessionActiveParallelism:bigint,minSessionActiveParallelism:bigint>,deletionVectorStats:struct<"
    "numDeletionVectorsRemoved:bigint,numDeletionVectorRowsRemoved:bigint>,numTableColumns:bigint,"
    "numTableColumnsWithStats:bigint>")
# Silt's clusteringStats go on with its own figures about the layout (docs/reference.md).
SILT_CLUSTERING = (",clusteringColumns:array<string>,numBytesConsidered:bigint,numFilesLeftAlone:bigint,"
                   "numBytesLeftAlone:bigint,rangeReadFractionBefore:map<string,double>,"
                   "rangeReadFractionAfter:map<string,double>")
OPTIMIZE = [("path", "string"), ("metrics", OPTIMIZE_METRICS.format(silt_clustering=""))]
HISTORY = [("version", LONG), ("timestamp", "timestamp"), ("userId", "string"), ("userName", "string"),
           ("operation", "string"), ("operationParameters", "map<string,string>"),
           ("job", "struct<jobId:string,jobName:string,jobRunId:string,runId:string,jobOwnerId:string,triggerType:string>"),
           ("notebook", "struct<notebookId:string>"), ("clusterId", "string"), ("readVersion", LONG),
           ("isolationLevel", "string"), ("isBlindAppend", "boolean"), ("operationMetrics", "map<string,string>"),
           ("userMetadata", "string"), ("engineInfo", "string")]
RESTORE = [(n, LONG) for n in ("table_size_after_restore", "num_of_files_after_restore", "num_removed_files",
                               "num_restored_files", "removed_files_size", "restored_files_size")]
PROTOCOL_1_2 = [("delta.minReaderVersion", "1"), ("delta.minWriterVersion", "2")]
DV_TABLE = [("delta.enableDeletionVectors", "true"), ("delta.feature.appendOnly", "supported"),
            ("delta.feature.deletionVectors", "supported"), ("delta.feature.invariants", "supported"),
            ("delta.minReaderVersion", "3"), ("delta.minWriterVersion", "7"), ("foo", "bar")]

EXPECTED = {
    "detail": [("format", "string"), ("id", "string"), ("name", "string"), ("description", "string"),
               ("location", "string"), ("createdAt", "timestamp"), ("lastModified", "timestamp"),
               ("partitionColumns", "array<string>"), ("clusteringColumns", "array<string>"), ("numFiles", LONG),
               ("sizeInBytes", LONG), ("properties", "map<string,string>"), ("minReaderVersion", "int"),
               ("minWriterVersion", "int"), ("tableFeatures", "array<string>")],
    "show_tblproperties": [("key", "string"), ("value", "string")],
    "tblproperties": PROTOCOL_1_2 + DV_TABLE,
    "tblproperty": [("delta.minWriterVersion", "7")],
    "path_tblproperties": PROTOCOL_1_2,
    "describe": [("col_name", "string"), ("data_type", "string"), ("comment", "string")],
    "describe_rows": [("id", "bigint", "None"), ("k", "bigint", "None"), ("s", "string", "None"),
                      ("# Partition Information", "", ""), ("# col_name", "data_type", "comment"),
                      ("k", "bigint", "None")],
    "described": {
        "external": [("Type", "EXTERNAL", ""), ("Provider", "delta", ""),
                     ("Table Properties", "[delta.minReaderVersion=1,delta.minWriterVersion=2]", "")],
        "managed": [("Type", "MANAGED", ""), ("Provider", "delta", ""), ("Is_managed_location", "true", ""),
                    ("Table Properties", "[" + ",".join(f"{k}={v}" for k, v in DV_TABLE) + "]", "")],
        "path": [("Type", "MANAGED", ""), ("Provider", "delta", ""),
                 ("Table Properties", "[delta.minReaderVersion=1,delta.minWriterVersion=2]", "")],
    },
    "optimize": OPTIMIZE, "zorder": OPTIMIZE, "optimize_sql": OPTIMIZE,
    "restore": RESTORE, "restore_sql": RESTORE,
    "clone": [(n, LONG) for n in ("source_table_size", "source_num_of_files", "num_removed_files",
                                  "num_copied_files", "removed_files_size", "copied_files_size")],
    "convert": [],
    "delete": [("num_affected_rows", LONG)],
    "update": [("num_affected_rows", LONG)],
    "merge": [(n, LONG) for n in ("num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows")],
    "history": HISTORY, "history_sql": HISTORY,
    "vacuum": [],
    "vacuum_sql": [("path", "string")],
    "vacuum_dry_run": [("path", "string")],
}

# The names Delta Lake records in the history of each operation (DESCRIBE HISTORY's
# operationParameters and operationMetrics keys). Silt records each of them but the time MERGE spends
# materializing its source (it caches the source instead); and may record more.
NOT_RECORDED = {"materializeSourceTimeMs"}
RECORDED = {
    "DELETE": (["predicate"], ["executionTimeMs", "rewriteTimeMs", "scanTimeMs", "numAddedBytes", "numAddedChangeFiles", "numAddedFiles", "numCopiedRows",
                               "numDeletedRows", "numDeletionVectorsAdded", "numDeletionVectorsRemoved",
                               "numDeletionVectorsUpdated", "numRemovedBytes", "numRemovedFiles"]),
    "UPDATE": (["predicate"], ["executionTimeMs", "rewriteTimeMs", "scanTimeMs", "numAddedBytes", "numAddedChangeFiles", "numAddedFiles", "numCopiedRows",
                               "numDeletionVectorsAdded", "numDeletionVectorsRemoved", "numDeletionVectorsUpdated",
                               "numRemovedBytes", "numRemovedFiles", "numUpdatedRows"]),
    "MERGE": (["matchedPredicates", "notMatchedBySourcePredicates", "notMatchedPredicates", "predicate"],
              ["executionTimeMs", "rewriteTimeMs", "scanTimeMs", "numOutputRows", "numSourceRows", "numTargetBytesAdded", "numTargetBytesRemoved",
               "numTargetChangeFilesAdded", "numTargetDeletionVectorsAdded", "numTargetDeletionVectorsRemoved",
               "numTargetDeletionVectorsUpdated", "numTargetFilesAdded", "numTargetFilesRemoved",
               "numTargetRowsCopied", "numTargetRowsDeleted", "numTargetRowsInserted", "numTargetRowsMatchedDeleted",
               "numTargetRowsMatchedUpdated", "numTargetRowsNotMatchedBySourceDeleted",
               "numTargetRowsNotMatchedBySourceUpdated", "numTargetRowsUpdated"]),
    "OPTIMIZE": (["auto", "clusterBy", "predicate", "zOrderBy"],
                 ["maxFileSize", "minFileSize", "numAddedBytes", "numAddedFiles", "numDeletionVectorsRemoved",
                  "numRemovedBytes", "numRemovedFiles", "p25FileSize", "p50FileSize", "p75FileSize"]),
    "RESTORE": (["timestamp", "version"], ["numOfFilesAfterRestore", "numRemovedFiles", "numRestoredFiles",
                              "removedFilesSize", "restoredFilesSize", "tableSizeAfterRestore"]),
}


def tuples(value):
    """JSON-ish results as tuples, so that both sides compare alike."""
    if isinstance(value, dict):
        return {k: tuples(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tuple(x) if isinstance(x, (list, tuple)) else x for x in value]
    return value


def silt_expected(name):
    """EXPECTED as Silt returns it: with its clustering figures, and its two DESCRIBE DETAIL columns after Delta's."""
    if name in ("optimize", "zorder", "optimize_sql"):
        return [("path", "string"), ("metrics", OPTIMIZE_METRICS.format(silt_clustering=SILT_CLUSTERING))]
    if name == "detail":
        return EXPECTED["detail"] + [("version", LONG), ("lastCheckpointVersion", LONG)]
    return EXPECTED[name]


@pytest.fixture(scope="module")
def silt_outputs(spark):
    from silt.delta.tables import DeltaTable
    for table in ("t", "m", "c"):
        spark.sql(f"DROP TABLE IF EXISTS {table}")
    scope = {"spark": spark, "DeltaTable": DeltaTable}
    try:
        exec(PROGRAM, scope)
    finally:
        spark.conf.unset("spark.databricks.delta.retentionDurationCheck.enabled")
        for table in ("t", "m", "c"):
            spark.sql(f"DROP TABLE IF EXISTS {table}")
    return scope["result"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_outputs_have_delta_lake_shape(silt_outputs, name):
    assert tuples(silt_outputs[name]) == tuples(silt_expected(name))


@pytest.mark.parametrize("operation", sorted(RECORDED))
def test_history_records_delta_lake_names(silt_outputs, operation):
    parameters, metrics = silt_outputs["recorded"][operation]
    want_parameters, want_metrics = RECORDED[operation]
    assert set(want_parameters) <= set(parameters)
    assert set(want_metrics) - NOT_RECORDED <= set(metrics)


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_returns_what_expected_says():
    import ast
    [res] = run_reference([{"op": "api", "code": PROGRAM}])
    assert res["ok"], res.get("error")
    ref = ast.literal_eval(res["result"])
    for name in EXPECTED:
        assert tuples(ref[name]) == tuples(EXPECTED[name]), name
    for operation, (parameters, metrics) in RECORDED.items():
        got_parameters, got_metrics = ref["recorded"][operation]
        assert set(got_parameters) == set(parameters), operation
        assert set(got_metrics) - NOT_RECORDED == set(metrics), operation
