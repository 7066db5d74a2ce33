package io.silt.tables

import scala.jdk.CollectionConverters._

import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}
import io.silt.shims.MergeEvolution
import io.silt.spark.{SlottedStatement, SqlText}
import org.apache.spark.sql.{Column, DataFrame, functions}
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable
import org.apache.spark.sql.silt.SparkInternals

/** One WHEN clause of a MERGE: when it applies, an optional condition, and its action. */
private[tables] final case class MergeClause(when: String, condition: Option[Column], action: MergeClause.Action)

private[tables] object MergeClause {
  sealed trait Action
  final case class Update(set: Seq[(String, Column)]) extends Action
  case object UpdateAll extends Action
  case object Delete extends Action
  final case class Insert(values: Seq[(String, Column)]) extends Action
  case object InsertAll extends Action

  val Kinds: Seq[String] = Seq("MATCHED", "NOT MATCHED", "NOT MATCHED BY SOURCE")

  def assignments(set: Seq[(String, Column)], method: String): Seq[(String, Column)] = {
    if (set.isEmpty) throw new UnsupportedOptionException(method, s"$method needs at least one column to set")
    set
  }
}

/**
 * A MERGE of a source into a table, as delta-spark's builder: WHEN clauses in the order given
 * (each call returns a new builder), then `execute()`. Sides are named by their aliases
 * (`DeltaTable.as`, `Dataset.as`).
 */
class DeltaMergeBuilder private[tables] (table: DeltaTable, source: DataFrame, condition: Column,
    clauses: Seq[MergeClause] = Nil, evolve: Boolean = false) {

  /** Clauses for target rows a source row matches. */
  def whenMatched(): DeltaMergeMatchedActionBuilder = new DeltaMergeMatchedActionBuilder(this, None)
  def whenMatched(condition: String): DeltaMergeMatchedActionBuilder = whenMatched(functions.expr(condition))
  def whenMatched(condition: Column): DeltaMergeMatchedActionBuilder = new DeltaMergeMatchedActionBuilder(this, Some(condition))

  /** Clauses for source rows no target row matches. */
  def whenNotMatched(): DeltaMergeNotMatchedActionBuilder = new DeltaMergeNotMatchedActionBuilder(this, None)
  def whenNotMatched(condition: String): DeltaMergeNotMatchedActionBuilder = whenNotMatched(functions.expr(condition))
  def whenNotMatched(condition: Column): DeltaMergeNotMatchedActionBuilder =
    new DeltaMergeNotMatchedActionBuilder(this, Some(condition))

  /** Clauses for target rows no source row matches. */
  def whenNotMatchedBySource(): DeltaMergeNotMatchedBySourceActionBuilder =
    new DeltaMergeNotMatchedBySourceActionBuilder(this, None)
  def whenNotMatchedBySource(condition: String): DeltaMergeNotMatchedBySourceActionBuilder =
    whenNotMatchedBySource(functions.expr(condition))
  def whenNotMatchedBySource(condition: Column): DeltaMergeNotMatchedBySourceActionBuilder =
    new DeltaMergeNotMatchedBySourceActionBuilder(this, Some(condition))

  /** Adds the source's new columns to the table as the merge writes them (Spark 4.1 and later). */
  def withSchemaEvolution(): DeltaMergeBuilder = new DeltaMergeBuilder(table, source, condition, clauses, evolve = true)

  private[tables] def withClause(clause: MergeClause): DeltaMergeBuilder =
    new DeltaMergeBuilder(table, source, condition, clauses :+ clause, evolve)

  /** Runs the MERGE; returns its metrics row (num_affected_rows, num_updated_rows, …). */
  def execute(): DataFrame = {
    if (clauses.isEmpty) throw new InvalidTableOperationException(
      "a MERGE needs at least one WHEN clause (whenMatched, whenNotMatched or whenNotMatchedBySource)")
    val statement = new SlottedStatement(table.spark)
    def set(pairs: Seq[(String, Column)]) =
      pairs.map { case (k, v) => s"${SqlText.column(k)} = ${statement.slot(v)}" }.mkString(", ")
    // SQL's order of the kinds of clause; within a kind the order given decides which clause a row takes.
    val whens = clauses.sortBy(c => MergeClause.Kinds.indexOf(c.when)).map { c =>
      val action = c.action match {
        case MergeClause.Update(pairs) => s"UPDATE SET ${set(pairs)}"
        case MergeClause.UpdateAll => "UPDATE SET *"
        case MergeClause.Delete => "DELETE"
        case MergeClause.Insert(pairs) =>
          s"INSERT (${pairs.map(p => SqlText.column(p._1)).mkString(", ")}) " +
            s"VALUES (${pairs.map(p => statement.slot(p._2)).mkString(", ")})"
        case MergeClause.InsertAll => "INSERT *"
      }
      s"WHEN ${c.when}${c.condition.fold("")(e => s" AND ${statement.slot(e)}")} THEN $action"
    }
    val plan = statement.plan(s"MERGE INTO ${table.dmlTarget} USING ${statement.sourceOf(source)} " +
      s"ON ${statement.slot(condition)} ${whens.mkString(" ")}")
    val evolved = plan match {
      case m: MergeIntoTable if evolve && !MergeEvolution.requested(m) => MergeEvolution.withEvolution(m, asked = true)
      case other => other
    }
    table.ref.inScope(table.spark)(SparkInternals.dataFrame(table.spark, evolved))
  }
}

