package io.silt.checkpoint

import io.silt.actions.ActionCodec
import io.silt.log.{CheckpointInstance, CheckpointKind, CommitEntry, FileNames, LastCheckpoint, LogListing}
import org.apache.hadoop.fs.{FileStatus, Path}
import org.scalatest.funsuite.AnyFunSuite

class CheckpointSpec extends AnyFunSuite {

  test("the _last_checkpoint checksum follows the protocol's test vector") {
    val json = """{"k0":"'v 0'", "checksum": "adsaskfljadfkjadfkj", "k1":{"k2": 2, "k3": ["v3", [1, 2], {"k4": "v4", "k5": ["v5", "v6", "v7"]}]}}"""
    val node = ActionCodec.mapper.readTree(json)
    assert(LastCheckpoint.canonicalize(node) == "\"k0\"=\"%27v%200%27\",\"k1\"+\"k2\"=2,\"k1\"+\"k3\"+0=\"v3\"," +
      "\"k1\"+\"k3\"+1+0=1,\"k1\"+\"k3\"+1+1=2,\"k1\"+\"k3\"+2+\"k4\"=\"v4\",\"k1\"+\"k3\"+2+\"k5\"+0=\"v5\"," +
      "\"k1\"+\"k3\"+2+\"k5\"+1=\"v6\",\"k1\"+\"k3\"+2+\"k5\"+2=\"v7\"")
    assert(LastCheckpoint.checksum(node) == "6a92d155a59bf2eecbd4b4ec7fd1f875")
  }

  private val hour = 3600L * 1000
  private def status(name: String, mtime: Long) = new FileStatus(1, false, 1, 1, mtime, new Path(s"file:/t/_delta_log/$name"))
  private def listing(commitTimes: Seq[Long], checkpointVersions: Seq[Long]): LogListing = LogListing(
    commitTimes.zipWithIndex.map { case (t, v) => CommitEntry(v, status(FileNames.commitName(v), t), t) }.toIndexedSeq,
    checkpointVersions.sorted.reverse.map(v => CheckpointInstance(v, CheckpointKind.Classic, Seq(status(FileNames.checkpointName(v), commitTimes(v.toInt))))))

  test("cleanup deletes only what the newest expired checkpoint covers (injected clock)") {
    val now = 100 * hour
    // commits 0..9 at hours 0..9, checkpoints at 3 and 6; retention 94 hours: cutoff at hour 6
    val l = listing((0 until 10).map(_ * hour), Seq(3, 6))
    val (cp, files) = LogCleanup.plan(l, now, 94 * hour).get
    assert(cp == 6)
    // each commit's checksum file (written by Delta) goes with it
    assert(files.map(_.getName).sorted == ((0 until 6).flatMap(v => Seq(FileNames.commitName(v), f"$v%020d.crc")) :+
      FileNames.checkpointName(3)).sorted)
    // cutoff at hour 5: the newest checkpoint not newer than commit 5 is 3
    assert(LogCleanup.plan(l, now, 95 * hour).get._1 == 3)
    // nothing expired yet, or no checkpoint old enough: nothing to do
    assert(LogCleanup.plan(l, now, 200 * hour).isEmpty)
    assert(LogCleanup.plan(listing((0 until 10).map(_ * hour), Seq(8)), now, 94 * hour).isEmpty)
  }

  test("a multi-part checkpoint counts only when every part is there") {
    def part(v: Long, p: Int, n: Int) =
      FileNames.CheckpointFile(v, Some((p, n)), None) -> status(f"$v%020d.checkpoint.$p%010d.$n%010d.parquet", 0)
    val complete = CheckpointInstance.complete(Seq(part(5, 1, 2), part(5, 2, 2), part(9, 1, 3), part(9, 3, 3)))
    assert(complete.map(_.version) == Seq(5))
    assert(complete.head.kind == CheckpointKind.MultiPart(2))
  }
}
