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
    marked.rebase(Map(a -> theirs), v, now = 7)
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
    marked.rebase(Map("file:/t/a.parquet" -> read.copy(deletionVector = Some(v.dv("theirs", 2)))), v, now = 7)
    val actions = marked.applyTo(Seq(read.remove(1), ours))
    assert(actions.collect { case x: AddFile => x }.isEmpty)
    assert(actions.collect { case r: RemoveFile => r.deletionVector.map(_.pathOrInlineDv) } == Seq(Some("theirs")))
  }
}
