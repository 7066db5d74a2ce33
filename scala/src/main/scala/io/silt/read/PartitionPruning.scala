package io.silt.read

import io.silt.errors.InvalidTableOperationException
import io.silt.log.{AddFile, Metadata}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** Evaluates predicates on partition columns against the partition values of files. */
object PartitionPruning {

  /** The typed partition values of a file as a row of `partitionSchema`. */
  def rowOf(add: AddFile, partitionSchema: StructType, timeZone: String): InternalRow = {
    val values = partitionSchema.fields.map { f =>
      val raw = add.partitionValues.find(_._1.equalsIgnoreCase(f.name)).map(_._2).orNull
      parse(raw, f.dataType, timeZone)
    }
    InternalRow.fromSeq(values.toSeq)
  }

  /** A partition value string of the log as Spark's internal value of `dataType`. */
  def parse(raw: String, dataType: DataType, timeZone: String): Any = {
    if (raw == null) return null
    dataType match {
      case StringType => UTF8String.fromString(raw)
      case _ if raw.isEmpty => null
      case BinaryType => raw.getBytes(java.nio.charset.StandardCharsets.UTF_8)
      case _ =>
        val v = Cast(Literal(UTF8String.fromString(raw)), dataType, Some(timeZone), evalMode = EvalMode.TRY).eval()
        if (v == null) {
          throw new IllegalArgumentException(s"partition value '$raw' is not a valid ${dataType.simpleString}")
        }
        v
    }
  }

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
    add => predicate.eval(rowOf(add, partitionSchema, timeZone))
  }

  /**
   * Parses and resolves a SQL predicate that may only reference partition columns (replaceWhere,
   * OPTIMIZE/REORG WHERE); a data column is an error that names it.
   */
  def resolvePartitionPredicate(spark: SparkSession, text: String, metadata: Metadata, context: String): Expression = {
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
