package io.silt.optimize

import java.util.concurrent.Executors

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration

import io.silt.errors.NotADeltaTableException
import io.silt.expressions.Curve
import io.silt.actions.AddFile
import io.silt.features.{IcebergCompat, TableFeatures}
import io.silt.log.{Snapshot, TableLog}
import io.silt.partition.{PartitionPredicates, PartitionValues}
import io.silt.read.SiltRelation
import io.silt.stats.StatsColumn
import io.silt.txn.{OptimizeMode, Operation, OptimisticTransaction, YieldingGroup}
import io.silt.write.{ClusteringColumns, DataFileWriter, RowTrackingWrites}
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * OPTIMIZE: rewrites the small files of the selected partitions into large ones (bin-packing),
 * or with ZORDER BY all their files into files clustered along a Z-order curve, and commits the
 * swap as one transaction with dataChange = false.
 */
object OptimizeExecutor extends Logging {

  /** One unit of work: files of one partition rewritten together. */
  private final case class Bin(partitionValues: Map[String, String], files: Seq[AddFile])

  /**
   * What an auto compaction compacts: the small files of these partitions (as the log keys their
   * values), with its own sizes; `predicate` is how the history shows them.
   */
  final case class AutoCompaction(partitions: Set[Map[String, String]], settings: OptimizeSettings, predicate: String)

  /** The table of the last OPTIMIZE in this JVM, and how many files it held on the driver. */
  private val lastHeld = new java.util.concurrent.atomic.AtomicReference[(String, Long)](("", -1L))

  /**
   * How many files the last OPTIMIZE held on the driver (its candidates) if it was of the table at
   * `tablePath`, else -1: what the tests read to see that a compaction of millions of files keeps
   * only the few it rewrites.
   */
  def filesHeldByLast(tablePath: String): Long = lastHeld.get match {
    case (path, held) if path == new Path(tablePath).toUri.getPath => held
    case _ => -1L
  }

