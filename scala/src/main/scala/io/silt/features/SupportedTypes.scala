package io.silt.features

import io.silt.errors.InvalidTableOperationException
import io.silt.shims.SparkTypes
import org.apache.spark.sql.types._

/**
 * The column types a Delta table may have (the protocol's primitive types, `timestamp_ntz` and
 * `variant` with their features, and structs, arrays and maps of them), as Delta Lake 4.4 checks a
 * schema before committing it. Spark types the protocol has no name for (intervals, TIME,
 * strings with a collation, geospatial types) would be written into the schema without a feature
 * declaring them, which readers cannot be told about: they are refused by column.
 */
object SupportedTypes {
  /** The columns (dotted paths, `[]` for an array's elements) whose type a Delta table cannot hold, with that type. */
  def unsupported(schema: StructType): Seq[(String, DataType)] = within(schema, "")

  private def within(dt: DataType, path: String): Seq[(String, DataType)] = dt match {
    case s: StructType => s.fields.toSeq.flatMap(f => within(f.dataType, if (path.isEmpty) f.name else s"$path.${f.name}"))
    case a: ArrayType => within(a.elementType, s"$path[]")
    case m: MapType => within(m.keyType, s"$path[key]") ++ within(m.valueType, s"$path[value]")
    case u: UserDefinedType[_] => within(u.sqlType, path)
    // StringType is the object of the default collation; a collated string is another instance
    case t if t == StringType => Nil
    case NullType | BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | BinaryType |
         DateType | TimestampType | TimestampNTZType | _: DecimalType => Nil
    case t if SparkTypes.variant.contains(t) => Nil
    case other => Seq(path -> other)
  }

  /** Refuses a schema with a column of a type no Delta table can hold, naming the columns. */
  def check(tablePath: String, schema: StructType): Unit = {
    val bad = unsupported(schema)
    if (bad.nonEmpty) throw new InvalidTableOperationException(s"table $tablePath cannot have " +
      bad.map { case (c, t) => s"column $c of type ${t.sql}" }.mkString(", ") + ": Delta tables hold no such type " +
      "(as Delta Lake refuses it). Cast it to a type they hold (a STRING without collation, a BIGINT of " +
      "microseconds for an interval or a time)")
  }
}