/** The actions WHEN MATCHED and WHEN NOT MATCHED BY SOURCE clauses share: update and delete. */
trait MergeUpdateActions {
  protected def add(action: MergeClause.Action): DeltaMergeBuilder

  /** Updates the clause's target rows: column name to value. */
  def update(set: scala.collection.Map[String, Column]): DeltaMergeBuilder =
    add(MergeClause.Update(MergeClause.assignments(set.toSeq, "update")))
  def update(set: java.util.Map[String, Column]): DeltaMergeBuilder = update(set.asScala)
  /** Updates the clause's target rows: column name to SQL expression. */
  def updateExpr(set: scala.collection.Map[String, String]): DeltaMergeBuilder =
    update(set.map { case (k, v) => k -> functions.expr(v) })
  def updateExpr(set: java.util.Map[String, String]): DeltaMergeBuilder = updateExpr(set.asScala)
  /** Deletes the clause's target rows. */
  def delete(): DeltaMergeBuilder = add(MergeClause.Delete)
}

/** The action of a WHEN MATCHED clause. */
class DeltaMergeMatchedActionBuilder private[tables] (merge: DeltaMergeBuilder, condition: Option[Column])
    extends MergeUpdateActions {
  protected def add(action: MergeClause.Action): DeltaMergeBuilder =
    merge.withClause(MergeClause("MATCHED", condition, action))

  /** Updates every column of matched target rows from the source. */
  def updateAll(): DeltaMergeBuilder = add(MergeClause.UpdateAll)
}

/** The action of a WHEN NOT MATCHED clause. */
class DeltaMergeNotMatchedActionBuilder private[tables] (merge: DeltaMergeBuilder, condition: Option[Column]) {
  private def add(action: MergeClause.Action) = merge.withClause(MergeClause("NOT MATCHED", condition, action))

  /** Inserts a row: column name to value. */
  def insert(values: scala.collection.Map[String, Column]): DeltaMergeBuilder =
    add(MergeClause.Insert(MergeClause.assignments(values.toSeq, "insert")))
  def insert(values: java.util.Map[String, Column]): DeltaMergeBuilder = insert(values.asScala)
  /** Inserts a row: column name to SQL expression. */
  def insertExpr(values: scala.collection.Map[String, String]): DeltaMergeBuilder =
    insert(values.map { case (k, v) => k -> functions.expr(v) })
  def insertExpr(values: java.util.Map[String, String]): DeltaMergeBuilder = insertExpr(values.asScala)
  /** Inserts the source row, column by column. */
  def insertAll(): DeltaMergeBuilder = add(MergeClause.InsertAll)
}

/** The action of a WHEN NOT MATCHED BY SOURCE clause. */
class DeltaMergeNotMatchedBySourceActionBuilder private[tables] (merge: DeltaMergeBuilder, condition: Option[Column])
    extends MergeUpdateActions {
  protected def add(action: MergeClause.Action): DeltaMergeBuilder =
    merge.withClause(MergeClause("NOT MATCHED BY SOURCE", condition, action))
}