  /** `auto`: an auto compaction after a commit (plain bin-packing, also on clustered tables, recorded with auto = true). */
  def run(spark: SparkSession, tablePath: Path, partitionPredicate: Option[String], mode: OptimizeMode,
      auto: Option[AutoCompaction] = None): OptimizeMetrics = {
    val startTimeMs = System.currentTimeMillis()
    val settings = auto.map(_.settings).getOrElse(OptimizeSettings.from(spark))
    val log = TableLog.forPath(spark, tablePath.toString)
    val txn = OptimisticTransaction.start(spark, log)
    val snapshot = txn.readSnapshot.getOrElse(throw new NotADeltaTableException(tablePath.toString))
    TableFeatures.checkWritable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    // A clustered table is clustered by its own columns (LiquidClustering); others as asked.
    val clusterBy = if (auto.isDefined) None else LiquidClustering.clusterBy(snapshot, mode)
    val zOrderBy = clusterBy.getOrElse(mode match { case OptimizeMode.ZOrder(columns) => columns; case _ => Nil })
    validateZOrderColumns(snapshot, zOrderBy)
    val curve = if (clusterBy.isDefined) Curve.Hilbert else settings.zOrderCurve

    val predicate = partitionPredicate.map(p =>
      PartitionPredicates.resolve(spark, p, snapshot.metadata, "OPTIMIZE WHERE"))
    val tz = spark.sessionState.conf.sessionLocalTimeZone
    // Compaction and PURGE keep only the files they may rewrite: of a table of millions, mostly
    // compacted, the few small ones are held on the driver, not its whole list (the rest are counted).
    val prefilter = if (clusterBy.isDefined) None else candidate(mode, settings)
    val inScope = new java.util.concurrent.atomic.AtomicLong
    val schema = snapshot.metadata.partitionSchema
    val considered = snapshot.filesWhere(predicate.toSeq, tz) { () =>
      val comparable = new PartitionValues.Comparable(schema, tz)
      a => auto.forall(_.partitions.contains(comparable(a.partitionValues))) &&
        { inScope.incrementAndGet(); prefilter.forall(_(a)) }
    }
    // partitions by value: files written in another form of the same value are of the same partition
    val partitionOf = new PartitionValues.Comparable(schema, tz)
    val numConsidered = inScope.get
    lastHeld.set((tablePath.toUri.getPath, considered.size.toLong))
    val widened = if (mode == OptimizeMode.RewriteTypeWidening) WidenedFiles.select(spark, snapshot, considered).toSet
      else Set.empty[AddFile]
    val bins = clusterBy match {
      case Some(columns) => considered.groupBy(a => partitionOf(a.partitionValues)).toSeq.flatMap { case (values, files) =>
        Some(LiquidClustering.filesToCluster(files, columns, full = mode == OptimizeMode.Full)).filter(_.nonEmpty)
          .map(Bin(values, _))
      }
      case None => plan(considered, mode, settings, widened, partitionOf)
    }
    val selected = bins.flatMap(_.files)
    txn.readFiles(selected)

    val results = runInParallel(bins, settings.maxThreads) { (bin, i) =>
      spark.sparkContext.setJobGroup(s"silt-optimize-${snapshot.metadata.id}",
        s"OPTIMIZE ${tablePath.getName}${zOrderClause(zOrderBy)}: bin ${i + 1} of ${bins.size}", interruptOnCancel = true)
      rewrite(spark, snapshot, bin, zOrderBy, settings, curve)
    }
    val tagged = clusterBy.map(c => LiquidClustering.tagged(results.flatMap(_._1), c)).getOrElse(results.flatMap(_._1))
    val starts = results.map(_._1.size).scanLeft(0)(_ + _)
    val addedByBin = bins.indices.map(i => tagged.slice(starts(i), starts(i + 1)))
    val now = System.currentTimeMillis()
    val computed = scala.collection.mutable.Map.empty[Seq[Int], OptimizeMetrics]
    /** The metrics of the bins at these indexes (all, unless some yielded to concurrent commits), computed once. */
    def metricsOf(kept: Seq[Int]): OptimizeMetrics = computed.getOrElseUpdate(kept, {
      val selected = kept.flatMap(bins(_).files)
      val added = kept.flatMap(addedByBin)
      OptimizeMetrics(
        numFilesAdded = added.size,
        numFilesRemoved = selected.size,
        filesAdded = FileSizeStats.of(added.map(_.size)),
        filesRemoved = FileSizeStats.of(selected.map(_.size)),
        partitionsOptimized = kept.map(bins(_).partitionValues).distinct.size,
        numBins = kept.size,
        totalConsideredFiles = numConsidered,
        totalFilesSkipped = numConsidered - selected.size,
        zOrderStats = if (zOrderBy.isEmpty) None else Some(ZOrderStats(s"${curve.name}, curve-aligned",
          FileCount.of(selected.map(_.size)), kept.map(results(_)._2).sum)),
        clusteringStats = clusterBy.map { columns =>
          val leftAlone = considered.filterNot(selected.toSet)
          ClusteringStats(columns, FileCount.of(considered.map(_.size)), FileCount.of(leftAlone.map(_.size)),
            FileCount.of(selected.map(_.size)),
            LayoutQuality.rangeReadFraction(considered, snapshot.metadata, columns),
            LayoutQuality.rangeReadFraction(leftAlone ++ added, snapshot.metadata, columns))
        },
        deletionVectorStats = DeletionVectorStats(selected.count(_.deletionVector.isDefined).toLong,
          selected.flatMap(_.deletionVector.map(_.cardinality)).sum),
        startTimeMs = startTimeMs,
        endTimeMs = now,
        totalClusterParallelism = spark.sparkContext.defaultParallelism,
        numTableColumns = snapshot.metadata.schema.length,
        numTableColumnsWithStats = StatsColumn.forTable(snapshot.metadata.schema, snapshot.metadata).size,
        addedFileSizePercentiles = OptimizeMetrics.percentiles(added.map(_.size)))
    })
    // A bin whose files a concurrent commit changed (a DML's deletion vector, another OPTIMIZE) yields:
    // the other bins commit, and that commit's change stands.
    val groups = bins.indices.map(i => YieldingGroup(bins(i).files,
      bins(i).files.map(_.remove(now, dataChange = false)) ++ addedByBin(i)))
    val index = groups.zipWithIndex.toMap
    val op = (kept: Seq[YieldingGroup]) => Operation.Optimize(partitionPredicate.orElse(auto.map(_.predicate).filter(_.nonEmpty)),
      mode, metricsOf(kept.map(index)).operationMetrics, clusterBy, auto = auto.isDefined)
    val kept = txn.commitYielding(groups, op).map(_.kept.map(index)).getOrElse(Nil)
    val yielded = bins.indices.filterNot(kept.toSet)
    if (yielded.nonEmpty) {
      logWarning(s"Silt: OPTIMIZE of $tablePath: ${yielded.size} of ${bins.size} bins yielded to concurrent commits that " +
        "changed their files; their new files are deleted")
      DataFileWriter.deleteQuietly(spark, tablePath, yielded.flatMap(addedByBin))
    }
    metricsOf(kept)
  }

