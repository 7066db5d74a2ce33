package io.silt.actions

import org.apache.parquet.filter2.predicate.{FilterPredicate, Operators}
import org.apache.parquet.filter2.predicate.Operators._
import org.apache.parquet.io.api.Binary
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * A Parquet filter predicate tested on each row Spark's vectorized reader returns, with Parquet's
 * record-level meaning (a comparison with a null value is false; `= null` is IS NULL): the reader
 * only skips row groups, and a row group of a large checkpoint holds thousands of files a point
 * query's bounds rule out, which are then never decoded into actions.
 */
private[silt] object RowLevelFilter {

  /** The columns a predicate names, as paths. */
  def columns(p: FilterPredicate): Set[Seq[String]] = p match {
    case a: And => columns(a.getLeft) ++ columns(a.getRight)
    case o: Or => columns(o.getLeft) ++ columns(o.getRight)
    case n: Not => columns(n.getPredicate)
    case e: Eq[_] => Set(e.getColumn.getColumnPath.toArray.toSeq)
    case e: NotEq[_] => Set(e.getColumn.getColumnPath.toArray.toSeq)
    case e: Lt[_] => Set(e.getColumn.getColumnPath.toArray.toSeq)
    case e: LtEq[_] => Set(e.getColumn.getColumnPath.toArray.toSeq)
    case e: Gt[_] => Set(e.getColumn.getColumnPath.toArray.toSeq)
    case e: GtEq[_] => Set(e.getColumn.getColumnPath.toArray.toSeq)
    case _ => Set.empty // compile keeps every row then
  }

  /**
   * The predicate as a test of a row of `schema` (the read's requested schema); None, so that every
   * row is kept, when it names a column the schema lacks or uses an operator not handled here.
   */
  def compile(p: FilterPredicate, schema: StructType): Option[InternalRow => Boolean] = p match {
    case a: And => for (l <- compile(a.getLeft, schema); r <- compile(a.getRight, schema)) yield row => l(row) && r(row)
    case o: Or => for (l <- compile(o.getLeft, schema); r <- compile(o.getRight, schema)) yield row => l(row) || r(row)
    case n: Not => compile(n.getPredicate, schema).map(f => row => !f(row))
    case e: Eq[_] => comparison(e.getColumn, e.getValue, schema)((v, x) => v != null && cmp(v, x) == 0, _ == null)
    case e: NotEq[_] => comparison(e.getColumn, e.getValue, schema)((v, x) => v == null || cmp(v, x) != 0, _ != null)
    case e: Lt[_] => comparison(e.getColumn, e.getValue, schema)((v, x) => v != null && cmp(v, x) < 0, _ => false)
    case e: LtEq[_] => comparison(e.getColumn, e.getValue, schema)((v, x) => v != null && cmp(v, x) <= 0, _ => false)
    case e: Gt[_] => comparison(e.getColumn, e.getValue, schema)((v, x) => v != null && cmp(v, x) > 0, _ => false)
    case e: GtEq[_] => comparison(e.getColumn, e.getValue, schema)((v, x) => v != null && cmp(v, x) >= 0, _ => false)
    case _ => None
  }

  /** `test(value, literal)`, or with a null literal `ofNull(value)`, of the column's value in a row. */
  private def comparison(column: Operators.Column[_], literal: Any, schema: StructType)(
      test: (AnyRef, AnyRef) => Boolean, ofNull: AnyRef => Boolean): Option[InternalRow => Boolean] =
    Leaf(column.getColumnPath.toArray.toSeq, schema).map { leaf =>
      if (literal == null) (row: InternalRow) => ofNull(leaf(row))
      else {
        val x = literal match {
          case b: Binary => UTF8String.fromBytes(b.getBytes)
          case other => other.asInstanceOf[AnyRef]
        }
        (row: InternalRow) => test(leaf(row), x)
      }
    }

  private def cmp(v: AnyRef, x: AnyRef): Int = v.asInstanceOf[Comparable[AnyRef]].compareTo(x)

  /** A leaf column's value in a row, boxed as Parquet's filters hold it (INT32 of every width as Integer, strings as UTF8String). */
  private final class Leaf(indexes: Array[Int], sizes: Array[Int], read: (InternalRow, Int) => AnyRef) extends (InternalRow => AnyRef) {
    def apply(row: InternalRow): AnyRef = {
      var r = row
      var i = 0
      while (i < indexes.length - 1) {
        if (r.isNullAt(indexes(i))) return null
        r = r.getStruct(indexes(i), sizes(i))
        i += 1
      }
      if (r.isNullAt(indexes(i))) null else read(r, indexes(i))
    }
  }

  private object Leaf {
    def apply(path: Seq[String], schema: StructType): Option[Leaf] = {
      // (index, struct size) of each step, and the type at the end; None where the path leaves the schema
      val steps = path.foldLeft(Option((Vector.empty[(Int, Int)], schema: DataType))) {
        case (Some((done, st: StructType)), name) if st.fieldNames.contains(name) =>
          val j = st.fieldIndex(name)
          val t = st.fields(j).dataType
          Some((done :+ (j -> (t match { case s: StructType => s.size; case _ => 0 })), t))
        case _ => None
      }
      steps.flatMap { case (done, leafType) => reader(leafType).map(new Leaf(done.map(_._1).toArray, done.map(_._2).toArray, _)) }
    }

    private def reader(leafType: DataType): Option[(InternalRow, Int) => AnyRef] = leafType match {
      case IntegerType | DateType => Some((r, i) => Integer.valueOf(r.getInt(i)))
      case ShortType => Some((r, i) => Integer.valueOf(r.getShort(i).toInt))
      case ByteType => Some((r, i) => Integer.valueOf(r.getByte(i).toInt))
      case LongType => Some((r, i) => java.lang.Long.valueOf(r.getLong(i)))
      case StringType => Some((r, i) => r.getUTF8String(i))
      case BooleanType => Some((r, i) => java.lang.Boolean.valueOf(r.getBoolean(i)))
      case _ => None
    }
  }
}
