package io.silt.optimize

import io.silt.actions.{AddFile, CommitInfo}
import io.silt.config.SiltSettings
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.partition.PartitionValues
import io.silt.txn.{OptimizeMode, PostCommitHook}
import org.apache.spark.sql.SparkSession

/**
 * Auto compaction (Delta Lake's `delta.autoOptimize.autoCompact`): after a commit that added files,
 * the partitions it wrote to that now hold at least `minNumFiles` small files are compacted, in a
 * commit of their own recorded as OPTIMIZE with `auto = true`. It runs on the committing thread, as
 * Delta Lake's does. The user's commit stands whatever happens here: a compaction that fails or
 * loses to a concurrent writer's commit is given up with a warning (the next commit tries again), or
 * fails the statement under `postCommitHook.throwOnError`.
 */
final class AutoCompactHook extends PostCommitHook {
  override val name: String = "Auto Compact"

  override def remedy(tablePath: String): String =
    s"the next commit that writes small files tries again, or run OPTIMIZE delta.`$tablePath`"

  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    val snapshot = committed
    val enabled = SiltSettings.AutoCompactEnabled.option(spark)
      .orElse(TableProperties(snapshot.metadata.configuration).autoCompact).getOrElse(false)
    if (!enabled) return
    val actions = log.readCommit(snapshot.version)
    // A compaction's own commit (or OPTIMIZE's) leaves nothing for another.
    val compacting = actions.exists {
      case c: CommitInfo => c.operation.exists(op => op == "OPTIMIZE" || op == "REORG")
      case _ => false
    }
    // partitions by value: files written in another form of the same value are of the same partition
    val (schema, tz) = (snapshot.metadata.partitionSchema, spark.sessionState.conf.sessionLocalTimeZone)
    val comparable = new PartitionValues.Comparable(schema, tz)
    val written = actions.collect { case a: AddFile => comparable(a.partitionValues) }.toSet
    if (compacting || written.isEmpty) return
    val settings = AutoCompactHook.settings(spark)
    val minFileSize = settings.minFileSize
    val minNumFiles = SiltSettings.AutoCompactMinNumFiles(spark)
    val small = snapshot.filesWhere(Nil, tz) { () =>
      val inTask = new PartitionValues.Comparable(schema, tz)
      a => a.size < minFileSize && written(inTask(a.partitionValues))
    }
    val chosen = small.groupBy(a => comparable(a.partitionValues))
      .collect { case (p, files) if files.size >= minNumFiles => p }.toSet
    if (chosen.isEmpty) return
    val predicate = AutoCompactHook.describe(chosen)
    OptimizeExecutor.run(spark, log.tablePath, None, OptimizeMode.Compaction,
      Some(OptimizeExecutor.AutoCompaction(chosen, settings, predicate)))
  }
}

object AutoCompactHook {
  /** The sizes auto compaction works with: its own settings, not OPTIMIZE's. */
  def settings(spark: SparkSession): OptimizeSettings = {
    val max = SiltSettings.AutoCompactMaxFileSize(spark)
    OptimizeSettings.from(spark).copy(maxFileSize = max,
      minFileSize = SiltSettings.AutoCompactMinFileSize.option(spark).getOrElse(max / 2),
      // as Delta Lake's: files are compacted for their size only, not for their deleted rows
      maxDeletedRowsRatio = 1.0)
  }

  /** The chosen partitions as a predicate for the history (`p <=> '1' OR …`; `[]` on a table without partitions). */
  def describe(partitions: Set[Map[String, String]]): String = partitions.toSeq.map { values =>
    values.toSeq.sortBy(_._1).map { case (k, v) =>
      s"`$k` <=> ${Option(v).map(s => "'" + s.replace("'", "\\'") + "'").getOrElse("NULL")}"
    }.mkString(" AND ")
  }.filter(_.nonEmpty).sorted.mkString(" OR ")
}
