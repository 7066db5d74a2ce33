package io.silt.write

import io.silt.expressions.{ConstraintRule, EnforceConstraints}
import io.silt.actions.{ActionCodec, Metadata}
import io.silt.features.TableProperties
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Expression, IsNotNull}
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.StructType

/**
 * The rules a table's rows must satisfy, as Delta stores them: NOT NULL columns (the schema's
 * nullability, nested struct fields included), CHECK constraints (`delta.constraints.<name>`
 * table properties), legacy column invariants (`delta.invariants` field metadata) and generated
 * columns' expressions.
 */
object Constraints {
  private val InvariantKey = "delta.invariants"

  /** The CHECK constraints, by (lower-case) name. */
  def checks(metadata: Metadata): Map[String, String] = TableProperties(metadata.configuration).checkConstraints

  /** `data` (with the table's columns) with every row checked against the table's rules as it is written. */
  def enforce(spark: SparkSession, data: DataFrame, metadata: Metadata): DataFrame = {
    val parse = spark.sessionState.sqlParser.parseExpression _
    val rules = notNull(metadata.schema, Nil) ++ invariants(metadata.schema, Nil, parse) ++
      GeneratedColumns.rules(metadata.schema, parse) ++
      checks(metadata).toSeq.sortBy(_._1).map { case (name, text) =>
        val condition = parse(text)
        val shown = condition.collect { case a: UnresolvedAttribute => a.nameParts }.distinct
        (ConstraintRule(name, s"CHECK constraint $name ($text) violated", shown.map(_.mkString("."))), condition,
          shown.map(parts => UnresolvedAttribute(parts): Expression))
      }
    if (rules.isEmpty) return data
    val check = EnforceConstraints(rules.map(_._1), rules.flatMap { case (_, c, vs) => c +: vs })
    SparkInternals.dataFrame(spark, Filter(check, data.queryExecution.analyzed))
  }

  private type Rule = (ConstraintRule, Expression, Seq[Expression])

  // Delta checks a nested NOT NULL field by its value, so a null parent struct violates it too.
  private def notNull(schema: StructType, parents: Seq[String]): Seq[Rule] = schema.fields.toSeq.flatMap { f =>
    val path = parents :+ f.name
    val own = if (f.nullable) Nil else {
      val name = path.mkString(".")
      Seq((ConstraintRule(name, s"NOT NULL constraint violated for column $name", Nil, notNull = true),
        IsNotNull(UnresolvedAttribute(path)): Expression, Nil))
    }
    own ++ (f.dataType match {
      case s: StructType => notNull(s, path)
      case _ => Nil
    })
  }

  private def invariants(schema: StructType, parents: Seq[String], parse: String => Expression): Seq[Rule] =
    schema.fields.toSeq.flatMap { f =>
      val path = parents :+ f.name
      val own = if (!f.metadata.contains(InvariantKey)) Nil else {
        val text = ActionCodec.mapper.readTree(f.metadata.getString(InvariantKey)).path("expression").path("expression").asText
        val name = path.mkString(".")
        Seq((ConstraintRule(s"invariant on $name", s"invariant ($text) on column $name violated", Seq(name)),
          parse(text), Seq(UnresolvedAttribute(path): Expression)))
      }
      own ++ (f.dataType match {
        case s: StructType => invariants(s, path, parse)
        case _ => Nil
      })
    }
}
