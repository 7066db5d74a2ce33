package io.silt.txn

import io.silt.actions.Json
import io.silt.config.StatementKind
/** What OPTIMIZE does to the files it selects. */
sealed trait OptimizeMode
object OptimizeMode {
  /** Bin-packs small files (and files with many deleted rows). */
  case object Compaction extends OptimizeMode
  /** Rewrites every selected file along a Z-order curve of `columns`. */
  final case class ZOrder(columns: Seq[String]) extends OptimizeMode
  /** REORG … APPLY (PURGE): rewrites the files with deletion vectors without their deleted rows. */
  case object Purge extends OptimizeMode
  /** The files holding narrower types than the schema (type widening) rewritten in its types, to drop the feature. */
  case object RewriteTypeWidening extends OptimizeMode
  /** OPTIMIZE … FULL: reclusters every file of a clustered table, clustered already or not. */
  case object Full extends OptimizeMode
  /**
   * REORG … APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = n)), its rewrite: the files not written under
   * icebergCompat version `version` (or with deletion vectors), rewritten under it.
   */
  final case class UpgradeUniform(version: Int) extends OptimizeMode
}

/** Which statement creates or replaces a table. */
sealed abstract class CreateMode(val statement: String) extends Serializable
object CreateMode {
  case object Create extends CreateMode("CREATE TABLE")
  case object Replace extends CreateMode("REPLACE TABLE")
  case object CreateOrReplace extends CreateMode("CREATE OR REPLACE TABLE")
}

/**
 * What a commit did, as its commitInfo records it and DESCRIBE HISTORY shows it: one case per
 * kind of operation, each with its own parameters; `metrics` are the operation's counters.
 */
sealed trait Operation {
  /** The commitInfo's `operation`, as Delta names it. */
  def name: String
  /** The commitInfo's `operationParameters` (lists and maps as JSON text, as Delta writes them). */
  def parameters: Map[String, String]
  def metrics: Map[String, Long]
  def userMetadata: Option[String] = None
}

object Operation {
  /**
   * An append or overwrite (`replaceWhere`: `predicate`; or of the partitions written, when dynamic).
   * `partitionBy`: the writer's own (`partitionBy(...)`; none when it gave none), as Delta records it.
   */
  final case class Write(mode: String, partitionBy: Seq[String], predicate: Option[String], dynamicPartitionOverwrite: Boolean,
      metrics: Map[String, Long], override val userMetadata: Option[String]) extends Operation {
    def name: String = "WRITE"
    def parameters: Map[String, String] =
      Map("mode" -> mode, "partitionBy" -> Json.array(partitionBy)) ++ predicate.map("predicate" -> _) ++
        (if (dynamicPartitionOverwrite) Map("isDynamicPartitionOverwrite" -> "true") else Map.empty)
  }

  /**
   * An overwrite that replaced only the rows matching its data (write options replaceUsing /
   * replaceOn), as Delta records it: a WRITE with the columns or the condition.
   */
  final case class ReplaceMatchingWrite(partitionBy: Seq[String], replaceUsing: Option[Seq[String]],
      replaceOn: Option[String], metrics: Map[String, Long], override val userMetadata: Option[String]) extends Operation {
    def name: String = "WRITE"
    def parameters: Map[String, String] = Map("mode" -> "Overwrite", "partitionBy" -> Json.array(partitionBy)) ++
      replaceUsing.map(c => "replaceUsingCols" -> c.mkString("(", ", ", ")")) ++ replaceOn.map("replaceOnCond" -> _)
  }

  /** One micro-batch of a streaming write, as Delta records it: the output mode, the query's id and the batch id. */
  final case class StreamingUpdate(outputMode: String, queryId: String, epochId: Long, metrics: Map[String, Long],
      override val userMetadata: Option[String]) extends Operation {
    def name: String = "STREAMING UPDATE"
    def parameters: Map[String, String] = Map("outputMode" -> outputMode, "queryId" -> queryId, "epochId" -> epochId.toString)
  }

