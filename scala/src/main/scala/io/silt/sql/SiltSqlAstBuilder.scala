package io.silt.sql

import scala.jdk.CollectionConverters._

import io.silt.sql.parser.{SiltSqlBaseBaseVisitor, SiltSqlBaseParser => P}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Turns a parse tree of the Silt grammar into command plans; null means "not ours". */
class SiltSqlAstBuilder extends SiltSqlBaseBaseVisitor[AnyRef] {

  override def visitSingleStatement(ctx: P.SingleStatementContext): AnyRef = visit(ctx.statement())

  override def visitPassThrough(ctx: P.PassThroughContext): AnyRef = null

  override def visitDescribeHistory(ctx: P.DescribeHistoryContext): LogicalPlan =
    DescribeHistoryCommand(tableRef(ctx.table), Option(ctx.limit).map(_.getText.toInt))

  override def visitDescribeDetail(ctx: P.DescribeDetailContext): LogicalPlan =
    DescribeDetailCommand(tableRef(ctx.table))

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
