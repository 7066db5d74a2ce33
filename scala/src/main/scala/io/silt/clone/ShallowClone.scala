package io.silt.clone

import java.util.UUID

import io.silt.dv.{DeletionVectorDescriptor, DvStorage}
import io.silt.errors.{InvalidTableOperationException, NotADeltaTableException}
import io.silt.actions.DomainMetadata
import io.silt.features.{Clustering, ProtocolRequest, RowTracking, TableFeatures}
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.{CreateMode, Operation, OptimisticTransaction}
import io.silt.write.TableWriter
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/** What a clone committed: the target's version, and the files it took from the source and removed from the target. */
final case class CloneResult(version: Long, numFiles: Long, bytes: Long, removedFiles: Long, removedBytes: Long)

/**
 * SHALLOW CLONE: gives the table at `target` the source snapshot's schema, properties and files in
 * one commit, its add actions naming the source's data files (and deletion vectors) by absolute
 * path, so that nothing is copied. The clone has its own id and history; its later writes go to its
 * own folder, and VACUUM of the clone never deletes the source's files (they are outside its root).
 * Replacing an existing table removes its files in the same commit, keeping its history.
 */
object ShallowClone {
  def run(spark: SparkSession, source: Snapshot, sourceName: String, target: Path, mode: CreateMode,
      properties: Map[String, String]): CloneResult = {
    val log = TableLog.forPath(spark, target.toString)
    val txn = OptimisticTransaction.start(spark, log)
    mode match {
      case CreateMode.Create if txn.tableExists =>
        throw new InvalidTableOperationException(s"cannot CREATE TABLE $target SHALLOW CLONE $sourceName: a table " +
          "exists there already; use CREATE OR REPLACE TABLE to replace it")
      case CreateMode.Replace if !txn.tableExists =>
        throw new NotADeltaTableException(target.toString, "REPLACE TABLE … SHALLOW CLONE needs an existing table")
      case _ =>
    }
    if (!txn.tableExists) requireEmpty(log, target, sourceName)
    TableWriter.checkSettable(properties)
    val (requested, props) = ProtocolRequest.parse(target.toString, properties)
    val src = source.metadata
    val configuration = src.configuration.filterNot { case (k, _) => props.keys.exists(_.equalsIgnoreCase(k)) } ++ props
    val metadata = txn.readSnapshot.map(_.metadata) match {
      case Some(existing) => src.copy(id = existing.id, configuration = configuration, createdTime = existing.createdTime)
      case None => src.copy(id = UUID.randomUUID().toString, configuration = configuration, createdTime = Some(System.currentTimeMillis()))
    }
    txn.updateMetadata(metadata, replacingTable = txn.tableExists)
    // The source's features first (a replaced target keeps its own), then what the metadata and properties need.
    txn.updateProtocol(TableFeatures.merge(if (txn.tableExists) Some(txn.protocol) else None, source.protocol))
    TableWriter.upgradeProtocol(txn, txn.metadata, requested = requested)
    TableFeatures.checkWritable(target.toString, txn.protocol, txn.metadata)

    val fs = source.tablePath.getFileSystem(log.hadoopConf)
    val adds = source.files.map { a =>
      a.copy(path = fs.makeQualified(source.filePath(a)).toUri.toString, dataChange = true,
        deletionVector = a.deletionVector.map(absolute(_, source.tablePath, fs)))
    }
    val now = System.currentTimeMillis()
    val removed = txn.filesInPartitions(Nil)
    val domains = cloneDomains(source, txn.readSnapshot)
    val op = Operation.Clone(sourceName, source.version, Map(
      "sourceTableSize" -> source.sizeInBytes, "sourceNumOfFiles" -> source.numFiles.toLong,
      "numRemovedFiles" -> removed.size.toLong, "removedFilesSize" -> removed.map(_.size).sum,
      "numCopiedFiles" -> 0L, "copiedFilesSize" -> 0L))
    val version = txn.commit(removed.map(_.remove(now)) ++ adds ++ domains, op)
    CloneResult(version, adds.size.toLong, source.sizeInBytes, removed.size.toLong, removed.map(_.size).sum)
  }

  /** A deletion vector stored relative to the source's root, made absolute so that the clone finds it. */
  private def absolute(dv: DeletionVectorDescriptor, sourceRoot: Path, fs: org.apache.hadoop.fs.FileSystem): DeletionVectorDescriptor =
    if (dv.storageType != DvStorage.Relative) dv
    else dv.copy(storageType = DvStorage.Absolute, pathOrInlineDv = fs.makeQualified(dv.filePath(sourceRoot)).toUri.toString)

  /**
   * The source's clustering columns go with its layout; a replaced target's own clustering goes.
   * The files keep the source's row ids, so the clone's high-water mark is at least the source's.
   */
  private def cloneDomains(source: Snapshot, target: Option[Snapshot]): Seq[DomainMetadata] = {
    val fromSource = source.domains.get(Clustering.Domain).filterNot(_.removed).toSeq
    val dropped = target.flatMap(_.domains.get(Clustering.Domain)).filterNot(_.removed)
      .filter(_ => fromSource.isEmpty).map(_.copy(removed = true)).toSeq
    val rowIdMark = RowTracking.highWaterMark(source.domains.values).map(m =>
      RowTracking.markDomain((Seq(m) ++ target.flatMap(t => RowTracking.highWaterMark(t.domains.values))).max))
    fromSource ++ dropped ++ rowIdMark
  }

  /** A new clone does not adopt files already in its folder (nobody asked for them in the table). */
  private def requireEmpty(log: TableLog, target: Path, sourceName: String): Unit = {
    val fs = target.getFileSystem(log.hadoopConf)
    if (fs.exists(target) && fs.listStatus(target).nonEmpty) {
      throw new InvalidTableOperationException(s"cannot clone $sourceName into $target: the folder is not empty and " +
        "holds no Delta table; clone into an empty or new folder")
    }
  }
}