  /** CREATE / REPLACE / CREATE OR REPLACE TABLE, `asSelect` with a query's rows. */
  final case class CreateOrReplace(mode: CreateMode, asSelect: Boolean, partitionBy: Seq[String], clusterBy: Option[Seq[String]],
      properties: Map[String, String], description: Option[String], metrics: Map[String, Long],
      override val userMetadata: Option[String]) extends Operation {
    def name: String = mode.statement + (if (asSelect) " AS SELECT" else "")
    def parameters: Map[String, String] = Map("partitionBy" -> Json.array(partitionBy),
      "properties" -> Json.obj(properties)) ++ description.map("description" -> _) ++
      clusterBy.map(c => "clusterBy" -> Json.array(c))
  }

  /** ALTER TABLE … CLUSTER BY (…) / CLUSTER BY NONE. */
  final case class ClusterBy(oldColumns: Seq[String], newColumns: Seq[String]) extends Operation {
    def name: String = "CLUSTER BY"
    def parameters: Map[String, String] =
      Map("oldClusteringColumns" -> oldColumns.mkString(","), "newClusteringColumns" -> newColumns.mkString(","))
    def metrics: Map[String, Long] = Map.empty
  }

  /** `name`: SET TBLPROPERTIES, or the statement that set them (REORG TABLE UPGRADE UNIFORM, as Delta Lake names it). */
  final case class SetProperties(properties: Map[String, String], name: String = "SET TBLPROPERTIES") extends Operation {
    def parameters: Map[String, String] = Map("properties" -> Json.obj(properties))
    def metrics: Map[String, Long] = Map.empty
  }

  final case class UnsetProperties(keys: Seq[String]) extends Operation {
    def name: String = "UNSET TBLPROPERTIES"
    def parameters: Map[String, String] = Map("properties" -> Json.array(keys))
    def metrics: Map[String, Long] = Map.empty
  }

  /** ALTER TABLE … ADD COLUMNS; each column a JSON object (`column`: the field, `position`), as Delta records them. */
  final case class AddColumns(columns: Seq[String]) extends Operation {
    def name: String = "ADD COLUMNS"
    def parameters: Map[String, String] = Map("columns" -> columns.mkString("[", ",", "]"))
    def metrics: Map[String, Long] = Map.empty
  }

  /** ALTER TABLE … ALTER COLUMN: the column as it is now (JSON) and, when it moved, its position. */
  final case class ChangeColumn(column: String, position: Option[String]) extends Operation {
    def name: String = "CHANGE COLUMN"
    def parameters: Map[String, String] = Map("column" -> column) ++ position.map("position" -> _)
    def metrics: Map[String, Long] = Map.empty
  }

  /** ALTER TABLE … RENAME COLUMN (column mapping): the column's path before and after. */
  final case class RenameColumn(oldPath: String, newPath: String) extends Operation {
    def name: String = "RENAME COLUMN"
    def parameters: Map[String, String] = Map("oldColumnPath" -> oldPath, "newColumnPath" -> newPath)
    def metrics: Map[String, Long] = Map.empty
  }

  /** ALTER TABLE … DROP COLUMN(S) (column mapping): the dropped paths, as a JSON array. */
  final case class DropColumns(columns: Seq[String]) extends Operation {
    def name: String = "DROP COLUMNS"
    def parameters: Map[String, String] = Map("columns" -> Json.array(columns))
    def metrics: Map[String, Long] = Map.empty
  }

  /** ALTER TABLE … REPLACE COLUMNS: the new columns, each as a JSON object. */
  final case class ReplaceColumns(columns: Seq[String]) extends Operation {
    def name: String = "REPLACE COLUMNS"
    def parameters: Map[String, String] = Map("columns" -> columns.mkString("[", ",", "]"))
    def metrics: Map[String, Long] = Map.empty
  }

  final case class AddConstraint(constraint: String, expr: String) extends Operation {
    def name: String = "ADD CONSTRAINT"
    def parameters: Map[String, String] = Map("name" -> constraint, "expr" -> expr)
    def metrics: Map[String, Long] = Map.empty
  }

  final case class DropConstraint(constraint: String, expr: Option[String]) extends Operation {
    def name: String = "DROP CONSTRAINT"
    def parameters: Map[String, String] = Map("name" -> constraint, "existed" -> expr.isDefined.toString) ++ expr.map("expr" -> _)
    def metrics: Map[String, Long] = Map.empty
  }

  final case class Truncate(metrics: Map[String, Long]) extends Operation {
    def name: String = "TRUNCATE"
    def parameters: Map[String, String] = Map.empty
  }

