package io.silt.tables

import scala.jdk.CollectionConverters._

import io.silt.config.TableFileSystem
import io.silt.errors.{SiltException, UnsupportedOptionException}
import io.silt.spark.{SlottedStatement, SqlText}
import org.apache.spark.sql.{Column, DataFrame, SparkSession, functions}
import org.apache.spark.sql.types.StructType

/**
 * A Silt table for JVM jobs, with delta-spark's `io.delta.tables.DeltaTable` methods and builders,
 * so that a Scala or Java job moves to Silt by changing its imports. Every method runs Silt's
 * statements; expressions given as Columns are planned as they are ([[SlottedStatement]]).
 */
class DeltaTable private[tables] (private[tables] val spark: SparkSession, private[tables] val ref: TableName,
    private[tables] val aliasName: Option[String]) extends Serializable {

  /** The table under an alias, which a merge condition or an update names it by. */
  def as(alias: String): DeltaTable = new DeltaTable(spark, ref, Some(alias))

  /** The table under an alias (the same as `as`). */
  def alias(alias: String): DeltaTable = as(alias)

  /** The table's current rows (under its alias, if it has one). */
  def toDF: DataFrame = {
    val df = ref.path match {
      case Some(p) => spark.read.format("silt").options(ref.fileSystemOptions).load(p)
      case None => spark.table(ref.sql)
    }
    aliasName.fold(df)(df.as(_))
  }

  // ------------------------------------------------------------------ changing rows

  /** Deletes every row. */
  def delete(): Unit = executeDelete(None)

  /** Deletes the rows matching `condition` (SQL). */
  def delete(condition: String): Unit = delete(functions.expr(condition))

  /** Deletes the rows matching `condition`. */
  def delete(condition: Column): Unit = executeDelete(Some(condition))

  /** Sets columns (`set`: column name to value) in every row. */
  def update(set: Map[String, Column]): Unit = executeUpdate(set, None)

  /** Sets columns (`set`: column name to value) in every row (Java). */
  def update(set: java.util.Map[String, Column]): Unit = executeUpdate(set.asScala.toMap, None)

  /** Sets columns where `condition` holds. */
  def update(condition: Column, set: Map[String, Column]): Unit = executeUpdate(set, Some(condition))

  /** Sets columns where `condition` holds (Java). */
  def update(condition: Column, set: java.util.Map[String, Column]): Unit =
    executeUpdate(set.asScala.toMap, Some(condition))

  /** Sets columns to SQL expressions in every row. */
  def updateExpr(set: Map[String, String]): Unit = executeUpdate(DeltaTable.expressions(set), None)

  /** Sets columns to SQL expressions in every row (Java). */
  def updateExpr(set: java.util.Map[String, String]): Unit = updateExpr(set.asScala.toMap)

  /** Sets columns to SQL expressions where the SQL `condition` holds. */
  def updateExpr(condition: String, set: Map[String, String]): Unit =
    executeUpdate(DeltaTable.expressions(set), Some(functions.expr(condition)))

  /** Sets columns to SQL expressions where the SQL `condition` holds (Java). */
  def updateExpr(condition: String, set: java.util.Map[String, String]): Unit = updateExpr(condition, set.asScala.toMap)

  /** Starts a MERGE of `source` into the table on the SQL `condition`. */
  def merge(source: DataFrame, condition: String): DeltaMergeBuilder = merge(source, functions.expr(condition))

  /** Starts a MERGE of `source` into the table on `condition`; sides are named by their aliases. */
  def merge(source: DataFrame, condition: Column): DeltaMergeBuilder = new DeltaMergeBuilder(this, source, condition)

  /** DELETE, returning its metrics row (`num_affected_rows`, …). */
  def executeDelete(condition: Option[Column]): DataFrame = {
    val statement = new SlottedStatement(spark)
    val sql = s"DELETE FROM $dmlTarget" + condition.fold("")(c => s" WHERE ${statement.slot(c)}")
    ref.inScope(spark)(statement.run(sql))
  }

  /** UPDATE, returning its metrics row (`num_affected_rows`) (Java's map). */
  def executeUpdate(set: java.util.Map[String, Column], condition: Option[Column]): DataFrame =
    executeUpdate(set.asScala.toMap, condition)

  /** UPDATE, returning its metrics row (`num_affected_rows`). */
  def executeUpdate(set: Map[String, Column], condition: Option[Column]): DataFrame = {
    if (set.isEmpty) throw new UnsupportedOptionException("set", "update needs at least one column to set")
    val statement = new SlottedStatement(spark)
    val assignments = set.map { case (k, v) => s"${SqlText.column(k)} = ${statement.slot(v)}" }.mkString(", ")
    val sql = s"UPDATE $dmlTarget SET $assignments" + condition.fold("")(c => s" WHERE ${statement.slot(c)}")
    ref.inScope(spark)(statement.run(sql))
  }

  /** The target of DELETE, UPDATE and MERGE in SQL, with its alias. */
  private[tables] def dmlTarget: String = ref.dmlSql + aliasName.fold("")(a => s" AS ${SqlText.identifier(a)}")

  // ------------------------------------------------------------------ maintenance and history

  /** Deletes files the table no longer needs and older than the default retention (7 days). */
  def vacuum(): DataFrame = { sql(s"VACUUM ${ref.statementSql}"); spark.emptyDataFrame }

  /** Deletes files the table no longer needs and older than `retentionHours`; an empty DataFrame, as Delta's. */
  def vacuum(retentionHours: Double): DataFrame = {
    sql(s"VACUUM ${ref.statementSql} RETAIN $retentionHours HOURS")
    spark.emptyDataFrame
  }

  /** The commits, newest first. */
  def history(): DataFrame = sql(s"DESCRIBE HISTORY ${ref.statementSql}")

  /** The latest `limit` commits, newest first. */
  def history(limit: Int): DataFrame = sql(s"DESCRIBE HISTORY ${ref.statementSql} LIMIT $limit")

  /** One row describing the table. */
  def detail(): DataFrame = sql(s"DESCRIBE DETAIL ${ref.statementSql}")

  /** Writes the manifests of `mode` (`symlink_format_manifest`). */
  def generate(mode: String): Unit = sql(s"GENERATE ${SqlText.identifier(mode)} FOR TABLE ${ref.statementSql}").collect()

  /** Starts an OPTIMIZE. */
  def optimize(): DeltaOptimizeBuilder = new DeltaOptimizeBuilder(this)

  /** Makes the table's content that of an earlier version; returns the metrics row. */
  def restoreToVersion(version: Long): DataFrame = sql(s"RESTORE TABLE ${ref.statementSql} TO VERSION AS OF $version")

  /** Makes the table's content that of the version current at `timestamp`; returns the metrics row. */
  def restoreToTimestamp(timestamp: String): DataFrame =
    sql(s"RESTORE TABLE ${ref.statementSql} TO TIMESTAMP AS OF ${SqlText.string(timestamp)}")

  /** Raises the protocol to at least these versions (never lowers it). */
  def upgradeTableProtocol(readerVersion: Int, writerVersion: Int): Unit =
    setProperties(Map("delta.minReaderVersion" -> readerVersion.toString, "delta.minWriterVersion" -> writerVersion.toString))

  /** Adds a table feature to the protocol. */
  def addFeatureSupport(featureName: String): Unit = setProperties(Map(s"delta.feature.$featureName" -> "supported"))

  /** Drops a table feature from the protocol (`ALTER TABLE … DROP FEATURE`). */
  def dropFeatureSupport(featureName: String): Unit = dropFeatureSupport(featureName, truncateHistory = false)

  /** Drops a table feature, `truncateHistory`: the two-step drop that deletes the history holding it. */
  def dropFeatureSupport(featureName: String, truncateHistory: Boolean): Unit =
    sql(s"ALTER TABLE ${ref.statementSql} DROP FEATURE ${SqlText.identifier(featureName)}" +
      (if (truncateHistory) " TRUNCATE HISTORY" else "")).collect()

  private def setProperties(properties: Map[String, String]): Unit = {
    val pairs = properties.map { case (k, v) => s"${SqlText.string(k)} = ${SqlText.string(v)}" }.mkString(", ")
    sql(s"ALTER TABLE ${ref.dmlSql} SET TBLPROPERTIES ($pairs)").collect()
  }

  // ------------------------------------------------------------------ clones

  /** A shallow clone of the latest version at `target` (a path or a table name). */
  def clone(target: String, isShallow: Boolean): DeltaTable = clone(target, isShallow, replace = false)

  def clone(target: String, isShallow: Boolean, replace: Boolean): DeltaTable =
    clone(target, isShallow, replace, Map.empty[String, String])

  def clone(target: String, isShallow: Boolean, replace: Boolean, properties: java.util.HashMap[String, String]): DeltaTable =
    clone(target, isShallow, replace, properties.asScala.toMap)

  def clone(target: String, isShallow: Boolean, replace: Boolean, properties: Map[String, String]): DeltaTable =
    executeClone(target, isShallow, replace, properties, "")

  /** A shallow clone of `version` at `target`. */
  def cloneAtVersion(version: Long, target: String, isShallow: Boolean): DeltaTable =
    cloneAtVersion(version, target, isShallow, replace = false)

  def cloneAtVersion(version: Long, target: String, isShallow: Boolean, replace: Boolean): DeltaTable =
    cloneAtVersion(version, target, isShallow, replace, Map.empty[String, String])

  def cloneAtVersion(version: Long, target: String, isShallow: Boolean, replace: Boolean,
      properties: java.util.HashMap[String, String]): DeltaTable =
    cloneAtVersion(version, target, isShallow, replace, properties.asScala.toMap)

  def cloneAtVersion(version: Long, target: String, isShallow: Boolean, replace: Boolean,
      properties: Map[String, String]): DeltaTable =
    executeClone(target, isShallow, replace, properties, s" VERSION AS OF $version")

  /** A shallow clone of the version current at `timestamp` at `target`. */
  def cloneAtTimestamp(timestamp: String, target: String, isShallow: Boolean): DeltaTable =
    cloneAtTimestamp(timestamp, target, isShallow, replace = false)

  def cloneAtTimestamp(timestamp: String, target: String, isShallow: Boolean, replace: Boolean): DeltaTable =
    cloneAtTimestamp(timestamp, target, isShallow, replace, Map.empty[String, String])

  def cloneAtTimestamp(timestamp: String, target: String, isShallow: Boolean, replace: Boolean,
      properties: java.util.HashMap[String, String]): DeltaTable =
    cloneAtTimestamp(timestamp, target, isShallow, replace, properties.asScala.toMap)

  def cloneAtTimestamp(timestamp: String, target: String, isShallow: Boolean, replace: Boolean,
      properties: Map[String, String]): DeltaTable =
    executeClone(target, isShallow, replace, properties, s" TIMESTAMP AS OF ${SqlText.string(timestamp)}")

  private def executeClone(target: String, isShallow: Boolean, replace: Boolean, properties: Map[String, String],
      at: String): DeltaTable = {
    if (!isShallow) throw new UnsupportedOptionException("isShallow", "DEEP CLONE: Silt makes shallow clones only " +
      "(isShallow = true), which copy no data; copy the rows with CREATE TABLE … AS SELECT instead")
    val into = TableName.parse(target)
    val props = if (properties.isEmpty) "" else properties.map { case (k, v) =>
      s"${SqlText.string(k)} = ${SqlText.string(v)}" }.mkString(" TBLPROPERTIES (", ", ", ")")
    sql((if (replace) "CREATE OR REPLACE TABLE " else "CREATE TABLE ") +
      s"${into.statementSql} SHALLOW CLONE ${ref.statementSql}$at$props").collect()
    new DeltaTable(spark, into, None)
  }

  /** Runs one of Silt's statements on this table (commands run as they are planned, so within its settings). */
  private[tables] def sql(text: String): DataFrame = ref.inScope(spark)(spark.sql(text))
}

