package io.silt.sql

import scala.jdk.CollectionConverters._

import io.silt.sql.parser.{SiltSqlBaseBaseVisitor, SiltSqlBaseParser => P}
import io.silt.txn.OptimizeMode
import org.antlr.v4.runtime.misc.Interval
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Turns a parse tree of the Silt grammar into command plans; null means "not ours". */
class SiltSqlAstBuilder extends SiltSqlBaseBaseVisitor[AnyRef] {

  override def visitSingleStatement(ctx: P.SingleStatementContext): AnyRef = visit(ctx.statement())

  override def visitPassThrough(ctx: P.PassThroughContext): AnyRef = null

  override def visitDescribeHistory(ctx: P.DescribeHistoryContext): LogicalPlan =
    DescribeHistoryCommand(tableRef(ctx.table), Option(ctx.limit).map(_.getText.toInt))

  override def visitVacuumTable(ctx: P.VacuumTableContext): LogicalPlan =
    VacuumCommand(tableRef(ctx.table), Option(ctx.number).map(_.getText.toDouble), ctx.DRY != null)

  override def visitRestoreTable(ctx: P.RestoreTableContext): LogicalPlan = {
    val spark = org.apache.spark.sql.SparkSession.active
    val target = if (ctx.version != null) io.silt.read.TimeTravel.AtVersion(ctx.version.getText.toLong)
      else io.silt.read.TimeTravel.AsOfTimestamp(io.silt.read.TimeTravel.parseTimestamp(spark, SiltSqlAstBuilder.unquote(ctx.timestamp.getText)))
    RestoreCommand(tableRef(ctx.table), target)
  }

  override def visitCheckpointTable(ctx: P.CheckpointTableContext): LogicalPlan =
    CheckpointCommand(tableRef(ctx.table))

  override def visitDescribeFiles(ctx: P.DescribeFilesContext): LogicalPlan =
    DescribeFilesCommand(tableRef(ctx.table))

  override def visitDescribeDetail(ctx: P.DescribeDetailContext): LogicalPlan =
    DescribeDetailCommand(tableRef(ctx.table))

  override def visitReorgTable(ctx: P.ReorgTableContext): LogicalPlan =
    OptimizeCommand(tableRef(ctx.table), predicateText(ctx.partitionPredicate), OptimizeMode.Purge)

  private def predicateText(p: P.PredicateTokenContext): Option[String] = Option(p).map { p =>
    p.start.getInputStream.getText(Interval.of(p.start.getStartIndex, p.stop.getStopIndex))
  }

  override def visitOptimizeTable(ctx: P.OptimizeTableContext): LogicalPlan = {
    val predicate = predicateText(ctx.partitionPredicate)
    val columns = Option(ctx.zorderSpec).map(_.qualifiedName().asScala.map(q =>
      q.identifier().asScala.map(i => SiltSqlAstBuilder.identifier(i.getText)).mkString(".")).toSeq).getOrElse(Nil)
    val mode = if (ctx.full != null) OptimizeMode.Full
      else if (columns.isEmpty) OptimizeMode.Compaction else OptimizeMode.ZOrder(columns)
    OptimizeCommand(tableRef(ctx.table), predicate, mode)
  }

  override def visitAddConstraint(ctx: P.AddConstraintContext): LogicalPlan =
    AddConstraintCommand(tableRef(ctx.table), SiltSqlAstBuilder.identifier(ctx.name.getText),
      predicateText(ctx.condition).get)

  override def visitDropConstraint(ctx: P.DropConstraintContext): LogicalPlan =
    DropConstraintCommand(tableRef(ctx.table), SiltSqlAstBuilder.identifier(ctx.name.getText), ctx.EXISTS != null)

  override def visitSetNotNull(ctx: P.SetNotNullContext): LogicalPlan =
    SetNotNullCommand(tableRef(ctx.table), ctx.column.identifier().asScala.map(i => SiltSqlAstBuilder.identifier(i.getText)).toSeq)

  private def tableRef(ctx: P.TableRefContext): TableRef =
    if (ctx.path != null) TableRef.ByPath(SiltSqlAstBuilder.unquote(ctx.path.getText))
    else TableRef.ByName(ctx.qualifiedName().identifier().asScala.map(i => SiltSqlAstBuilder.identifier(i.getText)).toSeq)
}

object SiltSqlAstBuilder {
  /** The text of a quoted string literal, with backslash escapes resolved. */
  def unquote(raw: String): String = {
    val body = raw.substring(1, raw.length - 1)
    val sb = new StringBuilder
    var i = 0
    while (i < body.length) {
      val c = body.charAt(i)
      if (c == '\\' && i + 1 < body.length) {
        sb.append(body.charAt(i + 1) match { case 'n' => '\n'; case 't' => '\t'; case o => o })
        i += 2
      } else { sb.append(c); i += 1 }
    }
    sb.toString
  }

  def identifier(raw: String): String =
    if (raw.startsWith("`")) raw.substring(1, raw.length - 1).replace("``", "`") else raw
}