  /** DELETE; `predicate`: the condition's SQL, none for all rows. */
  final case class Delete(predicate: Option[String], metrics: Map[String, Long]) extends Operation {
    def name: String = "DELETE"
    def parameters: Map[String, String] = Map("predicate" -> Json.array(predicate.toSeq))
  }

  final case class Update(predicate: Option[String], metrics: Map[String, Long]) extends Operation {
    def name: String = "UPDATE"
    def parameters: Map[String, String] = Map("predicate" -> Json.array(predicate.toSeq))
  }

  /** One WHEN clause of a MERGE: its action (update, delete, insert) and condition. */
  final case class MergeClause(actionType: String, predicate: Option[String]) {
    def json: String = Json.obj("actionType" -> Some(actionType), "predicate" -> predicate)
  }

  final case class Merge(predicate: String, matched: Seq[MergeClause], notMatched: Seq[MergeClause],
      notMatchedBySource: Seq[MergeClause], metrics: Map[String, Long]) extends Operation {
    def name: String = "MERGE"
    def parameters: Map[String, String] = Map("predicate" -> Json.array(Seq(predicate)),
      "matchedPredicates" -> Json.array(matched.map(_.json)),
      "notMatchedPredicates" -> Json.array(notMatched.map(_.json)),
      "notMatchedBySourcePredicates" -> Json.array(notMatchedBySource.map(_.json)))
  }

  /** OPTIMIZE (compaction or ZORDER BY) or REORG PURGE of the partitions `predicate` selects. */
  /** `clusterBy`: the clustering columns of a clustered table that the OPTIMIZE clustered by. */
  final case class Optimize(predicate: Option[String], mode: OptimizeMode, metrics: Map[String, Long],
      clusterBy: Option[Seq[String]] = None, auto: Boolean = false) extends Operation {
    def name: String = mode match {
      case OptimizeMode.Purge | OptimizeMode.RewriteTypeWidening | _: OptimizeMode.UpgradeUniform => "REORG"
      case _ => "OPTIMIZE"
    }
    def parameters: Map[String, String] = Map("predicate" -> Json.array(predicate.toSeq)) ++ (mode match {
      case OptimizeMode.Purge | _: OptimizeMode.UpgradeUniform => Map("applyPurge" -> "true")
      case OptimizeMode.RewriteTypeWidening => Map("applyPurge" -> "false")
      case OptimizeMode.ZOrder(columns) => Map("zOrderBy" -> Json.array(columns))
      case OptimizeMode.Compaction | OptimizeMode.Full => Map("zOrderBy" -> Json.array(Nil))
    }) ++ (mode match {
      case OptimizeMode.Purge | OptimizeMode.RewriteTypeWidening | _: OptimizeMode.UpgradeUniform => Map.empty
      // Delta Lake records these for every OPTIMIZE (auto: run by auto compaction after a commit).
      case _ => Map("auto" -> auto.toString, "clusterBy" -> Json.array(clusterBy.getOrElse(Nil)))
    }) ++ clusterBy.map(_ => Map("isFull" -> (mode == OptimizeMode.Full).toString)).getOrElse(Map.empty)
  }

  /** ALTER TABLE … DROP FEATURE: the commit that takes the feature out of the protocol. */
  final case class DropFeature(featureName: String, truncateHistory: Boolean) extends Operation {
    def name: String = "DROP FEATURE"
    def parameters: Map[String, String] =
      Map("featureName" -> featureName, "truncateHistory" -> truncateHistory.toString)
    def metrics: Map[String, Long] = Map.empty
  }

  /** DROP FEATURE rowTracking's step: every file recommitted without row ids (Delta's name; one batch). */
  final case class RowTrackingUnbackfill(batchId: Int) extends Operation {
    def name: String = "ROW TRACKING UNBACKFILL"
    def parameters: Map[String, String] = Map("batchId" -> batchId.toString)
    def metrics: Map[String, Long] = Map.empty
  }

  /** A commit of nothing but its commitInfo: DROP FEATURE … TRUNCATE HISTORY checkpoints it, to cut the history there. */
  case object EmptyCommit extends Operation {
    def name: String = "Empty Commit"
    def parameters: Map[String, String] = Map.empty
    def metrics: Map[String, Long] = Map.empty
  }

