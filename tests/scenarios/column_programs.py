"""Programs written for delta-spark's Python API that pass Columns (and wrong arguments), shared by
the classic tests (tests/test_column_expressions.py) and their Spark Connect run
(tests/scenarios/connect_columns.py). The table has a column named `a` and conditions compare with
the string 'a': a Column printed as text (`key = a`) would compare with the column instead."""

SETUP = """
path = {path!r}
spark.createDataFrame([("a", "b", "1"), ("b", "b", "2"), ("c", "a", "3"), ("d", "d", "4")],
                      "key STRING, a STRING, v STRING").write.format("delta").save(path)
dt = DeltaTable.forPath(spark, path)
src = spark.createDataFrame([("a", "x"), ("b", "skip"), ("e", "new")], "key STRING, v STRING")
full = spark.createDataFrame([("a", "q", "x"), ("b", "q", "skip"), ("e", "q", "new")], "key STRING, a STRING, v STRING")
"""

PROGRAMS = {
    "delete_column": 'dt.delete(F.col("key") == "a")',
    "delete_string_literal_vs_column": 'dt.delete(F.col("key") == F.lit("b"))',
    "delete_everything": "dt.delete()",
    "update_columns": 'dt.update(F.col("key") == "b", {"v": F.lit("z"), "a": F.upper(F.col("a"))})',
    "update_mixed": 'dt.update("key = \'c\'", {"v": F.concat(F.col("v"), F.lit("!")), "a": "\'a\'"})',
    "update_everywhere": 'dt.update(set={"v": F.col("key")})',
    "merge_columns": """
(dt.alias("t").merge(src.alias("s"), F.col("t.key") == F.col("s.key"))
   .whenMatchedUpdate(condition=F.col("s.v") != "skip", set={"v": F.col("s.v")})
   .whenNotMatchedInsert(values={"key": F.col("s.key"), "a": F.lit("a"), "v": F.upper(F.col("s.v"))})
   .whenNotMatchedBySourceUpdate(condition=F.col("t.key") == "a", set={"v": F.lit("orphan")})
   .whenNotMatchedBySourceDelete(condition=F.col("t.a") == "a")
   .execute())""",
    "merge_clauses_in_any_order": """
(dt.alias("t").merge(full.alias("s"), "t.key = s.key")
   .whenNotMatchedInsertAll(condition=F.col("s.v") == "new")
   .whenMatchedDelete(condition=F.col("s.v") == "skip")
   .whenMatchedUpdateAll()
   .execute())""",
}


# Wrong calls, each with the exception delta-spark raises for it (the reference test checks that).
WRONG_CALLS = {
    "dt.delete(1)": "TypeError",
    "dt.update(F.col('key') == 'a', None)": "ValueError",
    "dt.update(set=['v'])": "TypeError",
    "dt.update(set={1: 'v'})": "TypeError",
    "dt.update(set={'v': 1})": "TypeError",
    "dt.merge(None, 'key = key')": "ValueError",
    "dt.merge(src, None)": "ValueError",
    "dt.merge('src', 'key = key')": "TypeError",
    "dt.merge(src, 1)": "TypeError",
    "dt.merge(src, 'key = key').whenMatchedUpdate(set=None)": "ValueError",
    "dt.merge(src, 'key = key').whenMatchedDelete(condition=3)": "TypeError",
    "dt.optimize().executeZOrderBy(1)": "TypeError",
    "dt.restoreToVersion('1')": "ValueError",
    "dt.restoreToTimestamp(1)": "ValueError",
    "dt.upgradeTableProtocol('1', 2)": "ValueError",
    "dt.addFeatureSupport(1)": "ValueError",
    "dt.dropFeatureSupport('deletionVectors', 'yes')": "ValueError",
    "dt.clone('/tmp/x', isShallow='yes')": "ValueError",
    "DeltaTable.create(spark).tableName(1)": "TypeError",
    "DeltaTable.create(spark).clusterBy(1)": "TypeError",
    "DeltaTable.create(spark).partitionedBy('a', 2)": "TypeError",
    "DeltaTable.create(spark).addColumn('c', 1)": "TypeError",
    "DeltaTable.create(spark).addColumn('c', 'INT', nullable='no')": "TypeError",
    "DeltaTable.create(spark).property('k', 1)": "TypeError",
    "DeltaTable.create(spark).addColumns(1)": "TypeError",
}
CATCH = "\ntry:\n    {call}\n    result = None\nexcept Exception as e:\n    result = type(e).__name__\n"
