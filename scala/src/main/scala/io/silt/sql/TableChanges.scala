package io.silt.sql

import io.silt.config.SiltSettings
import io.silt.errors.InvalidTableOperationException
import io.silt.log.TableLog
import io.silt.read.{ChangeBound, ChangeFeed, TimeTravel}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{ByteType, IntegerType, LongType, ShortType, StringType}

/**
 * The SQL table functions of the change data feed, as Delta Lake names them:
 * `table_changes('table', start[, end])` and `table_changes_by_path('/path', start[, end])`, where
 * a bound is a version (an integer) or a timestamp (a string).
 */
object TableChanges {
  type Registration = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan)

  val byName: Registration = registration("table_changes", (spark, name) =>
    TableRef.ByName(spark.sessionState.sqlParser.parseMultipartIdentifier(name)).path(spark).toString)

  val byPath: Registration = registration("table_changes_by_path", (_, path) => path)

  private def registration(name: String, pathOf: (SparkSession, String) => String): Registration = (
    FunctionIdentifier(name),
    new ExpressionInfo(getClass.getName, null, name, s"$name(table, start[, end]): the change data feed rows of the " +
      "versions from start to end (the latest when left out); a bound is a version or a timestamp", "", "", "", "",
      "", "", ""),
    (args: Seq[Expression]) => {
      val spark = SparkSession.active
      if (args.size < 2 || args.size > 3) {
        throw new InvalidTableOperationException(s"$name takes a table, a start and an optional end, not ${args.size} arguments")
      }
      val table = constant(name, args.head, "table").toString
      def bound(e: Expression, what: String): ChangeBound = e.dataType match {
        case ByteType | ShortType | IntegerType | LongType => ChangeBound.AtVersion(constant(name, e, what).toString.toLong)
        case StringType =>
          val text = constant(name, e, what).toString
          ChangeBound.AtTime(TimeTravel.parseTimestamp(spark, text, s"$name $what"), text)
        case other => throw new InvalidTableOperationException(s"the $what of $name must be a version (integer) or " +
          s"a timestamp (string), not ${other.simpleString}")
      }
      val log = TableLog.forPath(spark, pathOf(spark, table))
      val (from, to) = ChangeFeed.range(log, bound(args(1), "start"), args.lift(2).map(bound(_, "end")),
        SiltSettings.ChangeFeedTimestampOutOfRange(spark))
      ChangeFeed.changes(spark, log, from, to).queryExecution.analyzed
    })

  private def constant(function: String, e: Expression, what: String): Any = {
    if (!e.foldable) throw new InvalidTableOperationException(s"the $what of $function must be a constant, not ${e.sql}")
    Option(e.eval()).getOrElse(throw new InvalidTableOperationException(s"the $what of $function must not be null"))
  }
}
