package io.silt.sql

import io.silt.txn.OptimizeMode
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.scalatest.funsuite.AnyFunSuite

class SiltSqlParserSpec extends AnyFunSuite {
  private val parser = new SiltSqlParser(CatalystSqlParser)

  test("OPTIMIZE in its forms, case-insensitive") {
    assert(parser.parseSilt("OPTIMIZE events") == Some(OptimizeCommand(TableRef.ByName(Seq("events")), None, OptimizeMode.Compaction)))
    assert(parser.parseSilt("optimize '/data/t' where day = 25 and city = 'a b' zorder by (city, id)") ==
      Some(OptimizeCommand(TableRef.ByPath("/data/t"), Some("day = 25 and city = 'a b'"), OptimizeMode.ZOrder(Seq("city", "id")))))
    assert(parser.parseSilt("OPTIMIZE silt.`/data/t` ZORDER BY a.b, `c d`;") ==
      Some(OptimizeCommand(TableRef.ByName(Seq("silt", "/data/t")), None, OptimizeMode.ZOrder(Seq("a.b", "c d")))))
  }

  test("DESCRIBE HISTORY and DETAIL") {
    assert(parser.parseSilt("DESCRIBE HISTORY db.t LIMIT 3") == Some(DescribeHistoryCommand(TableRef.ByName(Seq("db", "t")), Some(3))))
    assert(parser.parseSilt("desc detail 'p'") == Some(DescribeDetailCommand(TableRef.ByPath("p"))))
  }

  test("other statements are not ours") {
    assert(parser.parseSilt("SELECT 1").isEmpty)
    assert(parser.parseSilt("DESCRIBE TABLE t").isEmpty)
    assert(parser.parseSilt("OPTIMIZE").isEmpty)
    assert(parser.parseSilt("OPTIMIZE t ZORDER BY ()").isEmpty)
  }
}
