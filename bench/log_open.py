"""Opening a table's log as a new reader would: a fresh hard-link copy of its _delta_log/ at a path
no JVM has seen (Silt caches each path's log and latest snapshot), opened by Silt or delta-rs."""
from pathlib import Path

from bench.common import link_copy, rm


def table_log(spark, path):
    """Silt's io.silt.log.TableLog of a path (the JVM object)."""
    return spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, str(path))


def snapshot_file_count(spark, path):
    """The number of files in the table's latest snapshot (reads its file list)."""
    return int(table_log(spark, path).latest().numFiles())


def openers(spark):
    """The ways a table is opened, by name: each takes a path and returns what it saw."""

    def silt_read(p):
        spark.read.format("silt").load(str(p)).schema
        return None

    def silt_log(p):
        s = table_log(spark, p).latest()
        return {"version": int(s.version()), "files_read": bool(s.isStateLoaded())}

    def silt_files(p):
        s = table_log(spark, p).latest()
        return {"version": int(s.version()), "files": int(s.numFiles())}

    def silt_list(p):
        return {"commits": int(table_log(spark, p).listing(0).commits().size())}

    def delta_rs(p):
        from deltalake import DeltaTable
        t = DeltaTable(str(p))
        return {"version": t.version()}

    return {"silt_read": silt_read, "silt_log": silt_log, "silt_files": silt_files, "silt_list": silt_list,
            "delta_rs": delta_rs}


def log_copy(table, dst):
    """A fresh hard-link copy of a table's _delta_log/ (all that opening the table reads)."""
    rm(dst)
    dst.mkdir(parents=True)
    link_copy(Path(table) / "_delta_log", dst / "_delta_log")
    return dst


