package io.silt.catalog

import scala.jdk.CollectionConverters._

import io.silt.errors.InvalidTableOperationException
import io.silt.dml.MergeSchemaEvolution
import io.silt.read.{ReadOptions, SiltRelation, TimeTravel}
import io.silt.write.SchemaEvolution
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/**
 * Replaces a read of a Silt catalog table with Spark's file scan over the table's snapshot, so
 * that partition pruning, skipping and the vectorized Parquet reader apply. Write targets are
 * not children of write commands, so they stay V2 relations.
 */
final class ResolveSiltRelations(spark: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    // The target of a MERGE WITH SCHEMA EVOLUTION stays a V2 relation until Spark has planned the
    // source's new columns; then it is widened with them.
    val evolving = plan.collect { case m: MergeIntoTable if m.withSchemaEvolution => siltTarget(m) }.flatten
    plan.resolveOperatorsUp {
      case m: MergeIntoTable if m.withSchemaEvolution && siltTarget(m).isDefined =>
        if (!MergeSchemaEvolution.ready(m)) m else {
          val r = siltTarget(m).get
          val t = r.table.asInstanceOf[SiltTableV2]
          val schema = MergeSchemaEvolution.widenedSchema(m, t.snapshot.metadata.schema)
          // nothing new: the table as it is, and no metadata committed
          val snapshot = if (schema == t.snapshot.metadata.schema) t.snapshot else MergeSchemaEvolution.widen(t.snapshot, schema)
          val relation = SiltRelation.forSnapshot(spark, snapshot)
          // columns whose type widened keep their ids, with the new type everywhere the plan uses them
          val output = SchemaEvolution.asNullable(relation.schema).fields.toSeq.map { f =>
            r.output.find(_.name.equalsIgnoreCase(f.name)) match {
              case Some(a) if a.dataType == f.dataType => a
              case Some(a) => a.withDataType(f.dataType)
              case None => AttributeReference(f.name, f.dataType, nullable = true)()
            }
          }
          val changed = AttributeMap(r.output.flatMap(a => output.find(o => o.exprId == a.exprId && o.dataType != a.dataType)
            .map(a -> (_: Attribute))))
          val widened = LogicalRelation(relation, output, t.catalogTable, isStreaming = false, stream = None)
          MergeSchemaEvolution.recast(m.copy(targetTable = m.targetTable.transformUp { case x if x eq r => widened })
            .rewriteAttrs(changed).asInstanceOf[MergeIntoTable], r.output.filter(a => changed.contains(a)).map(a => a.exprId -> a.dataType).toMap)
        }
      case r @ DataSourceV2Relation(t: SiltTableV2, output, _, _, options, _) if !evolving.exists(_ eq r) =>
        val table = withReadOptions(t, options.asCaseSensitiveMap.asScala.toMap)
        LogicalRelation(table.toRelation, output, table.catalogTable, isStreaming = false, stream = None)
    }
  }

  private def siltTarget(m: MergeIntoTable): Option[DataSourceV2Relation] = EliminateSubqueryAliases(m.targetTable) match {
    case r @ DataSourceV2Relation(_: SiltTableV2, _, _, _, _, _) => Some(r)
    case _ => None
  }

  /**
   * The table as read with `spark.read.option(...).table(name)`'s options: validated, and time
   * travel applied unless Spark already loaded the table at that version (it does for these options).
   */
  private def withReadOptions(t: SiltTableV2, options: Map[String, String]): SiltTableV2 = {
    ReadOptions.validate(options)
    TimeTravel.fromOptions(spark, options) match {
      case TimeTravel.Latest => t
      case _ if t.timeTravel != TimeTravel.Latest => t
      case tt =>
        val earlier = t.copy(timeTravel = tt)
        // the plan was resolved against the latest columns, which the earlier version must have
        if (earlier.schema() != t.schema()) throw new InvalidTableOperationException(s"${t.name()} had other " +
          s"columns at ${tt}; read it with spark.read.format(\"silt\").option(...).load(path) or SQL VERSION AS OF")
        earlier
    }
  }
}
