package io.silt.dml

import java.util.UUID

import io.silt.config.SiltSettings
import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException, UnsupportedOptionException}
import io.silt.features.ColumnMapping
import io.silt.log.TableLog
import io.silt.spark.{SlottedStatement, SqlText}
import io.silt.txn.Operation
import io.silt.write.{ReplaceMatching, TableWriter, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias
import org.apache.spark.sql.functions.{assert_true, coalesce, col, expr, lit}
import org.apache.spark.sql.silt.SparkInternals

/**
 * Overwrites that replace some rows of a table, in one commit: the table's rows that match are
 * deleted and every row of the data is added. Delta Lake's dynamic data overwrite (write options
 * `replaceUsing` / `replaceOn`: rows matching a row of the data) and `replaceWhere` on data
 * columns (rows matching a predicate; on partition columns alone, `TableWriter` drops whole files).
 *
 * It runs as a MERGE, so that it has MERGE's deletion vectors or copy-on-write, change data feed,
 * row tracking, constraints and conflict checks. The source holds the data, flagged false, which
 * matches nothing and so is all inserted, and rows flagged true that match the table's rows to
 * delete (a target row several of them match is deleted once): the data again for
 * replaceUsing/replaceOn, a single row for replaceWhere, whose predicate names the table's columns
 * alone. The commit is recorded as Delta records the write: a WRITE with the columns, the
 * condition or the predicate.
 */
object ReplaceMatchingRows {
  /** What the MERGE records instead of itself. */
  final case class Recorded(partitionBy: Seq[String], spec: ReplaceMatching, userMetadata: Option[String]) {
    /** The WRITE, with Delta's metrics of it from the MERGE's (`numTarget…`). */
    def operation(merge: Map[String, Long]): Operation = {
      def m(name: String) = merge.getOrElse(name, 0L)
      val metrics = Map(
        "numFiles" -> m("numTargetFilesAdded"),
        "numOutputRows" -> (m("numTargetRowsInserted") + m("numTargetRowsCopied")),
        "numOutputBytes" -> m("numTargetBytesAdded"),
        "numRemovedFiles" -> m("numTargetFilesRemoved"),
        "numRemovedBytes" -> m("numTargetBytesRemoved"),
        "numCopiedRows" -> m("numTargetRowsCopied"),
        "numDeletedRows" -> m("numTargetRowsDeleted"),
        "numAddedChangeFiles" -> m("numTargetChangeFilesAdded"))
      spec match {
        case ReplaceMatching.Using(columns) => Operation.ReplaceMatchingWrite(partitionBy, Some(columns), None, metrics, userMetadata)
        case ReplaceMatching.On(condition, _) => Operation.ReplaceMatchingWrite(partitionBy, None, Some(condition), metrics, userMetadata)
        case ReplaceMatching.Where(predicate) =>
          Operation.Write("Overwrite", partitionBy, Some(predicate), dynamicPartitionOverwrite = false, metrics, userMetadata)
      }
    }
  }

  /** Replaces the rows of the table at `tablePath` that match a row of `data` by `data`'s rows. */
  def run(spark: SparkSession, tablePath: Path, data: DataFrame, opts: WriteOptions): Unit = {
    val spec = opts.replaceMatching.getOrElse(throw new IllegalArgumentException("not a dynamic data overwrite"))
    val log = TableLog.forPath(spark, tablePath.toString)
    if (!log.exists) throw ReplaceMatching.notHere(tablePath.toString)
    val metadata = log.latest().metadata
    val resolver = spark.sessionState.conf.resolver
    refuseUnsupported(spec, opts, metadata.partitionColumns, resolver)
    val tableColumns = ColumnMapping.logicalSchema(metadata.schema).fieldNames.toSeq
    def inTable(c: String) = tableColumns.exists(resolver(_, c))
    // The MERGE's INSERT would drop a column the table lacks without a word: refused, as a write refuses it.
    data.columns.filterNot(inTable).toSeq match {
      case Seq() =>
      case extra => throw new SchemaMismatchException(s"the data has column(s) ${extra.mkString(", ")} that " +
        s"$tablePath lacks; a write that replaces some rows cannot add columns (add them with ALTER TABLE)")
    }
    val nonce = UUID.randomUUID().toString.replace("-", "")
    val flagName = s"__silt_replace_$nonce"
    val flag = SqlText.identifier(flagName)
    val dataAlias = data.queryExecution.analyzed match {
      case a: SubqueryAlias => a.alias
      case _ => s"__silt_data_$nonce"
    }
    val (source, target, condition, insert) = spec match {
      case ReplaceMatching.Using(columns) =>
        columns.find(c => !inTable(c) || !data.columns.exists(resolver(_, c))).foreach { c =>
          throw new InvalidTableOperationException(s"replaceUsing column '$c' must be a column of both $tablePath " +
            s"(${tableColumns.mkString(", ")}) and the data (${data.columns.mkString(", ")})")
        }
        val t = SqlText.identifier(s"__silt_table_$nonce")
        (twice(data, flagName), s" AS $t", columns.map { c =>
          s"$t.${SqlText.column(c)} = ${SqlText.identifier(dataAlias)}.${SqlText.column(c)}"
        }.mkString(" AND "), "INSERT *")
      case ReplaceMatching.On(text, alias) =>
        (twice(data, flagName), alias.fold("")(a => s" AS ${SqlText.identifier(a)}"), text, "INSERT *")
      case ReplaceMatching.Where(predicate) =>
        // The data's columns renamed, so that the predicate's names can only be the table's.
        val renamed = data.columns.indices.map(i => s"__silt_d${i}_$nonce")
        val checked = if (!SiltSettings.ReplaceWhereConstraintCheck(spark)) data else data.filter(assert_true(
          coalesce(expr(predicate), lit(false)), lit(s"replaceWhere: a written row does not satisfy '$predicate'")).isNull)
        val rows = checked.select(data.columns.indices.map(i => col(SqlText.identifier(data.columns(i))).as(renamed(i))) :+
          lit(false).as(flagName): _*)
        val matcher = spark.range(1).select(data.schema.fields.indices.map(i =>
          lit(null).cast(data.schema.fields(i).dataType).as(renamed(i))) :+ lit(true).as(flagName): _*)
        val a = SqlText.identifier(dataAlias)
        (rows.unionByName(matcher), "", predicate, data.columns.map(SqlText.identifier).mkString("INSERT (", ", ", ")") +
          renamed.map(r => s"$a.${SqlText.identifier(r)}").mkString(" VALUES (", ", ", ")"))
    }
    val statement = new SlottedStatement(spark)
    val sql = s"MERGE INTO silt.${SqlText.identifier(tablePath.toString)}$target " +
      s"USING ${statement.sourceOf(source)} AS ${SqlText.identifier(dataAlias)} ON ($condition) AND $flag " +
      s"WHEN MATCHED THEN DELETE WHEN NOT MATCHED AND NOT $flag THEN $insert"
    val analyzed = spark.sessionState.executePlan(statement.plan(sql)).analyzed
    val recorded = Recorded(opts.partitionBy.getOrElse(Nil), spec, opts.userMetadata)
    SparkInternals.dataFrame(spark, analyzed.transformDown {
      case m: MergeCommand => m.copy(recordedAs = Some(recorded))
    })
  }

  /**
   * Refuses, naming it, what else the write asks for that a MERGE would not do: a replaceWhere on
   * data columns arrives with whatever options the write had (replaceUsing / replaceOn refuse them
   * when parsed, [[ReplaceMatching.fromOptions]]); the writer's partitioning must be the table's.
   */
  private def refuseUnsupported(spec: ReplaceMatching, opts: WriteOptions, partitionColumns: Seq[String],
      resolver: (String, String) => Boolean): Unit = {
    val given = spec match {
      case _: ReplaceMatching.Using => "replaceUsing"
      case _: ReplaceMatching.On => "replaceOn"
      case _: ReplaceMatching.Where => "replaceWhere on data columns"
    }
    def refuse(option: String) = throw new UnsupportedOptionException(option, s"$option cannot be used with $given, " +
      "which replaces rows one by one; write without it")
    if (opts.overwriteSchema) refuse("overwriteSchema")
    if (opts.appTransaction.isDefined) refuse("txnAppId")
    if (!opts.dataChange) refuse("dataChange")
    opts.fileWriterOptions.keys.headOption.foreach(refuse)
    opts.properties.keys.headOption.foreach(refuse)
    if (opts.clusterBy.exists(_.nonEmpty)) refuse("clusterBy")
    opts.partitionBy.filter(p => p.nonEmpty && (p.size != partitionColumns.size ||
      !p.zip(partitionColumns).forall { case (a, b) => resolver(a, b) })).foreach { p =>
      throw new UnsupportedOptionException("partitionBy", s"partitionBy(${p.mkString(", ")}) differs from the " +
        s"table's partitioning (${partitionColumns.mkString(", ")}); $given keeps the table's")
    }
  }

  /** Writes `data` as `opts` say: through [[run]] when it replaces rows one by one ([[route]]), else by TableWriter. */
  def write(spark: SparkSession, tablePath: Path, data: DataFrame, opts: WriteOptions): Unit =
    route(spark, tablePath, opts) match {
      case Some(replacing) => run(spark, tablePath, data, replacing)
      case None => TableWriter.write(spark, tablePath, data, opts)
    }

  /** The data twice, its rows flagged true (to match) then false (to insert). */
  private def twice(data: DataFrame, flag: String): DataFrame =
    data.withColumn(flag, lit(true)).unionByName(data.withColumn(flag, lit(false)))

  /**
   * The same write as a replacement of matching rows, when it is one this object runs: replaceUsing
   * or replaceOn, or an overwrite by `replaceWhere` whose predicate names a data column of the
   * existing table at `tablePath` (one on partition columns alone drops whole files, in TableWriter).
   */
  def route(spark: SparkSession, tablePath: Path, opts: WriteOptions): Option[WriteOptions] =
    if (opts.replaceMatching.isDefined) Some(opts)
    else opts.replaceWhere.filter(_ => opts.overwrite && SiltSettings.ReplaceWhereDataColumns(spark)).flatMap { predicate =>
      TableLog.forPath(spark, tablePath.toString).latestOption().filter { snapshot =>
        val partitions = snapshot.metadata.partitionColumns
        val resolver = spark.sessionState.conf.resolver
        spark.sessionState.sqlParser.parseExpression(predicate).collect { case a: UnresolvedAttribute => a.nameParts }
          .exists(parts => !partitions.exists(p => resolver(parts.head, p)))
      }.map(_ => opts.copy(replaceWhere = None, replaceMatching = Some(ReplaceMatching.Where(predicate))))
    }
}
