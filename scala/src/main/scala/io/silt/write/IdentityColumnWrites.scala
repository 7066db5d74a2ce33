package io.silt.write

import io.silt.actions.Metadata
import io.silt.errors.InvalidTableOperationException
import io.silt.expressions.{IdentityMark, IdentityPlaceholder, IdentityValue}
import io.silt.features.IdentityColumns
import io.silt.txn.OptimisticTransaction
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.StructField

/**
 * Identity columns in writes: a row that leaves the column out gets an [[IdentityPlaceholder]]
 * (from INSERT's column list, a DataFrame without the column, a MERGE insert); the writer turns
 * placeholders into values above the column's high-water mark in the metadata the transaction
 * commits, and the commit records the new mark. Concurrent writers both change the metadata, so
 * the second conflicts: values stay unique across writers and engines.
 */
object IdentityColumnWrites {
  /** The value of identity column `f` in a row that leaves it out. */
  def placeholder(f: StructField): Column = SparkInternals.column(IdentityPlaceholder(f.name))

  /**
   * `rows` with identity values generated (from `metadata`, which `txn` commits with the new mark).
   * `newRows`: every row is new (an append, an overwrite), so an ALWAYS column must not be given.
   */
  def generate(spark: SparkSession, rows: DataFrame, txn: OptimisticTransaction, metadata: Metadata,
      newRows: Boolean): DataFrame = {
    val columns = IdentityColumns.of(metadata.schema)
    if (columns.isEmpty) return rows
    val plan = rows.queryExecution.analyzed
    val placed = plan.collect { case p => p.expressions.flatMap(this.placed) }.flatten.toSet
    if (newRows) columns.find { case (f, spec) => !spec.allowExplicitInsert && !placed(f.name.toLowerCase) &&
        rows.columns.exists(_.equalsIgnoreCase(f.name)) }.foreach { case (f, _) =>
      throw new InvalidTableOperationException(s"identity column ${f.name} is GENERATED ALWAYS: a write cannot give its " +
        "values; leave the column out and Silt generates them")
    }
    if (placed.isEmpty) rows
    else SparkInternals.dataFrame(spark, plan.transformAllExpressions(values(spark, txn, metadata, placed)))
  }

  /**
   * Replaces the placeholders of the identity columns in `placed` (lower case) by their values
   * (from `metadata`); the marks they reach are recorded in the metadata `txn` commits.
   */
  def values(spark: SparkSession, txn: OptimisticTransaction, metadata: Metadata,
      placed: Set[String]): PartialFunction[Expression, Expression] = {
    val marks = IdentityColumns.of(metadata.schema).filter { case (f, _) => placed(f.name.toLowerCase) }.map { case (f, spec) =>
      val mark = new IdentityMark(spec.step)
      spark.sparkContext.register(mark, s"identity ${f.name}")
      f.name.toLowerCase -> (mark, IdentityValue(spec.nextValue, spec.step, mark))
    }.toMap
    if (marks.nonEmpty) txn.updateMetadataAtCommit { (m: Metadata) =>
      val moved = IdentityColumns.of(m.schema).flatMap { case (f, spec) =>
        marks.get(f.name.toLowerCase).flatMap(_._1.value).map(last => f.name -> spec.after(last))
      }.toMap
      if (moved.isEmpty) m else m.copy(schemaString = IdentityColumns.withMarks(m.schema, moved).json)
    }
    val replace: PartialFunction[Expression, Expression] = {
      case IdentityPlaceholder(c) if marks.contains(c.toLowerCase) => marks(c.toLowerCase)._2
    }
    replace
  }

  /** The identity columns whose placeholders `e` holds (lower case). */
  def placed(e: Expression): Set[String] = e.collect { case i: IdentityPlaceholder => i.column.toLowerCase }.toSet
}
