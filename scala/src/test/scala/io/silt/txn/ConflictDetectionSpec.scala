package io.silt.txn

import java.nio.file.Files

import io.silt.errors.{ConcurrentAppendException, ConcurrentModificationException}
import io.silt.log.TableLog
import io.silt.write.{TableWriter, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{SaveMode, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{And, AttributeReference, EqualTo, LessThan, Literal}
import org.apache.spark.sql.types.IntegerType
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class ConflictDetectionSpec extends AnyFunSuite with BeforeAndAfterAll {
  private val write = Operation.Write("Append", Nil, None, dynamicPartitionOverwrite = false, Map.empty, None)
  private lazy val spark = SparkSession.builder().master("local[1]").config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "1").getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private def newTable(): Path = {
    val p = new Path(Files.createTempDirectory("silt-txn").resolve("t").toUri)
    import spark.implicits._
    TableWriter.write(spark, p, Seq((1, 1), (2, 2)).toDF("id", "day"), WriteOptions(SaveMode.ErrorIfExists, Some(Seq("day"))))
    p
  }
  private def append(p: Path, day: Int): Unit = {
    import spark.implicits._
    TableWriter.write(spark, p, Seq((9, day)).toDF("id", "day"), WriteOptions(SaveMode.Append))
  }
  private val day = AttributeReference("day", IntegerType)()

  test("a blind append commits on top of a concurrent append") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val txn = OptimisticTransaction.start(spark, log)
    append(p, 1)
    assert(txn.commit(Nil, write) == 2)
  }

  test("an append into a partition that was read is a conflict, and nothing is committed") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val txn = OptimisticTransaction.start(spark, log)
    val read = txn.filesInPartitions(Seq(EqualTo(day, Literal(1))))
    assert(read.size == 1)
    append(p, 1)
    val e = intercept[ConcurrentAppendException](txn.commit(read.map(_.remove(0L)), Operation.Delete(None, Map.empty)))
    assert(e.getMessage.contains("(partition day=1), which may hold rows this transaction read (partitions where (day = 1))"))
    assert(e.getMessage.contains("a concurrent WRITE (version 1)"))
    assert(log.latest().version == 1)
  }

  test("a read condition on data columns conflicts only with added files whose statistics may match it") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val id = AttributeReference("id", IntegerType)()
    // Each transaction removes one file (so it changes data and runs at Serializable).
    def removeFileOf(txn: OptimisticTransaction, day: Int, id: Int) = {
      val f = txn.readSnapshot.get.files.find(f => f.partitionValues("day") == day.toString && f.stats.exists(_.contains(s""""minValues":{"id":$id}"""))).get
      txn.commit(Seq(f.remove(0L)), Operation.Delete(None, Map.empty))
    }
    val below5 = OptimisticTransaction.start(spark, log)
    below5.readRows(Some(LessThan(id, Literal(5))))
    append(p, 1) // id 9: its statistics say no row is below 5
    assert(removeFileOf(below5, 1, 1) == 2)
    val below10 = OptimisticTransaction.start(spark, log)
    below10.readRows(Some(And(LessThan(id, Literal(10)), EqualTo(day, Literal(2)))))
    append(p, 1) // another partition
    assert(removeFileOf(below10, 2, 2) == 4)
    val everything = OptimisticTransaction.start(spark, log)
    everything.readRows(Some(LessThan(id, Literal(10))))
    append(p, 2)
    val e = intercept[ConcurrentAppendException](removeFileOf(everything, 1, 9))
    assert(e.getMessage.contains("rows where (id < 10)"))
    assert(log.latest().version == 5)
  }

  test("an append into another partition does not conflict") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val txn = OptimisticTransaction.start(spark, log)
    val read = txn.filesInPartitions(Seq(EqualTo(day, Literal(1))))
    append(p, 2)
    assert(txn.commit(read.map(_.remove(0L)), Operation.Delete(None, Map.empty)) == 2)
    assert(log.latest().files.size == 2)
  }

  test("two transactions removing the same file: the second fails") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val t1 = OptimisticTransaction.start(spark, log)
    val t2 = OptimisticTransaction.start(spark, log)
    val f1 = t1.filesInPartitions(Seq(EqualTo(day, Literal(2))))
    val f2 = t2.filesInPartitions(Seq(EqualTo(day, Literal(2))))
    t1.commit(f1.map(_.remove(0L)), Operation.Delete(None, Map.empty))
    intercept[ConcurrentModificationException](t2.commit(f2.map(_.remove(0L)), Operation.Delete(None, Map.empty)))
  }

  test("a concurrent schema change fails a writer that read the old schema") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val txn = OptimisticTransaction.start(spark, log)
    import spark.implicits._
    TableWriter.write(spark, p, Seq((1, 1, "x")).toDF("id", "day", "extra"), WriteOptions(SaveMode.Append, mergeSchema = true))
    val e = intercept[ConcurrentModificationException](txn.commit(Nil, write))
    assert(e.getMessage.contains("metadata"))
  }

  test("a rewrite of exactly the files it read (OPTIMIZE) survives blind appends but not a delete of those files") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val optimize = OptimisticTransaction.start(spark, log)
    val files = optimize.readSnapshot.get.files
    optimize.readFiles(files)
    append(p, 1)
    assert(optimize.commit(files.map(_.remove(0L, dataChange = false)), Operation.Optimize(None, OptimizeMode.Compaction, Map.empty)) == 2)
    val second = OptimisticTransaction.start(spark, log)
    val now = second.readSnapshot.get.files
    second.readFiles(now)
    val deleter = OptimisticTransaction.start(spark, log)
    deleter.commit(Seq(now.head.remove(1L)), Operation.Delete(None, Map.empty))
    intercept[ConcurrentModificationException](second.commit(now.map(_.remove(0L, dataChange = false)), Operation.Optimize(None, OptimizeMode.Compaction, Map.empty)))
  }

  test("a dynamic overwrite conflicts with an append into a partition it replaces, not into another") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val replaced = Set(Map("day" -> "1"))
    val t1 = OptimisticTransaction.start(spark, log)
    val files = t1.filesInPartitionValues(replaced)
    assert(files.map(_.partitionValues) == Seq(Map("day" -> "1")))
    append(p, 2)
    assert(t1.commit(files.map(_.remove(0L)), write) == 2)
    val t2 = OptimisticTransaction.start(spark, log)
    val again = t2.filesInPartitionValues(Set(Map("DAY" -> "2")))
    append(p, 2)
    val e = intercept[ConcurrentModificationException](t2.commit(again.map(_.remove(0L)), write))
    assert(e.getMessage.contains("partitions it replaces"))
    assert(log.latest().version == 3)
  }

  test("two writers with the same application id: the second fails, whatever it read") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    val t1 = OptimisticTransaction.start(spark, log)
    val t2 = OptimisticTransaction.start(spark, log)
    t1.commit(Seq(io.silt.actions.SetTransaction("app", 1, None)), write)
    val e = intercept[ConcurrentModificationException](t2.commit(Seq(io.silt.actions.SetTransaction("app", 2, None)),
      write))
    assert(e.getMessage.contains("'app'"))
    assert(log.latest().transactions("app").version == 1)
  }

  test("two writers of the same metadata domain: the second fails; of different domains, both commit") {
    val p = newTable()
    val log = TableLog.forPath(spark, p.toString)
    def domain(name: String) = io.silt.actions.DomainMetadata(name, "{}", removed = false)
    val t1 = OptimisticTransaction.start(spark, log)
    val t2 = OptimisticTransaction.start(spark, log)
    val t3 = OptimisticTransaction.start(spark, log)
    t1.commit(Seq(domain("silt.test")), write)
    val e = intercept[io.silt.errors.ConcurrentTransactionException](t2.commit(Seq(domain("silt.test")), write))
    assert(e.getMessage.contains("metadata domain 'silt.test'") && e.getMessage.contains("version 1"))
    assert(t3.commit(Seq(domain("silt.other")), write) == 2)
    assert(log.latest().domains.keySet == Set("silt.test", "silt.other"))
  }
}
