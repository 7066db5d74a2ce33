package io.silt.partition

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.{AddFile, Metadata}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation}
import org.apache.spark.sql.types.StructType

/** Predicates on partition columns: evaluated against files' partition values, or parsed from SQL text. */
object PartitionPredicates {

  /** Whether every predicate holds (null counts as false) for the file's partition values. */
  def matcher(predicates: Seq[Expression], partitionSchema: StructType, timeZone: String): AddFile => Boolean = {
    if (predicates.isEmpty) return _ => true
    val bound = predicates.reduce(And).transform {
      case a: AttributeReference =>
        val i = partitionSchema.fieldNames.indexWhere(_.equalsIgnoreCase(a.name))
        if (i < 0) throw new IllegalArgumentException(s"${a.name} is not a partition column")
        BoundReference(i, partitionSchema(i).dataType, nullable = true)
    }
    val predicate = Predicate.createInterpreted(bound)
    add => predicate.eval(PartitionValues.rowOf(add, partitionSchema, timeZone))
  }

  /**
   * Parses and resolves a SQL predicate that may only reference partition columns (replaceWhere,
   * OPTIMIZE/REORG WHERE); a data column is an error that names it.
   */
  def resolve(spark: SparkSession, text: String, metadata: Metadata, context: String): Expression = {
    val parsed = try spark.sessionState.sqlParser.parseExpression(text) catch {
      case e: Exception => throw new InvalidTableOperationException(s"$context: cannot parse predicate '$text': ${e.getMessage}", e)
    }
    val partitionCols = metadata.partitionSchema
    parsed.foreach {
      case u: UnresolvedAttribute if !partitionCols.fieldNames.exists(_.equalsIgnoreCase(u.name)) =>
        throw new InvalidTableOperationException(s"$context: predicate '$text' references ${u.name}, " +
          s"which is not a partition column (partition columns: ${partitionCols.fieldNames.mkString(", ")})")
      case _ =>
    }
    val attrs = partitionCols.fields.map(f => AttributeReference(f.name, f.dataType, nullable = true)())
    val analyzed = try spark.sessionState.executePlan(Filter(parsed, LocalRelation(attrs.toSeq))).analyzed catch {
      case e: Exception => throw new InvalidTableOperationException(s"$context: invalid predicate '$text': ${e.getMessage}", e)
    }
    analyzed.collectFirst { case f: Filter => f.condition }.getOrElse(Literal.TrueLiteral)
  }
}
