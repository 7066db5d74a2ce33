package io.silt.optimize

import java.util.UUID

import scala.jdk.CollectionConverters._
import scala.util.Try

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.{ActionCodec, AddFile, Json}
import io.silt.features.Clustering
import io.silt.log.Snapshot
import io.silt.txn.OptimizeMode

/**
 * OPTIMIZE of a clustered table: it clusters by the table's clustering columns the files that are
 * not clustered by them yet (all of them with FULL), so that a second OPTIMIZE with nothing new
 * commits nothing. The files of one pass are tagged as Delta Lake tags a ZCube's (`ZCUBE_ID`,
 * `ZCUBE_ZORDER_BY`, `clusteringProvider = liquid`), so either engine sees what the other clustered.
 */
object LiquidClustering {
  val ZCubeIdTag = "ZCUBE_ID"
  val ZCubeColumnsTag = "ZCUBE_ZORDER_BY"

  /**
   * The columns this OPTIMIZE clusters by (logical names); None when it does not cluster. A
   * clustered table takes no ZORDER BY; FULL needs clustering columns.
   */
  def clusterBy(snapshot: Snapshot, mode: OptimizeMode): Option[Seq[String]] = {
    val table = snapshot.tablePath.toString
    val columns = Clustering.physicalColumns(snapshot.domains).map(Clustering.logicalNames(snapshot.metadata.schema, _))
    (mode, columns) match {
      case (OptimizeMode.ZOrder(z), Some(_)) => throw new InvalidTableOperationException(s"table $table is clustered: " +
        s"OPTIMIZE clusters it by its clustering columns and cannot ZORDER BY (${z.mkString(", ")}); remove ZORDER BY " +
        "(ALTER TABLE … CLUSTER BY changes the columns)")
      case (OptimizeMode.Full, c) if c.forall(_.isEmpty) => throw new InvalidTableOperationException(s"OPTIMIZE … " +
        s"FULL reclusters a clustered table, and table $table has no clustering columns: run OPTIMIZE without FULL, " +
        "or give it some with ALTER TABLE … CLUSTER BY (…)")
      case (OptimizeMode.Compaction | OptimizeMode.Full, Some(c)) if c.nonEmpty => Some(c)
      case _ => None
    }
  }

  /** A pass of new data is merged with clustered passes smaller than this many times its size. */
  val MergeRatio = 4.0
  /** Passes kept besides the largest one; more are merged, smallest first, with the new data. */
  val MaxSmallPasses = 2

  /**
   * The files an OPTIMIZE clusters: all of them with FULL, else those not clustered by `columns`
   * yet, with as few clustered passes (ZCubes) as keep the layout good. Every pass spans the whole
   * key space, so a range reads files of each: the new data is merged with the passes of comparable
   * size (smaller than [[MergeRatio]] times it), and with the smallest others while more than
   * [[MaxSmallPasses]] would stay beside the largest. With nothing new, nothing is clustered.
   */
  def filesToCluster(files: Seq[AddFile], columns: Seq[String], full: Boolean): Seq[AddFile] = {
    if (full) return files
    val (clustered, fresh) = files.partition(isClusteredBy(_, columns))
    if (fresh.isEmpty) return Nil
    def bytes(pass: Seq[AddFile]) = pass.iterator.map(_.size).sum
    val passes = clustered.groupBy(_.tags(ZCubeIdTag)).values.toSeq.sortBy(p => (bytes(p), p.head.path))
    val freshBytes = bytes(fresh)
    val (comparable, larger) = passes.partition(p => bytes(p) < MergeRatio * freshBytes)
    // Left beside the largest pass: the other larger ones and the new pass, at most MaxSmallPasses.
    val besideLargest = larger.size - 1 + 1
    val surplus = math.max(0, besideLargest - MaxSmallPasses)
    fresh ++ comparable.flatten ++ larger.take(surplus).flatten
  }

  /** Whether a clustering pass by `columns` wrote the file (this engine or Delta Lake). */
  def isClusteredBy(a: AddFile, columns: Seq[String]): Boolean =
    a.clusteringProvider.contains(Clustering.Provider) && a.tags.get(ZCubeColumnsTag).exists { json =>
      Try(ActionCodec.mapper.readTree(json).elements().asScala.map(_.asText.toLowerCase).toSeq).toOption
        .contains(columns.map(_.toLowerCase))
    }

  /** The files one clustering pass wrote, tagged as one ZCube of `columns`. */
  def tagged(files: Seq[AddFile], columns: Seq[String]): Seq[AddFile] = {
    val tags = Map(ZCubeIdTag -> UUID.randomUUID().toString, ZCubeColumnsTag -> Json.array(columns))
    files.map(a => a.copy(tags = a.tags ++ tags, clusteringProvider = Some(Clustering.Provider)))
  }
}
