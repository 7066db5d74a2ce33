package io.silt.dml

import scala.collection.mutable

import io.silt.actions.AddFile
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.FilePartition
import org.apache.spark.sql.functions.col

/** What the first pass of a copy-on-write command found: the files it changes rows of, and its rows by kind. */
private[dml] final case class TouchedFiles(paths: Set[String], counts: RowCounts)

/**
 * The first pass of a copy-on-write command, and the sample a DELETE may take of it instead.
 *
 * A copy-on-write DELETE first finds the files it removes rows from, then rewrites them: the first
 * pass reads the condition's columns of every candidate file, about a tenth of the cost of the
 * rewrite when the condition hits every file. When every file of a small sample spread over the
 * candidates loses rows, the DELETE bets that all do and rewrites all candidates in one pass
 * ([[RowLevelWriter]]); a lost bet costs the rewrite of the files that lose nothing, and a
 * sample with an untouched file costs one small extra job.
 */
private[dml] object TouchedFiles {
  private val action = col(RowChanges.ActionColumn)

  /**
   * The files a row-change plan changes rows of, and its rows by kind (Insert rows have no file):
   * each task counts its own rows by file and kind, no shuffle gathers them.
   */
  def of(changes: DataFrame): TouchedFiles = {
    val perFile = changes.where(action =!= RowChange.Keep.code).select(col(RowChanges.PathColumn), action)
      .queryExecution.toRdd.mapPartitions { it =>
        val counts = mutable.HashMap.empty[(String, Int), Long]
        it.foreach { r =>
          val key = (if (r.isNullAt(0)) null else r.getUTF8String(0).toString, r.getInt(1))
          counts(key) = counts.getOrElse(key, 0L) + 1L
        }
        counts.iterator
      }.collect().groupBy(_._1).map { case (key, counted) => key -> counted.map(_._2).sum }
    val counts = RowCounts.of(perFile.groupBy { case ((_, code), _) => RowChange.fromCode(code) }
      .map { case (change, files) => change -> files.values.sum })
    TouchedFiles(perFile.keysIterator.collect { case (p, code) if code != RowChange.Insert.code => p }.toSet, counts)
  }

  /**
   * Whether the plan changes rows of every one of the `files` it reads. Each task stops at the
   * first changed row of each of its files: a condition that hits a file early costs the reading
   * of one batch of its rows.
   */
  def eachChanged(changes: DataFrame, files: Int): Boolean = {
    val rdd = changes.where(action =!= RowChange.Keep.code).select(col(RowChanges.PathColumn)).queryExecution.toRdd
    // The files each task reads, when its scan says (a file Spark splits counts once per piece).
    val filesOfTask = rdd.partitions.map {
      case p: FilePartition => p.files.length
      case _ => Int.MaxValue
    }
    rdd.mapPartitionsWithIndex { (task, it) =>
      val seen = mutable.HashSet.empty[String]
      while (seen.size < filesOfTask(task) && it.hasNext) seen += it.next().getUTF8String(0).toString
      seen.iterator
    }.collect().toSet.size == files
  }

  /**
   * Up to `size` of `candidates`, evenly spread over them in path order (paths are random, so
   * this is a random sample that the same table always draws alike); all when there are no more.
   */
  def sample(candidates: Seq[AddFile], size: Int): Seq[AddFile] =
    if (candidates.size <= size) candidates
    else {
      val sorted = candidates.sortBy(_.path).toIndexedSeq
      (0 until size).map(i => sorted(i * sorted.size / size))
    }
}
