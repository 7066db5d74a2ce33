package io.silt.write

import io.silt.errors.SchemaMismatchException
import io.silt.features.IdentityColumns
import io.silt.spark.Identifiers
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.expressions.Cast
import org.apache.spark.sql.functions.{col, lit, struct, when}
import org.apache.spark.sql.types._

/** Schema enforcement and evolution for writes: what may be written into a table, and how. */
object SchemaEvolution {

  /**
   * The table schema after writing `data`: unchanged when `data` fits, widened with the new
   * (nested) columns when `mergeSchema` is set, otherwise a SchemaMismatchException that names
   * the offending column. `widen` (the table has `delta.enableTypeWidening`): with `mergeSchema`,
   * a (nested) field takes the data's wider type where Delta widens by itself ([[TypeWidening.automatic]]).
   */
  def merge(table: StructType, data: StructType, mergeSchema: Boolean, where: String = "", widen: Boolean = false): StructType = {
    val added = data.fields.filterNot(d => table.fields.exists(_.name.equalsIgnoreCase(d.name)))
    if (added.nonEmpty && !mergeSchema) {
      throw new SchemaMismatchException(s"the data has column(s) ${added.map(f => where + f.name).mkString(", ")} " +
        s"that the table schema does not have. Table schema: ${table.simpleString}. " +
        "Set option mergeSchema = true to add them to the table.")
    }
    val merged = table.fields.map { t =>
      data.fields.find(_.name.equalsIgnoreCase(t.name)) match {
        case None => t
        case Some(d) if widen && mergeSchema && TypeWidening.automatic(t.dataType, d.dataType) => TypeWidening.recorded(t, d.dataType)
        case Some(d) => t.copy(dataType = mergeType(t.dataType, d.dataType, mergeSchema, where + t.name, widen))
      }
    }
    StructType(merged ++ added.map(_.copy(nullable = true)))
  }

  // An array's elements or a map's keys and values keep their types (their changes need a fieldPath).
  private def mergeType(table: DataType, data: DataType, mergeSchema: Boolean, name: String, widen: Boolean): DataType =
    (table, data) match {
      case (t, d) if t == d => t
      case (t: StructType, d: StructType) => merge(t, d, mergeSchema, name + ".", widen)
      case (t: ArrayType, d: ArrayType) =>
        ArrayType(mergeType(t.elementType, d.elementType, mergeSchema, name + ".element", widen = false), true)
      case (t: MapType, d: MapType) => MapType(mergeType(t.keyType, d.keyType, mergeSchema, name + ".key", widen = false),
        mergeType(t.valueType, d.valueType, mergeSchema, name + ".value", widen = false), true)
      case (t, NullType) => t
      case (t, d) if Cast.canUpCast(d, t) && !Cast.canUpCast(t, d) && isNumericOrDate(d) => t
      case (t, d) => throw new SchemaMismatchException(s"column $name has type ${d.simpleString} in the data " +
        s"but ${t.simpleString} in the table; cast it to ${t.simpleString} before writing" + (if (widen && mergeSchema) {
          TypeWidening.beyondThisSpark(t, d).map(why => s" (type widening cannot make this change here: $why)").getOrElse("")
        } else ""))
    }

  private def isNumericOrDate(d: DataType) = d.isInstanceOf[NumericType] || d == DateType

  /** The schema with every column and nested field nullable: the schema of a table that written data creates. */
  def asNullable(schema: StructType): StructType = StructType(schema.fields.map(f => f.copy(dataType = nullable(f.dataType), nullable = true)))

  private def nullable(dt: DataType): DataType = dt match {
    case s: StructType => asNullable(s)
    case a: ArrayType => ArrayType(nullable(a.elementType), containsNull = true)
    case m: MapType => MapType(nullable(m.keyType), nullable(m.valueType), valueContainsNull = true)
    case other => other
  }

  /** `data` with exactly the table's columns, in the table's order, cast to the table's types; a missing column takes its
   * identity value, its generation expression's value or its default. */
  def align(data: DataFrame, table: StructType): DataFrame = {
    val columns = table.fields.map { t =>
      data.schema.fields.find(_.name.equalsIgnoreCase(t.name)) match {
        case Some(d) => alignColumn(Identifiers.column(d.name), d.dataType, t.dataType).as(t.name)
        case None if IdentityColumns.specOf(t).isDefined => IdentityColumnWrites.placeholder(t).as(t.name)
        case None => GeneratedColumns.of(t).map(GeneratedColumns.valueFor(t, _)).getOrElse(ColumnDefaults.valueFor(t)).as(t.name)
      }
    }
    data.select(columns.toIndexedSeq: _*)
  }

  private def alignColumn(c: Column, from: DataType, to: DataType): Column = (from, to) match {
    case (f, t) if f == t => c
    case (f: StructType, t: StructType) =>
      val fields = t.fields.map { tf =>
        f.fields.find(_.name.equalsIgnoreCase(tf.name)) match {
          case Some(ff) => alignColumn(c.getField(ff.name), ff.dataType, tf.dataType).as(tf.name)
          case None => lit(null).cast(tf.dataType).as(tf.name)
        }
      }
      when(c.isNull, lit(null).cast(t)).otherwise(struct(fields.toIndexedSeq: _*))
    case (_, t) => c.cast(t)
  }


}