/** Opening, converting and creating tables, as delta-spark's `DeltaTable` object. */
object DeltaTable {

  /** The table at `path` in the active session; NotADeltaTableException if there is none. */
  def forPath(path: String): DeltaTable = forPath(active, path)

  /** The table at `path`; NotADeltaTableException if there is none. */
  def forPath(sparkSession: SparkSession, path: String): DeltaTable = opened(sparkSession, TableName.Path(path))

  /**
   * The table at `path` with Hadoop file-system settings of its own (keys `fs.*` and `dfs.*`, such as
   * a storage account's credentials), applied to this table's log and files in every operation.
   */
  def forPath(sparkSession: SparkSession, path: String, hadoopConf: scala.collection.Map[String, String]): DeltaTable =
    opened(sparkSession, TableName.Path(path, TableFileSystem.checkedHadoopConf(hadoopConf.toMap)))

  def forPath(sparkSession: SparkSession, path: String, hadoopConf: java.util.Map[String, String]): DeltaTable =
    forPath(sparkSession, path, hadoopConf.asScala)

  /** The catalog table `tableOrViewName` in the active session. */
  def forName(tableOrViewName: String): DeltaTable = forName(active, tableOrViewName)

  /** The catalog table `tableOrViewName`. */
  def forName(sparkSession: SparkSession, tableOrViewName: String): DeltaTable =
    opened(sparkSession, TableName.named(tableOrViewName))

