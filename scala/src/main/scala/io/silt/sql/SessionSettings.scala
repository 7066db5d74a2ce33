package io.silt.sql

import io.silt.config.{DeltaKeyTreatment, DeltaSessionKeys, SiltSettings}
import io.silt.errors.InvalidTableOperationException
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{FunctionIdentifier, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The SQL table function `silt_settings()`: each `spark.silt.*` and Delta Lake setting the session
 * set, its value, what Silt does with it (honoured, no effect, not implemented) and what it means.
 */
object SessionSettings {
  val Name = "silt_settings"
  private val schema = StructType(Seq("key", "value", "treatment", "meaning").map(StructField(_, StringType, nullable = false)))

  val registration: TableChanges.Registration = (
    FunctionIdentifier(Name),
    new ExpressionInfo(getClass.getName, null, Name, s"$Name(): the session's spark.silt.* and Delta Lake settings, " +
      "each with its value and what Silt does with it (honoured, no effect, not implemented)", "", "", "", "", "", "", ""),
    (args: Seq[Expression]) => {
      if (args.nonEmpty) throw new InvalidTableOperationException(s"$Name takes no arguments, not ${args.size}")
      val conf = SparkSession.active.conf
      val silt = conf.getAll.toSeq.filter(_._1.startsWith("spark.silt.")).sortBy(_._1).map { case (k, v) =>
        (k, v, DeltaKeyTreatment.Honoured.name, SiltSettings.all.find(_.matches(k)).map(_.doc).getOrElse(""))
      }
      val delta = DeltaSessionKeys.inSession(conf)
      val rows = (silt ++ delta).map { case (a, b, c, d) =>
        InternalRow(Seq(a, b, c, d).map(UTF8String.fromString): _*)
      }
      LocalRelation(toAttributes(schema), rows)
    })

  private def toAttributes(s: StructType) =
    s.fields.toSeq.map(f => org.apache.spark.sql.catalyst.expressions.AttributeReference(f.name, f.dataType, f.nullable)())
}
