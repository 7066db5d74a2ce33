package io.silt.dml

import java.util.UUID

import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException}
import io.silt.features.ColumnMapping
import io.silt.log.TableLog
import io.silt.spark.{SlottedStatement, SqlText}
import io.silt.txn.Operation
import io.silt.write.{ReplaceMatching, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias
import org.apache.spark.sql.functions.lit
import org.apache.spark.sql.silt.SparkInternals

/**
 * Delta Lake's dynamic data overwrite (write options `replaceUsing` / `replaceOn`): in one commit,
 * the table's rows that match a row of the data are deleted and every row of the data is added.
 *
 * It runs as a MERGE, so that it has MERGE's deletion vectors or copy-on-write, change data feed,
 * row tracking, constraints and conflict checks. The data is given twice, flagged: the flagged
 * copy's rows match the table's rows to delete (a target row several of them match is deleted
 * once), and the other copy matches nothing, so all of it is inserted. The commit is recorded as
 * Delta records the write: a WRITE with the columns or the condition.
 */
object ReplaceMatchingRows {
  /** What the MERGE records instead of itself. */
  final case class Recorded(partitionBy: Seq[String], spec: ReplaceMatching, userMetadata: Option[String]) {
    /** The WRITE, with Delta's metrics of it from the MERGE's (`numTarget…`). */
    def operation(merge: Map[String, Long]): Operation = {
      def m(name: String) = merge.getOrElse(name, 0L)
      val (using, on) = spec match {
        case ReplaceMatching.Using(columns) => (Some(columns), None)
        case ReplaceMatching.On(condition, _) => (None, Some(condition))
      }
      Operation.ReplaceMatchingWrite(partitionBy, using, on, Map(
        "numFiles" -> m("numTargetFilesAdded"),
        "numOutputRows" -> (m("numTargetRowsInserted") + m("numTargetRowsCopied")),
        "numOutputBytes" -> m("numTargetBytesAdded"),
        "numRemovedFiles" -> m("numTargetFilesRemoved"),
        "numRemovedBytes" -> m("numTargetBytesRemoved"),
        "numCopiedRows" -> m("numTargetRowsCopied"),
        "numDeletedRows" -> m("numTargetRowsDeleted"),
        "numAddedChangeFiles" -> m("numTargetChangeFilesAdded")), userMetadata)
    }
  }

  /** Replaces the rows of the table at `tablePath` that match a row of `data` by `data`'s rows. */
  def run(spark: SparkSession, tablePath: Path, data: DataFrame, opts: WriteOptions): Unit = {
    val spec = opts.replaceMatching.getOrElse(throw new IllegalArgumentException("not a dynamic data overwrite"))
    val log = TableLog.forPath(spark, tablePath.toString)
    if (!log.exists) throw ReplaceMatching.notHere(tablePath.toString)
    val metadata = log.latest().metadata
    val tableColumns = ColumnMapping.logicalSchema(metadata.schema).fieldNames.toSeq
    val resolver = spark.sessionState.conf.resolver
    def inTable(c: String) = tableColumns.exists(resolver(_, c))
    // The MERGE's INSERT * would drop a column the table lacks without a word: refused, as a write refuses it.
    data.columns.filterNot(inTable).toSeq match {
      case Seq() =>
      case extra => throw new SchemaMismatchException(s"the data has column(s) ${extra.mkString(", ")} that " +
        s"$tablePath lacks; a write with replaceUsing or replaceOn cannot add columns (add them with ALTER TABLE)")
    }
    val nonce = UUID.randomUUID().toString.replace("-", "")
    val flag = SqlText.identifier(s"__silt_replace_$nonce")
    val doubled = data.withColumn(s"__silt_replace_$nonce", lit(true))
      .unionByName(data.withColumn(s"__silt_replace_$nonce", lit(false)))
    val dataAlias = data.queryExecution.analyzed match {
      case a: SubqueryAlias => a.alias
      case _ => s"__silt_data_$nonce"
    }
    val statement = new SlottedStatement(spark)
    val (target, condition) = spec match {
      case ReplaceMatching.Using(columns) =>
        columns.find(c => !inTable(c) || !data.columns.exists(resolver(_, c))).foreach { c =>
          throw new InvalidTableOperationException(s"replaceUsing column '$c' must be a column of both $tablePath " +
            s"(${tableColumns.mkString(", ")}) and the data (${data.columns.mkString(", ")})")
        }
        val t = s"__silt_table_$nonce"
        (s" AS ${SqlText.identifier(t)}", columns.map { c =>
          s"${SqlText.identifier(t)}.${SqlText.column(c)} = ${SqlText.identifier(dataAlias)}.${SqlText.column(c)}"
        }.mkString(" AND "))
      case ReplaceMatching.On(text, alias) => (alias.fold("")(a => s" AS ${SqlText.identifier(a)}"), text)
    }
    val sql = s"MERGE INTO silt.${SqlText.identifier(tablePath.toString)}$target " +
      s"USING ${statement.sourceOf(doubled)} AS ${SqlText.identifier(dataAlias)} ON ($condition) AND $flag " +
      s"WHEN MATCHED THEN DELETE WHEN NOT MATCHED AND NOT $flag THEN INSERT *"
    val analyzed = spark.sessionState.executePlan(statement.plan(sql)).analyzed
    val recorded = Recorded(metadata.partitionColumns, spec, opts.userMetadata)
    SparkInternals.dataFrame(spark, analyzed.transformDown {
      case m: MergeCommand => m.copy(recordedAs = Some(recorded))
    })
  }
}
