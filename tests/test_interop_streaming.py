"""A streaming pipeline moved from Delta Lake to Silt: a stream the reference Delta Lake ran (its
source, its sink, its checkpoint) goes on under Silt from the same checkpoint, every row once; and
the reference engine streams a table Silt wrote."""
import json
import os

from test_interop import run_reference


def ids(spark, path):
    return sorted(r.id for r in spark.read.format("silt").load(path).collect())


def test_a_stream_started_by_delta_lake_goes_on_under_silt(spark, tmp_path):
    source, target, cp = str(tmp_path / "src"), str(tmp_path / "dst"), str(tmp_path / "cp")
    for start in (0, 10):  # written by Silt: the reference engine streams a Silt table too
        spark.range(start, start + 10, 1, 2).write.format("silt").mode("append").save(source)
    results = run_reference([{"op": "stream", "source": source, "target": target, "checkpoint": cp}])
    assert results[0]["ok"], results[0].get("error")
    assert results[0]["batches"] == 4 and ids(spark, target) == list(range(20))
    last = sorted((p for p in os.listdir(os.path.join(cp, "offsets")) if p.isdigit()), key=int)[-1]
    offset = json.loads(open(os.path.join(cp, "offsets", last)).read().splitlines()[-1])
    assert "reservoirVersion" in offset  # Delta Lake's own offset

    spark.range(20, 30, 1, 2).write.format("silt").mode("append").save(source)
    query = (spark.readStream.format("silt").load(source).writeStream.format("silt")
             .option("checkpointLocation", cp).trigger(availableNow=True).start(target))
    query.awaitTermination()
    assert ids(spark, target) == list(range(30))
    # the Silt sink took up the Delta sink's transaction ids: the query id and the next batch ids
    txns = [json.loads(line)["txn"] for f in sorted(os.listdir(os.path.join(target, "_delta_log")))
            if f.endswith(".json") for line in open(os.path.join(target, "_delta_log", f)) if '"txn"' in line]
    assert len({t["appId"] for t in txns}) == 1 and [t["version"] for t in txns] == list(range(len(txns)))
