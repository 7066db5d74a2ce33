package io.silt.read

import io.silt.errors.{SourceRowsChangedException, SourceSchemaChangedException, SourceTableReplacedException}
import io.silt.actions.{Action, AddFile, CommitInfo, Metadata, RemoveFile}
import io.silt.features.ColumnMapping
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

/**
 * What a stream reads of one commit of its source table: the files the commit adds with data
 * (`dataChange`), in commit order. Commits that only reorganise files (OPTIMIZE, REORG) add none.
 * A commit that deletes or rewrites rows stops the stream unless the options say to skip it (or to
 * read its new files again); a schema change after the stream's schema was taken stops it too.
 */
final class SourceCommits(tablePath: String, streamMetadata: Metadata, schemaVersion: Long, options: SourceOptions) {
  private val streamSchema = SourceCommits.comparable(ColumnMapping.logicalSchema(streamMetadata.schema))
  private val streamPhysical = SourceCommits.physical(streamMetadata.schema)

  /** The files the stream reads of commit `version`, whose actions are `actions`. */
  def admitted(version: Long, actions: Seq[Action]): IndexedSeq[AddFile] = {
    actions.foreach { case m: Metadata => checkMetadata(version, m); case _ => }
    val adds = actions.iterator.collect { case a: AddFile if a.dataChange => a }.toIndexedSeq
    val removesData = actions.exists { case r: RemoveFile => r.dataChange; case _ => false }
    if (!removesData) adds
    else if (options.skipChangeCommits) IndexedSeq.empty
    else if (options.ignoreChanges) adds
    else if (options.ignoreDeletes && adds.isEmpty) IndexedSeq.empty
    else {
      val operation = actions.collectFirst { case i: CommitInfo => i.operation }.flatten.map(o => s" ($o)").getOrElse("")
      throw new SourceRowsChangedException(tablePath, version, s"version $version of $tablePath deletes or " +
        s"rewrites rows$operation; a stream reads the rows a table gains, and cannot take rows back. Set the read " +
        "option skipChangeCommits to 'true' to skip such commits (or ignoreChanges to read the rewritten files " +
        (if (adds.isEmpty) "again, or ignoreDeletes to skip commits that only delete), " else "again), ") +
        s"or start a new stream (new checkpoint location) with startingVersion ${version + 1}")
    }
  }

  /**
   * The files a change-feed stream reads of commit `version` (made at `timestamp`): every change,
   * deletes and updates too; the feed must stay on.
   */
  def changes(version: Long, actions: Seq[Action], timestamp: Long): IndexedSeq[ChangeFile] = {
    actions.foreach { case m: Metadata =>
      checkMetadata(version, m)
      ChangeFeed.requireRecorded(tablePath, version, m, s"read by this stream")
    case _ => }
    ChangeFeed.filesOf(actions, version, timestamp)
  }

  /** Refuses metadata `m` of `version` that the stream cannot read with its own (another table, or a schema change). */
  def checkMetadata(version: Long, m: Metadata): Unit = {
    if (m.id != streamMetadata.id) {
      throw new SourceTableReplacedException(tablePath, s"version $version of $tablePath belongs to table id ${m.id}, " +
        s"not ${streamMetadata.id} that the stream reads: the table was created again. Start the stream with a new " +
        "checkpoint location")
    }
    val partitioningChanged = m.partitionColumns.map(_.toLowerCase) != streamMetadata.partitionColumns.map(_.toLowerCase)
    val schemaChanged = SourceCommits.comparable(ColumnMapping.logicalSchema(m.schema)) != streamSchema
    // Rows written under an older schema are read with the stream's when every column they have
    // is still there with its type (columns added since read as null; with column mapping a
    // renamed or dropped column is found by its physical name).
    val readable = version <= schemaVersion && !partitioningChanged &&
      SourceCommits.readableAs(SourceCommits.physical(m.schema), streamPhysical)
    if ((schemaChanged || partitioningChanged) && !readable) {
      val what = if (partitioningChanged) s"partitioning to (${m.partitionColumns.mkString(", ")})"
        else s"schema to ${ColumnMapping.logicalSchema(m.schema).simpleString}"
      val restart = if (version > schemaVersion) "Restart the query: it will read the table with its new schema " +
        s"from version $version on"
        else s"Start a new stream (new checkpoint location) with startingVersion ${version + 1} or later"
      throw new SourceSchemaChangedException(tablePath, version, s"version $version of $tablePath changes the " +
        s"$what; the stream reads ${ColumnMapping.logicalSchema(streamMetadata.schema).simpleString}. $restart")
    }
  }
}

object SourceCommits {
  /** A schema without field metadata (comments, mapping), for comparing what readers see. */
  private def comparable(dt: DataType): DataType = dt match {
    case s: StructType => StructType(s.fields.map(f => StructField(f.name, comparable(f.dataType), f.nullable)))
    case a: ArrayType => a.copy(elementType = comparable(a.elementType))
    case m: MapType => m.copy(keyType = comparable(m.keyType), valueType = comparable(m.valueType))
    case other => other
  }

  /** The schema as the data files hold it: physical names, no metadata. */
  private[read] def physical(dt: DataType): DataType = dt match {
    case s: StructType => StructType(s.fields.map(f =>
      StructField(ColumnMapping.physicalName(f).toLowerCase, physical(f.dataType), f.nullable)))
    case a: ArrayType => a.copy(elementType = physical(a.elementType))
    case m: MapType => m.copy(keyType = physical(m.keyType), valueType = physical(m.valueType))
    case other => other
  }

  /** Whether data written as `written` reads right as `now`: every field still there has a type that reads it. */
  private[read] def readableAs(written: DataType, now: DataType): Boolean = (written, now) match {
    case (w: StructType, n: StructType) =>
      w.fields.forall(f => n.fields.find(_.name == f.name).forall(g => readableAs(f.dataType, g.dataType)))
    case (w: ArrayType, n: ArrayType) => readableAs(w.elementType, n.elementType)
    case (w: MapType, n: MapType) => readableAs(w.keyType, n.keyType) && readableAs(w.valueType, n.valueType)
    case (w, n) => w == n
  }
}
