package io.silt.write

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

/**
 * Changes a schema at a column path, as ALTER TABLE names columns: struct fields by name (case
 * insensitively), `element` into an array, `key` and `value` into a map.
 */
private[write] object SchemaPaths {

  /** `schema` with `change` applied to the struct at `parent` (empty: the top level). */
  def updateStruct(schema: StructType, parent: Seq[String], refuse: String => Nothing)(change: StructType => StructType): StructType = {
    def into(dt: DataType, path: Seq[String]): DataType = (dt, path) match {
      case (s: StructType, Seq()) => change(s)
      case (s: StructType, head +: rest) =>
        val i = indexOf(s, head, refuse)
        StructType(s.fields.updated(i, s.fields(i).copy(dataType = into(s.fields(i).dataType, rest))))
      case (a: ArrayType, "element" +: rest) => a.copy(elementType = into(a.elementType, rest))
      case (m: MapType, "key" +: rest) => m.copy(keyType = into(m.keyType, rest))
      case (m: MapType, "value" +: rest) => m.copy(valueType = into(m.valueType, rest))
      case (other, _) => refuse(s"${parent.mkString(".")} is a ${other.simpleString}, not a struct")
    }
    into(schema, parent).asInstanceOf[StructType]
  }

  /**
   * `path` split where it leaves the last struct field it names: that field's path, and the path
   * within its type (`element`, `key`, `value` steps; empty when `path` ends at the field).
   */
  def splitAtField(schema: StructType, path: Seq[String], refuse: String => Nothing): (Seq[String], Seq[String]) = {
    def walk(dt: DataType, i: Int, lastField: Int): Int = if (i == path.size) lastField else (dt, path(i)) match {
      case (s: StructType, name) => walk(s.fields(indexOf(s, name, refuse)).dataType, i + 1, i)
      case (a: ArrayType, "element") => walk(a.elementType, i + 1, lastField)
      case (m: MapType, "key") => walk(m.keyType, i + 1, lastField)
      case (m: MapType, "value") => walk(m.valueType, i + 1, lastField)
      case (other, step) => refuse(s"${path.take(i).mkString(".")} is a ${other.simpleString}, which has no $step")
    }
    val last = walk(schema, 0, -1)
    (path.take(last + 1), path.drop(last + 1))
  }

  /** The type at `inner` (element, key, value steps) within `dt`. */
  def typeAt(dt: DataType, inner: Seq[String]): DataType = inner.foldLeft(dt) {
    case (a: ArrayType, "element") => a.elementType
    case (m: MapType, "key") => m.keyType
    case (m: MapType, "value") => m.valueType
    case (t, step) => throw new IllegalArgumentException(s"${t.simpleString} has no $step")
  }

  /** `dt` with the type at `inner` (element, key, value steps) replaced by `change` of it. */
  def within(dt: DataType, inner: Seq[String])(change: DataType => DataType): DataType = (dt, inner) match {
    case (t, Seq()) => change(t)
    case (a: ArrayType, "element" +: rest) => a.copy(elementType = within(a.elementType, rest)(change))
    case (m: MapType, "key" +: rest) => m.copy(keyType = within(m.keyType, rest)(change))
    case (m: MapType, "value" +: rest) => m.copy(valueType = within(m.valueType, rest)(change))
    case (t, step +: _) => throw new IllegalArgumentException(s"${t.simpleString} has no $step")
  }

  def indexOf(s: StructType, name: String, refuse: String => Nothing): Int = {
    val i = s.fields.indexWhere(_.name.equalsIgnoreCase(name))
    if (i < 0) refuse(s"there is no column $name")
    i
  }

  /** `fields` with `f` moved to (or inserted at) `position` (None: last). */
  def place(fields: Seq[StructField], f: StructField, position: Option[TableChange.ColumnPosition],
      refuse: String => Nothing): StructType = {
    val rest = fields.filterNot(_.name.equalsIgnoreCase(f.name))
    val at = position match {
      case Some(_: TableChange.First) => 0
      case Some(a: TableChange.After) =>
        val i = rest.indexWhere(_.name.equalsIgnoreCase(a.column))
        if (i < 0) refuse(s"there is no column ${a.column} to place it after")
        i + 1
      case _ => rest.length
    }
    StructType(rest.take(at) ++ (f +: rest.drop(at)))
  }

  /** A position as Delta's commitInfo writes it. */
  def describe(position: TableChange.ColumnPosition): Option[String] = position match {
    case _: TableChange.First => Some("FIRST")
    case a: TableChange.After => Some(s"AFTER ${a.column}")
    case _ => None
  }

  /** A field as Delta's commitInfo writes it: its JSON, named by its path. */
  def fieldJson(name: String, f: StructField): String = {
    val json = StructType(Seq(f.copy(name = name))).json
    val node = io.silt.actions.ActionCodec.mapper.readTree(json).get("fields").get(0)
    io.silt.actions.ActionCodec.mapper.writeValueAsString(node)
  }
}
