package io.silt.optimize

import io.silt.actions.AddFile
import org.scalatest.funsuite.AnyFunSuite

class LiquidClusteringSpec extends AnyFunSuite {
  private val columns = Seq("x", "y")
  private var counter = 0
  private def file(size: Long): AddFile = { counter += 1; AddFile(s"f$counter", Map.empty, size, 0, dataChange = true) }

  /** One OPTIMIZE: the files it clusters become one pass (as many files of 100 bytes as their bytes make). */
  private def optimize(files: Seq[AddFile]): (Seq[AddFile], Long) = {
    val chosen = LiquidClustering.filesToCluster(files, columns, full = false)
    val bytes = chosen.map(_.size).sum
    val pass = LiquidClustering.tagged(Seq.fill(math.max(1, (bytes / 100).toInt))(file(bytes / math.max(1, bytes / 100))), columns)
    (files.filterNot(chosen.contains) ++ (if (chosen.isEmpty) Nil else pass), bytes)
  }

  private def passes(files: Seq[AddFile]) = files.groupBy(_.tags.get(LiquidClustering.ZCubeIdTag)).size

  test("nothing new: nothing clustered; FULL: everything") {
    val (table, _) = optimize(Seq.fill(10)(file(1000)))
    assert(LiquidClustering.filesToCluster(table, columns, full = false).isEmpty)
    assert(LiquidClustering.filesToCluster(table, columns, full = true) == table)
    assert(LiquidClustering.filesToCluster(table, Seq("y"), full = false) == table)  // other columns: all new
  }

  test("ten rounds of 10% appends: few passes, a fraction of what one full rewrite per round costs") {
    var (table, _) = optimize(Seq.fill(64)(file(10000)))  // 640,000 bytes, one pass
    var rewritten = 0L
    var full = 0L
    for (_ <- 1 to 10) {
      table = table ++ Seq.fill(20)(file(3200))          // 10% of the first table, in 20 small files
      full += table.map(_.size).sum
      val (next, bytes) = optimize(table)
      table = next
      rewritten += bytes
      assert(passes(table) <= 1 + LiquidClustering.MaxSmallPasses)
    }
    assert(rewritten * 3 <= full, s"rewrote $rewritten bytes; one full rewrite a round: $full")
    assert(table.forall(a => LiquidClustering.isClusteredBy(a, columns)))
  }
}
