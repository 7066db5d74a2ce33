"""Two upserts of the same new key, the first held inside its MERGE while the second commits.

The same scenario runs in Silt (tests/test_interop_conflicts.py) and in the reference Delta Lake
(reference_delta.py, op "upsert_race"). No engine hook is needed: the first MERGE's source holds
a Python UDF that, once the MERGE has taken its snapshot and reads its source, signals through a
file and waits for another file. The second MERGE then runs whole; the first is let go.
"""
import os
import threading
import time

WAIT_S = 120


def gate(reached, release):
    """A UDF body: signals `reached`, then waits for `release` to exist (at most WAIT_S)."""
    def check(_):
        open(reached, "w").close()
        deadline = time.time() + WAIT_S
        while not os.path.exists(release) and time.time() < deadline:
            time.sleep(0.02)
        return True
    return check


def race(spark, fmt, folder):
    """Runs the race on a new table under `folder`; {"error": first MERGE's error or None, "rows_with_key": n}."""
    path, reached, release = (os.path.join(folder, n) for n in ("t", "reached", "release"))
    spark.sql(f"CREATE TABLE {fmt}.`{path}` (id BIGINT, v STRING) USING {fmt} "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.range(0, 1000).selectExpr("id", "'old' AS v").write.format(fmt).mode("append").save(path)
    spark.udf.register("race_gate", gate(reached, release), "boolean")
    upsert = ("MERGE INTO {fmt}.`{path}` t USING (SELECT 5000L AS id, '{v}' AS v FROM range(1) WHERE {gate}) s "
              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    outcome = {}

    def first():
        try:
            spark.sql(upsert.format(fmt=fmt, path=path, v="first", gate="race_gate(id)")).collect()
            outcome["error"] = None
        except Exception as e:  # noqa: BLE001 - reported
            outcome["error"] = f"{type(e).__name__}: {e}"[:2000]

    thread = threading.Thread(target=first)
    thread.start()
    try:
        deadline = time.time() + WAIT_S
        while not os.path.exists(reached) and time.time() < deadline:
            time.sleep(0.02)
        if not os.path.exists(reached):
            raise RuntimeError("the first MERGE never read its source")
        spark.sql(upsert.format(fmt=fmt, path=path, v="second", gate="true")).collect()
    finally:
        open(release, "w").close()
        thread.join(WAIT_S + 60)
    rows = spark.read.format(fmt).load(path).where("id = 5000").collect()
    return {"error": outcome.get("error", "the first MERGE never ended"), "rows_with_key": len(rows),
            "values": sorted(r["v"] for r in rows)}