  /** DROP FEATURE columnMapping's rewrite: every file under the logical names, the mapping metadata gone. */
  final case class RemoveColumnMapping(metrics: Map[String, Long]) extends Operation {
    def name: String = "REMOVE COLUMN MAPPING"
    def parameters: Map[String, String] = Map.empty
  }

  final case class Restore(version: Long, timestamp: Option[String], metrics: Map[String, Long]) extends Operation {
    def name: String = "RESTORE"
    // Delta Lake records both, the one not given as null.
    def parameters: Map[String, String] = Map("version" -> version.toString, "timestamp" -> timestamp.orNull)
  }

  /** CONVERT TO DELTA: the files added, the partition columns, whether statistics were read; the catalog table converted. */
  final case class Convert(numFiles: Long, partitionBy: Seq[String], collectStats: Boolean, catalogTable: Option[String],
      metrics: Map[String, Long]) extends Operation {
    def name: String = "CONVERT"
    def parameters: Map[String, String] = Map("numFiles" -> numFiles.toString, "partitionedBy" -> Json.array(partitionBy),
      "collectStats" -> collectStats.toString, "sourceFormat" -> "parquet") ++ catalogTable.map("catalogTable" -> _)
  }

  /** CREATE [OR REPLACE] TABLE … SHALLOW CLONE: the source (name or path) and the version cloned. */
  final case class Clone(source: String, sourceVersion: Long, metrics: Map[String, Long]) extends Operation {
    def name: String = "CLONE"
    def parameters: Map[String, String] = Map("source" -> source, "sourceVersion" -> sourceVersion.toString,
      "isShallow" -> "true")
  }

  /** GENERATE symlink_format_manifest: the manifests written for version `tableVersion` (a commit of commitInfo only). */
  final case class Generate(mode: String, tableVersion: Long, metrics: Map[String, Long]) extends Operation {
    def name: String = "GENERATE"
    def parameters: Map[String, String] = Map("mode" -> mode, "tableVersion" -> tableVersion.toString)
  }

  /** `vacuumType`: LITE (files from the log) or FULL (files from a listing). */
  final case class VacuumStart(retentionCheckEnabled: Boolean, defaultRetentionMillis: Long, specifiedRetentionMillis: Long,
      vacuumType: String, metrics: Map[String, Long]) extends Operation {
    def name: String = "VACUUM START"
    def parameters: Map[String, String] = Map("retentionCheckEnabled" -> retentionCheckEnabled.toString,
      "defaultRetentionMillis" -> defaultRetentionMillis.toString, "specifiedRetentionMillis" -> specifiedRetentionMillis.toString,
      "vacuumType" -> vacuumType)
  }

  final case class VacuumEnd(metrics: Map[String, Long]) extends Operation {
    def name: String = "VACUUM END"
    def parameters: Map[String, String] = Map("status" -> "COMPLETED")
  }

  /** The kinds of statement a commit of `op` is, whose session settings could change it (config.DeltaSessionKeys). */
  def kindsOf(op: Operation): Set[StatementKind] = ((op match {
    case _: Write | _: ReplaceMatchingWrite => Set(StatementKind.Write)
    case _: StreamingUpdate => Set(StatementKind.Stream, StatementKind.Write)
    case c: CreateOrReplace => Set(StatementKind.Ddl) ++ (if (c.asSelect) Set(StatementKind.Write) else Set.empty)
    case _: Truncate | _: Delete => Set(StatementKind.Delete)
    case _: Update => Set(StatementKind.Update)
    case _: Merge => Set(StatementKind.Merge)
    case _: Optimize | _: RowTrackingUnbackfill | _: RemoveColumnMapping => Set(StatementKind.Optimize)
    case _: Restore => Set(StatementKind.Restore)
    case _: Convert => Set(StatementKind.Convert)
    case _: Clone => Set(StatementKind.Clone)
    case _: VacuumStart | _: VacuumEnd => Set(StatementKind.Vacuum)
    case _: ClusterBy | _: SetProperties | _: UnsetProperties | _: AddColumns | _: ChangeColumn | _: RenameColumn |
         _: DropColumns | _: ReplaceColumns | _: AddConstraint | _: DropConstraint | _: DropFeature | EmptyCommit |
         _: Generate => Set(StatementKind.Ddl)
  }): Set[StatementKind]) + StatementKind.Commit
}
