package io.silt.catalog

import scala.jdk.CollectionConverters._

import io.silt.errors.InvalidTableOperationException
import io.silt.dml.MergeSchemaEvolution
import io.silt.features.{ChangeDataFeed, ColumnMapping, WriterMetadata}
import io.silt.read.{ChangeFeed, ReadOptions, SiltRelation, TimeTravel}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import io.silt.shims.MergeEvolution

/**
 * Replaces a read of a Silt catalog table with Spark's file scan over the table's snapshot, so
 * that partition pruning, skipping and the vectorized Parquet reader apply. Write targets are
 * not children of write commands, so they stay V2 relations.
 */
final class ResolveSiltRelations(spark: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    // The target of a MERGE WITH SCHEMA EVOLUTION stays a V2 relation until Spark has planned the
    // source's new columns; then it is widened with them.
    val evolving = plan.collect { case m: MergeIntoTable if MergeEvolution.requested(m) => siltTarget(m) }.flatten
    plan.resolveOperatorsUp {
      // Spark 3.5 and 4.0: the `*` of a MERGE with schema evolution expanded over the source, as Spark 4.1 does
      case m: MergeIntoTable if MergeEvolution.awaitsExpansion(m) =>
        if (siltTarget(m).isEmpty) MergeEvolution.withoutEvolution(m)
        else MergeEvolution.expanded(MergeSchemaEvolution.expandStars(m, MergeEvolution.target(m), spark.sessionState.conf.resolver))
      case m: MergeIntoTable if MergeEvolution.requested(m) && siltTarget(m).isDefined =>
        if (!MergeSchemaEvolution.ready(m)) m else {
          val r = siltTarget(m).get
          val t = r.table.asInstanceOf[SiltTableV2]
          MergeSchemaEvolution.againstWidenedTarget(spark, m, r, t.snapshot, t.catalogTable)
        }
      case r: DataSourceV2Relation if r.table.isInstanceOf[SiltTableV2] && !evolving.exists(_ eq r) =>
        val (t, output) = (r.table.asInstanceOf[SiltTableV2], r.output)
        val requested = r.options.asCaseSensitiveMap.asScala.toMap
        if (ReadOptions.readsChangeFeed(requested)) changeFeedOf(t, output, requested) else {
          val table = withReadOptions(t, requested)
          SiltRelation.scan(table.toRelation, asTableHasThem(table, output), table.catalogTable)
        }
    }
  }

  /**
   * The columns a read gives as the table has them, as Delta Lake gives them: NOT NULL where the table
   * says so (SiltTableV2's schema is nullable for writes' sake), without the metadata only writers
   * use (generation expressions, identity specs).
   */
  private def asTableHasThem(t: SiltTableV2, output: Seq[AttributeReference]): Seq[AttributeReference] = {
    val columns = WriterMetadata.stripped(ColumnMapping.logicalSchema(t.snapshot.metadata.schema))
    output.map { a =>
      columns.find(_.name.equalsIgnoreCase(a.name)).fold(a)(f => a.withNullability(f.nullable).withMetadata(f.metadata))
    }
  }

  private def siltTarget(m: MergeIntoTable): Option[DataSourceV2Relation] = EliminateSubqueryAliases(MergeEvolution.target(m)) match {
    case r: DataSourceV2Relation if r.table.isInstanceOf[SiltTableV2] => Some(r)
    case _ => None
  }

  /**
   * `spark.read.option("readChangeFeed", "true").table(name)`: the table's change rows, its columns
   * keeping the ids the plan was resolved with, then the change columns.
   */
  private def changeFeedOf(t: SiltTableV2, output: Seq[AttributeReference], options: Map[String, String]): LogicalPlan = {
    ReadOptions.validate(options)
    if (t.timeTravel != TimeTravel.Latest) throw new InvalidTableOperationException(s"${t.name()}: a change-feed " +
      "read takes its versions from startingVersion/endingVersion, not from time travel")
    val (from, to) = ChangeFeed.rangeOf(spark, t.log, options)
    val changes = ChangeFeed.changes(spark, t.log, from, to).queryExecution.analyzed
    val byName = changes.output.map(a => a.name.toLowerCase -> a).toMap
    val tableColumns = output.map { a =>
      Alias(byName.getOrElse(a.name.toLowerCase, throw new InvalidTableOperationException(s"${t.name()}: column " +
        s"${a.name} is not in the change feed of versions $from to $to")), a.name)(exprId = a.exprId)
    }
    Project(tableColumns ++ changes.output.filter(a => ChangeDataFeed.ReservedColumns.contains(a.name)), changes)
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
          s"columns at ${tt}; read it with spark.read.format('silt').option(...).load(path) or SQL VERSION AS OF")
        earlier
    }
  }
}
