"""The table builder (DeltaTable.create / createOrReplace) records what the reference records: NOT NULL,
comments, generated expressions, partition columns, properties, the table's comment; compared field by
field with delta-spark's builder on the reference Delta Lake, for a table by name, with and without a
location."""
import json
import os

import pytest

from silt.delta.tables import DeltaTable

# Builds a table with delta-spark's API (names DeltaTable, spark, name, location) and sets `result` to what a
# user sees of it: its read schema, partition columns, properties and comment.
PROGRAM = """
b = (DeltaTable.create(spark).tableName(name)
     .addColumn("c1", "int", nullable=False, comment="first")
     .addColumn("c2", "string", nullable=False)
     .addColumn("c3", "int", generatedAlwaysAs="c1 * 2", comment="twice")
     .addColumn("c4", "struct<a: int, b: string>")
     .partitionedBy("c1").property("delta.appendOnly", "true").property("team", "data").comment("tbl"))
if location:
    b = b.location(location)
b.execute()
detail = spark.sql(f"DESCRIBE DETAIL {name}").first()
log = detail.location.replace("file:", "") + "/_delta_log/"
metadata = [json.loads(line)["metaData"] for f in sorted(os.listdir(log)) if f.endswith(".json")
            for line in open(log + f) if '"metaData"' in line][-1]
result = {"pathSchema": spark.read.format("delta").load(detail.location).schema.json(),"schema": spark.table(name).schema.json(),
          "forName": DeltaTable.forName(spark, name).toDF().schema.json(),
          "partitionColumns": list(detail.partitionColumns), "description": detail.description,
          "properties": {k: v for k, v in detail.properties.items()},
          "logged": [(f["name"], f["nullable"], f["metadata"].get("delta.generationExpression"), f["metadata"].get("comment"))
                     for f in json.loads(metadata["schemaString"])["fields"]],
          "described": [tuple(r) for r in spark.sql(f"DESCRIBE TABLE {name}").collect()]}
"""


@pytest.mark.full  # second tier: make test was past 15 minutes (39 s each)
@pytest.mark.reference
@pytest.mark.parametrize("located", [False, True], ids=["managed", "location"])
def test_the_builder_records_what_the_reference_records(spark, tmp_path, located):
    from test_interop import result_on_reference, result_on_silt
    name = f"builder_{'loc' if located else 'managed'}"
    ref = result_on_reference("import json, os\n" + PROGRAM, name=name + "_ref",
                              location=str(tmp_path / "ref") if located else None)
    try:
        mine = result_on_silt(spark, PROGRAM, json=json, os=os, name=name, location=str(tmp_path / "silt") if located else None)
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    assert json.loads(mine["schema"]) == json.loads(ref["schema"])
    assert json.loads(mine["forName"]) == json.loads(ref["forName"])
    assert json.loads(mine["pathSchema"]) == json.loads(ref["pathSchema"])
    for key in ("partitionColumns", "description", "properties", "logged", "described"):
        assert mine[key] == ref[key], key
    fields = {f["name"]: f for f in json.loads(mine["schema"])["fields"]}
    assert not fields["c1"]["nullable"] and not fields["c2"]["nullable"] and fields["c1"]["metadata"]["comment"] == "first"
    assert mine["logged"][:3] == [("c1", False, None, "first"), ("c2", False, None, None), ("c3", True, "c1 * 2", "twice")]