  /**
   * A handle on a table its caller has checked exists already (Silt's Python API): by `path`, or by
   * `name` when `path` is null.
   */
  def unchecked(sparkSession: SparkSession, path: String, name: String): DeltaTable =
    unchecked(sparkSession, path, name, java.util.Collections.emptyMap[String, String]())

  /** The same, for a path table with Hadoop file-system settings of its own (as `forPath` takes them). */
  def unchecked(sparkSession: SparkSession, path: String, name: String, hadoopConf: java.util.Map[String, String]): DeltaTable =
    new DeltaTable(sparkSession, Option(path).map(TableName.Path(_, hadoopConf.asScala.toMap))
      .getOrElse(TableName.named(name)), None)

  /** Whether `identifier` (a path) holds a table Silt can read, in the active session. */
  def isDeltaTable(identifier: String): Boolean = isDeltaTable(active, identifier)

  /** Whether `identifier` (a path) holds a table Silt can read. */
  def isDeltaTable(sparkSession: SparkSession, identifier: String): Boolean =
    try { forPath(sparkSession, identifier); true } catch { case _: SiltException => false }

  /** Makes the Parquet table `identifier` (``parquet.`/path` `` or a catalog name) a table in place. */
  def convertToDelta(spark: SparkSession, identifier: String): DeltaTable = convert(spark, identifier, "")