  /**
   * The bins to rewrite, per partition: for ZORDER every file; for REORG PURGE the files with
   * deletion vectors; for the type-widening rewrite the `widened` files; for compaction the small
   * files and those with too many deleted rows. A bin of one file is only rewritten when that
   * drops deleted rows or changes its types.
   */
  private def plan(files: Seq[AddFile], mode: OptimizeMode, settings: OptimizeSettings, widened: Set[AddFile],
      partitionOf: PartitionValues.Comparable): Seq[Bin] = {
    val purge = mode == OptimizeMode.Purge || mode.isInstanceOf[OptimizeMode.UpgradeUniform]
    files.groupBy(a => partitionOf(a.partitionValues)).toSeq.sortBy(_._1.toSeq.sortBy(_._1).toString).flatMap { case (values, inPartition) =>
      if (mode.isInstanceOf[OptimizeMode.ZOrder]) Seq(Bin(values, inPartition))
      else {
        val selected = inPartition.filter(candidate(mode, settings).getOrElse(widened))
        BinPacking.pack(selected, settings.maxFileSize)(_.size)
          .filter(bin => bin.size > 1 || mode == OptimizeMode.RewriteTypeWidening ||
            mode.isInstanceOf[OptimizeMode.UpgradeUniform] ||
            bin.exists(a => a.deletionVector.isDefined && (purge || tooManyDeleted(a, settings))))
          .map(Bin(values, _))
      }
    }
  }

  /**
   * Which files compaction (small ones, or with too many deleted rows) or PURGE (with deletion
   * vectors) may rewrite; None for the modes that decide from all the files in scope.
   */
  private def candidate(mode: OptimizeMode, settings: OptimizeSettings): Option[AddFile => Boolean] = mode match {
    case OptimizeMode.Purge => Some(_.deletionVector.isDefined)
    case OptimizeMode.UpgradeUniform(v) =>
      Some(a => a.deletionVector.isDefined || !a.tags.get(IcebergCompat.FileTag).contains(v.toString))
    case OptimizeMode.Compaction | OptimizeMode.Full => Some(a => a.size < settings.minFileSize || tooManyDeleted(a, settings))
    case _ => None
  }

  private def tooManyDeleted(a: AddFile, settings: OptimizeSettings) = a.deletedRowsRatio > settings.maxDeletedRowsRatio

  /** Rewrites one bin; returns the new files and the number of curve blocks they hold. */
  private def rewrite(spark: SparkSession, snapshot: Snapshot, bin: Bin, zOrderBy: Seq[String],
      settings: OptimizeSettings, curve: Curve): (Seq[AddFile], Int) = {
    val input: DataFrame = RowTrackingWrites.copied(
      spark.baseRelationToDataFrame(SiltRelation.forFiles(spark, snapshot, bin.files.toIndexedSeq)), snapshot.protocol,
      snapshot.metadata)
    val partitionColumns = snapshot.metadata.partitionColumns
    val (data, cubes) = if (zOrderBy.isEmpty) (input.coalesce(1), 0) else {
      val binSize = bin.files.map(_.size).sum
      val numFiles = math.max(1, math.round(binSize.toDouble / settings.maxFileSize).toInt)
      val clustered = ZOrderClustering.cluster(spark, input, zOrderBy, numFiles, settings.numRanges,
        settings.addNoise, sortColumns = partitionColumns, curve = curve)
      (clustered.data, clustered.numCubes)
    }
    val added = DataFileWriter.write(spark, snapshot.tablePath, data, snapshot.metadata,
      enforceConstraints = false).map(_.copy(dataChange = false))
    (added, cubes)
  }

  private def runInParallel[A, B](items: Seq[A], threads: Int)(f: (A, Int) => B): Seq[B] = {
    if (items.isEmpty) return Nil
    val pool = Executors.newFixedThreadPool(math.min(threads, items.size))
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutorService(pool)
    try Await.result(Future.sequence(items.zipWithIndex.map { case (a, i) => Future(f(a, i)) }), Duration.Inf)
    finally pool.shutdown()
  }

  /** ZORDER BY needs data columns with min/max statistics; anything else is named in an error. */
  private def validateZOrderColumns(snapshot: Snapshot, columns: Seq[String]): Unit = {
    columns.foreach(c => ClusteringColumns.requireMinMax(snapshot.metadata, c, "ZORDER BY"))
    ClusteringColumns.requireDistinct("ZORDER BY", columns)
  }

  private def zOrderClause(cols: Seq[String]) = if (cols.isEmpty) "" else cols.mkString(" ZORDER BY (", ", ", ")")
}
