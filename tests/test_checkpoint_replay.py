"""Checkpoints written from a Spark job's replay of the log (tables above
`spark.silt.snapshot.maxDriverFiles` live files) hold the actions a checkpoint written from the
driver's file list holds, in the order readers prune by: files by partition values and path."""
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from test_checkpoints import drop_commits_before, log_files, peers_ids

LIMIT = "spark.silt.snapshot.maxDriverFiles"


def build(spark, path, policy):
    """A table with partitions, deletion vectors, row tracking, a transaction, tombstones and a
    checkpoint (version 6) followed by more commits (to version 10)."""
    spark.sql(f"""CREATE TABLE silt.`{path}` (id BIGINT, k INT, s STRING) USING silt PARTITIONED BY (k)
                  TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'delta.enableRowTracking' = 'true',
                                 'delta.checkpointPolicy' = '{policy}', 'delta.checkpointInterval' = '1000')""")
    for i in range(4):
        spark.range(i * 20, i * 20 + 20, 1, 2).selectExpr("id", "CAST(id % 3 AS INT) AS k", "CAST(id AS STRING) AS s") \
            .write.format("silt").mode("append").save(path)
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id % 5 = 0")
    spark.sql(f"UPDATE silt.`{path}` SET s = 'u' WHERE id < 10")
    spark.sql(f"CHECKPOINT '{path}'")
    spark.range(100, 110).selectExpr("id", "1 AS k", "'t' AS s").write.format("silt").mode("append") \
        .option("txnAppId", "app").option("txnVersion", 3).save(path)
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id IN (21, 22, 101)")
    spark.sql(f"OPTIMIZE '{path}' WHERE k = 2")
    spark.sql(f"DELETE FROM silt.`{path}` WHERE k = 0 AND id > 70")


def checkpoint_rows(path, version):
    """The rows of the checkpoint of `version` (its sidecars' for V2), as written: a list per file."""
    log = Path(path) / "_delta_log"
    names = [n for n in log_files(path) if n.startswith(f"{version:020d}.checkpoint")]
    assert len(names) == 1, names
    files = [log / names[0]]
    if names[0].endswith(".json"):
        top = [json.loads(line) for line in files[0].read_text().splitlines() if line.strip()]
    else:
        top = [{k: v for k, v in r.items() if v is not None} for r in pq.read_table(files[0]).to_pylist()]
    sidecars = [log / "_sidecars" / a["sidecar"]["path"] for a in top if "sidecar" in a]
    out = [[a for a in top if "sidecar" not in a and "checkpointMetadata" not in a]]
    for p in sidecars:
        out.append([{k: v for k, v in r.items() if v is not None} for r in pq.read_table(p).to_pylist()])
    return out


def canonical(rows):
    """Each action as JSON with its fields sorted, null fields and empty maps dropped (the two writers
    spell an absent field either way)."""
    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items() if x is not None and x != [] and x != {}}
        if isinstance(v, list) and v and isinstance(v[0], tuple):
            return clean(dict(v))
        return v
    return sorted(json.dumps(clean(r), sort_keys=True, default=str) for r in rows)


def state_loaded(spark, path):
    """Whether Silt's cached snapshot of `path` holds its file list on the driver."""
    return spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, path).latest().isStateLoaded()


def file_order(rows):
    """The partition value of each file action, in the file's order (None for a tombstone without)."""
    return [dict((r.get("add") or r.get("remove")).get("partitionValues") or []).get("k") for r in rows
            if "add" in r or "remove" in r]


# classic in `make test`; the V2 forms in the second tier
@pytest.mark.parametrize("policy,fmt", [("classic", None), pytest.param("v2", "parquet", marks=pytest.mark.full),
                                        pytest.param("v2", "json", marks=pytest.mark.full)])
def test_a_checkpoint_replayed_by_spark_holds_what_the_drivers_holds(spark, tmp_path, setting, policy, fmt):
    src = str(tmp_path / "src")
    if fmt:
        setting("spark.silt.checkpoint.v2.format", fmt)
        setting("spark.silt.checkpoint.v2.filesPerSidecar", "4")
    build(spark, src, policy)
    expected = sorted(tuple(r) for r in spark.read.format("silt").load(src).collect())
    by_spark, by_driver = str(tmp_path / "spark"), str(tmp_path / "driver")
    shutil.copytree(src, by_spark)
    shutil.copytree(src, by_driver)
    spark.sql(f"CHECKPOINT '{by_driver}'")  # a fresh path, a small log: the driver's file list
    assert state_loaded(spark, by_driver)
    setting(LIMIT, "0")
    spark.sql(f"CHECKPOINT '{by_spark}'")   # no file list on the driver: Spark replays checkpoint 6 and commits 7 to 10
    driver, replayed = checkpoint_rows(by_driver, 10), checkpoint_rows(by_spark, 10)
    assert canonical(sum(replayed, [])) == canonical(sum(driver, []))
    assert any("txn" in r for r in sum(replayed, [])) and any("remove" in r for r in sum(replayed, []))
    assert not state_loaded(spark, by_spark)
    for rows in replayed[1:] if policy == "v2" else replayed:
        kinds = [next(k for k in ("add", "remove") if k in r) for r in rows if "add" in r or "remove" in r]
        assert kinds == sorted(kinds)  # the files, then the tombstones
        adds = [(int(k), r["add"]["path"]) for k, r in zip(file_order(rows), [r for r in rows if "add" in r or "remove" in r])
                if "add" in r]
        assert adds == sorted(adds)
    if policy == "v2":
        assert len(replayed) > 2  # several sidecars, each a range of partitions
        ranges = [(min(ks), max(ks)) for ks in ([int(k) for k in file_order(rows) if k is not None] for rows in replayed[1:]
                                                if not any("remove" in r for r in rows)) if ks]
        assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:]))
    drop_commits_before(by_spark, 10)
    fresh = str(tmp_path / "fresh")
    shutil.move(by_spark, fresh)
    assert sorted(tuple(r) for r in spark.read.format("silt").load(fresh).collect()) == expected
    ids = sorted(r[0] for r in expected)
    assert peers_ids(fresh) == (ids, ids)


@pytest.mark.full  # second tier: the classic case above runs in make test
def test_a_log_without_checkpoint_is_replayed_by_spark_from_its_commits(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt PARTITIONED BY (k)")
    for i in range(3):
        spark.range(i * 10, i * 10 + 10).selectExpr("id", "CAST(id % 2 AS INT) AS k").write.format("silt").mode("append").save(p)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 5")
    fresh = str(tmp_path / "fresh")
    shutil.copytree(p, fresh)
    setting(LIMIT, "0")
    spark.sql(f"CHECKPOINT '{fresh}'")
    assert not state_loaded(spark, fresh)
    [rows] = checkpoint_rows(fresh, 4)
    assert len([r for r in rows if "add" in r]) == len(spark.sql(f"DESCRIBE FILES '{p}'").collect())
    assert file_order(rows)[:len([r for r in rows if "add" in r])] == sorted(file_order(rows)[:len([r for r in rows if "add" in r])])
    drop_commits_before(fresh, 4)
    moved = str(tmp_path / "moved")
    shutil.move(fresh, moved)
    assert sorted(r[0] for r in spark.read.format("silt").load(moved).collect()) == list(range(5, 30))
