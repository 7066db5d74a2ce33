package io.silt.txn

import io.silt.actions.{AddFile, RemoveFile}
import io.silt.dv.{DeletionVectorDescriptor, DeletionVectorReader, DeletionVectorWriter, DvStorage, RoaringBitmapArray}
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

class MarkedRowsSpec extends AnyFunSuite {
  /** Deletion vectors kept in memory, named by their pathOrInlineDv. */
  private final class Vectors extends DeletionVectorReader with DeletionVectorWriter {
    var stored = Map.empty[String, RoaringBitmapArray]
    def dv(name: String, rows: Long*): DeletionVectorDescriptor = {
      stored += name -> RoaringBitmapArray.of(rows: _*)
      DeletionVectorDescriptor(DvStorage.Absolute, name, Some(1), 10, rows.size.toLong)
    }
    override def rows(file: String, d: Option[DeletionVectorDescriptor]): RoaringBitmapArray =
      d.map(x => stored(x.pathOrInlineDv)).getOrElse(new RoaringBitmapArray())
    override def write(bitmaps: Seq[RoaringBitmapArray]): Seq[DeletionVectorDescriptor] =
      bitmaps.map(b => dv(s"written-${stored.size}", b.toArray.toSeq: _*))
  }

  private val table = new Path("file:/t")
  private val fail = (why: String) => throw new IllegalStateException(why)
  private def file(path: String, dv: Option[DeletionVectorDescriptor], rows: Long = 10) =
    AddFile(path, Map.empty, 100, 0, dataChange = true, stats = Some(s"""{"numRecords":$rows}"""), deletionVector = dv)

  test("a transaction's marks are its vector less the one it read, and a rebase unites them with the winner's") {
    val v = new Vectors
    val read = file("a.parquet", Some(v.dv("read", 0)))
    val ours = read.copy(deletionVector = Some(v.dv("ours", 0, 1, 2)))
    val other = file("b.parquet", None)
    val marked = new MarkedRows(table, Seq(read.remove(1), ours, other.remove(1)), v)
    val a = "file:/t/a.parquet"
    assert(marked.marks(a) && marked.marks("file:/t/b.parquet") && !marked.marks("file:/t/c.parquet"))
    assert(marked.rowsOf(a).toArray.toSeq == Seq(1L, 2L))
    // b.parquet is dropped: every row of it is ours
    assert(marked.rowsOf("file:/t/b.parquet").cardinality == 10)

    val theirs = read.copy(deletionVector = Some(v.dv("theirs", 0, 5)))
    marked.rebase(Map(a -> Rebase.Remarked(theirs)), None, v, now = 7, fail)
    assert(marked.base(a).deletionVector == theirs.deletionVector)
    assert(marked.rowsOf(a).toArray.toSeq == Seq(1L, 2L))
    val actions = marked.applyTo(Seq(read.remove(1), ours, other.remove(1)))
    val add = actions.collect { case x: AddFile => x }
    assert(add.size == 1 && v.rows(add.head.path, add.head.deletionVector).toArray.toSeq == Seq(0L, 1L, 2L, 5L))
    assert(actions.collect { case r: RemoveFile => r.deletionVector }.toSet == Set(theirs.deletionVector, None))
  }

  test("a rebase that leaves no row of a file drops it") {
    val v = new Vectors
    val read = file("a.parquet", None, rows = 3)
    val ours = read.copy(deletionVector = Some(v.dv("ours", 0, 1)))
    val marked = new MarkedRows(table, Seq(read.remove(1), ours), v)
    marked.rebase(Map("file:/t/a.parquet" -> Rebase.Remarked(read.copy(deletionVector = Some(v.dv("theirs", 2))))), None, v,
      now = 7, fail)
    val actions = marked.applyTo(Seq(read.remove(1), ours))
    assert(actions.collect { case x: AddFile => x }.isEmpty)
    assert(actions.collect { case r: RemoveFile => r.deletionVector.map(_.pathOrInlineDv) } == Seq(Some("theirs")))
  }

  test("marks on a rewritten file move to the files the rewrite wrote, and stay there for the next rebase") {
    val v = new Vectors
    val read = file("a.parquet", None)
    val ours = read.copy(deletionVector = Some(v.dv("ours", 1, 7)))
    val marked = new MarkedRows(table, Seq(read.remove(1), ours), v)
    val (x, y) = (file("x.parquet", None).copy(dataChange = false), file("y.parquet", None).copy(dataChange = false))
    val mover = new RowMover {
      override def moved(from: RemoveFile, rows: RoaringBitmapArray, onto: Seq[AddFile]) =
        Some(Map("x.parquet" -> RoaringBitmapArray.of(4), "y.parquet" -> RoaringBitmapArray.of(0)))
    }
    marked.rebase(Map("file:/t/a.parquet" -> Rebase.Moved(Seq(x, y))), Some(mover), v, now = 7, fail)
    assert(marked.paths == Set("file:/t/x.parquet", "file:/t/y.parquet"))
    val actions = marked.applyTo(Seq(read.remove(1), ours))
    assert(actions.collect { case r: RemoveFile => r.path }.toSet == Set("x.parquet", "y.parquet"))
    val adds = actions.collect { case a: AddFile => a.path -> v.rows(a.path, a.deletionVector).toArray.toSeq }.toMap
    assert(adds == Map("x.parquet" -> Seq(4L), "y.parquet" -> Seq(0L)))
    assert(actions.collect { case a: AddFile => a.dataChange }.forall(identity))
    // applied again to what it gave: each file still once
    assert(marked.applyTo(actions).size == actions.size)
    // without a way to follow the rows, the rebase fails
    val again = new MarkedRows(table, Seq(read.remove(1), ours), v)
    assert(intercept[IllegalStateException](again.rebase(Map("file:/t/a.parquet" -> Rebase.Moved(Seq(x))), None, v, 7, fail))
      .getMessage.contains("needs row tracking"))
  }
}
