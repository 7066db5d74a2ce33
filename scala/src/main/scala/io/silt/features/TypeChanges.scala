package io.silt.features

import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types._

/** One recorded type change: the field (and the `fieldPath` within it) and its types before and after. */
final case class TypeChange(path: String, from: DataType, to: DataType)

/** The `delta.typeChanges` history in a schema's field metadata, and which changes are widenings. */
object TypeChanges {
  val Key = "delta.typeChanges"

  /** Every change recorded anywhere in `schema`, in order per field. */
  def all(schema: StructType): Seq[TypeChange] = fieldsOf(schema, "").flatMap { case (path, f) =>
    if (!f.metadata.contains(Key)) Nil
    else f.metadata.getMetadataArray(Key).toSeq.map { c =>
      val within = if (c.contains("fieldPath")) "." + c.getString("fieldPath") else ""
      TypeChange(path + within, CatalystSqlParser.parseDataType(c.getString("fromType")),
        CatalystSqlParser.parseDataType(c.getString("toType")))
    }
  }

  /** `schema` with no change recorded: what it is once no file holds an older type (the feature dropped). */
  def without(schema: StructType): StructType = stripped(schema).asInstanceOf[StructType]

  private def stripped(dt: DataType): DataType = dt match {
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = stripped(f.dataType),
      metadata = new MetadataBuilder().withMetadata(f.metadata).remove(Key).build())))
    case a: ArrayType => a.copy(elementType = stripped(a.elementType))
    case m: MapType => m.copy(keyType = stripped(m.keyType), valueType = stripped(m.valueType))
    case other => other
  }

  /** The top-level columns (by name) whose values some file may hold in another type. */
  def changedColumns(schema: StructType): Set[String] =
    schema.fields.filter(f => fieldsOf(f.dataType, f.name).exists(_._2.metadata.contains(Key)) ||
      f.metadata.contains(Key)).map(_.name).toSet

  /** Whether the file statistics of a value written as `from` still bound it once read as `to`. */
  def statsExact(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a, b) if integral(a) && (integral(b) || b.isInstanceOf[DecimalType]) => true
    case (_: DecimalType, _: DecimalType) | (_, DoubleType) if from != FloatType => true
    case (DateType, TimestampNTZType) => true // a date's bound is the timestamp of its midnight
    case _ => false // float -> double: the bound 0.1 written from 0.1f is below 0.1f as a double
  }

  /** The widenings Delta allows (and Spark's Parquet readers apply to old files). */
  def isWidening(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a, b) if integral(a) && integral(b) => rank(a) < rank(b)
    case (FloatType, DoubleType) => true
    case (ByteType | ShortType | IntegerType, DoubleType) => true
    case (DateType, TimestampNTZType) => true
    case (a: DecimalType, b: DecimalType) =>
      val (k1, k2) = (b.precision - a.precision, b.scale - a.scale)
      k1 >= k2 && k2 >= 0 && (k1 > 0 || k2 > 0)
    case (ByteType | ShortType | IntegerType, d: DecimalType) => d.precision - 10 >= d.scale && d.scale >= 0
    case (LongType, d: DecimalType) => d.precision - 20 >= d.scale && d.scale >= 0
    case _ => false
  }

  private val Integers: Seq[DataType] = Seq(ByteType, ShortType, IntegerType, LongType)
  private def integral(t: DataType): Boolean = Integers.contains(t)
  private def rank(t: DataType): Int = Integers.indexOf(t)

  private def fieldsOf(dt: DataType, prefix: String): Seq[(String, StructField)] = dt match {
    case s: StructType => s.fields.toSeq.flatMap { f =>
      val path = if (prefix.isEmpty) f.name else s"$prefix.${f.name}"
      (path, f) +: fieldsOf(f.dataType, path)
    }
    case a: ArrayType => fieldsOf(a.elementType, s"$prefix.element")
    case m: MapType => fieldsOf(m.keyType, s"$prefix.key") ++ fieldsOf(m.valueType, s"$prefix.value")
    case _ => Nil
  }
}
