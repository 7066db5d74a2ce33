package io.silt.sql

import io.silt.catalog.SiltTableV2
import io.silt.errors.{ErrorClass, InvalidTableOperationException}
import io.silt.partition.PartitionValues
import scala.jdk.CollectionConverters._
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.analysis.{ResolvedTable, UnresolvedPartitionSpec}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, ShowPartitions}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/**
 * SHOW PARTITIONS of a Silt table [PARTITION (col = value, …)], as Delta Lake answers it: one row a
 * partition holding live files, in the partition columns and their types, read from the log (no
 * data file is opened).
 */
final case class ShowPartitionsCommand(table: SiltTableV2, spec: Map[String, String]) extends LeafRunnableCommand {
  private val partitionSchema = table.snapshot.metadata.partitionSchema

  override val output: Seq[Attribute] = partitionSchema.fields.toSeq.map(f => AttributeReference(f.name, f.dataType)())

  override def run(spark: SparkSession): Seq[Row] = {
    if (partitionSchema.isEmpty) throw new InvalidTableOperationException(
      s"SHOW PARTITIONS is not allowed on a table that is not partitioned: ${table.name()}",
      errorClass = ErrorClass.ShowPartitionsOfUnpartitioned)
    val unknown = spec.keys.filterNot(k => partitionSchema.fieldNames.exists(_.equalsIgnoreCase(k)))
    if (unknown.nonEmpty) throw new InvalidTableOperationException(s"Non-partitioning column(s) " +
      s"${unknown.mkString("[", ", ", "]")} are specified for SHOW PARTITIONS of ${table.name()} (its partition " +
      s"columns: ${partitionSchema.fieldNames.mkString(", ")})", errorClass = ErrorClass.ShowPartitionsOfDataColumn)
    val tz = spark.sessionState.conf.sessionLocalTimeZone
    val wanted = partitionSchema.fields.toSeq.zipWithIndex.flatMap { case (f, i) =>
      spec.collectFirst { case (k, v) if k.equalsIgnoreCase(f.name) =>
        i -> (try PartitionValues.parse(v, f.dataType, tz) catch {
          case e: IllegalArgumentException => throw new InvalidTableOperationException(
            s"SHOW PARTITIONS of ${table.name()}: ${f.name} = '$v': ${e.getMessage}", e)
        })
      }
    }
    // the distinct values only: a large table's files are read from its checkpoint and not kept
    val values = java.util.concurrent.ConcurrentHashMap.newKeySet[Map[String, String]]()
    table.snapshot.filesWhere(Nil, tz)(() => a => { values.add(a.partitionValues); false })
    val rows = values.asScala.toSeq.sortBy(_.map { case (k, v) => s"$k=$v" }.toSeq.sorted.mkString("/"))
      .map(PartitionValues.rowOf(_, partitionSchema, tz)).distinct
      .filter(r => wanted.forall { case (i, v) => !r.isNullAt(i) && r.get(i, partitionSchema(i).dataType) == v })
    val toScala = CatalystTypeConverters.createToScalaConverter(partitionSchema)
    rows.map(r => toScala(r).asInstanceOf[Row])
  }
}

/** Plans Spark's SHOW PARTITIONS of a Silt table (which Spark refuses for tables without partition management). */
object ResolveShowPartitions extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case ShowPartitions(ResolvedTable(_, _, t: SiltTableV2, _), pattern, _) =>
      val spec = pattern match {
        case Some(UnresolvedPartitionSpec(values, _)) => values
        case _ => Map.empty[String, String]
      }
      ShowPartitionsCommand(t, spec)
  }
}