  /** The same, for a table partitioned by `partitionSchema` (`"day INT, city STRING"`). */
  def convertToDelta(spark: SparkSession, identifier: String, partitionSchema: String): DeltaTable =
    convert(spark, identifier, s" PARTITIONED BY ($partitionSchema)")

  def convertToDelta(spark: SparkSession, identifier: String, partitionSchema: StructType): DeltaTable =
    convertToDelta(spark, identifier, partitionSchema.toDDL)

  private def convert(spark: SparkSession, identifier: String, partitioning: String): DeltaTable = {
    spark.sql(s"CONVERT TO DELTA $identifier$partitioning").collect()
    val parquetPath = """(?i)parquet\.`(.*)`""".r
    identifier match {
      case parquetPath(p) => forPath(spark, p.replace("``", "`"))
      case name => forName(spark, name)
    }
  }

  /** A builder of `CREATE TABLE` (fails if the table exists). */
  def create(): DeltaTableBuilder = create(active)
  def create(spark: SparkSession): DeltaTableBuilder = new DeltaTableBuilder(spark, "CREATE TABLE")

  /** A builder of `CREATE TABLE IF NOT EXISTS`. */
  def createIfNotExists(): DeltaTableBuilder = createIfNotExists(active)
  def createIfNotExists(spark: SparkSession): DeltaTableBuilder = new DeltaTableBuilder(spark, "CREATE TABLE IF NOT EXISTS")

  /** A builder of `REPLACE TABLE` (fails if the table does not exist). */
  def replace(): DeltaTableBuilder = replace(active)
  def replace(spark: SparkSession): DeltaTableBuilder = new DeltaTableBuilder(spark, "REPLACE TABLE")

  /** A builder of `CREATE OR REPLACE TABLE`. */
  def createOrReplace(): DeltaTableBuilder = createOrReplace(active)
  def createOrReplace(spark: SparkSession): DeltaTableBuilder = new DeltaTableBuilder(spark, "CREATE OR REPLACE TABLE")

  /** A builder of one column, for `DeltaTableBuilder.addColumn`. */
  def columnBuilder(colName: String): DeltaColumnBuilder = columnBuilder(active, colName)
  def columnBuilder(spark: SparkSession, colName: String): DeltaColumnBuilder = new DeltaColumnBuilder(spark, colName)

  private def opened(spark: SparkSession, ref: TableName): DeltaTable = {
    ref.inScope(spark)(spark.sql(s"DESCRIBE DETAIL ${ref.statementSql}").collect())
    new DeltaTable(spark, ref, None)
  }

  private[tables] def expressions(set: Map[String, String]): Map[String, Column] =
    set.map { case (k, v) => k -> functions.expr(v) }

  private def active: SparkSession = SparkSession.getActiveSession.getOrElse(
    throw new IllegalStateException("no active SparkSession: pass one, or create it first"))
}
