package io.silt.sql

import scala.jdk.CollectionConverters._

import io.silt.sql.parser.{SiltSqlBaseBaseVisitor, SiltSqlBaseParser => P}
import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}
import io.silt.txn.{CreateMode, OptimizeMode}
import io.silt.vacuum.VacuumMode
import org.antlr.v4.runtime.misc.Interval
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Turns a parse tree of the Silt grammar into command plans; null means "not ours". */
class SiltSqlAstBuilder extends SiltSqlBaseBaseVisitor[AnyRef] {

  override def visitSingleStatement(ctx: P.SingleStatementContext): AnyRef = visit(ctx.statement())

  override def visitPassThrough(ctx: P.PassThroughContext): AnyRef = null

  override def visitDescribeHistory(ctx: P.DescribeHistoryContext): LogicalPlan =
    DescribeHistoryCommand(tableRef(ctx.table), Option(ctx.limit).map(_.getText.toInt))

  override def visitVacuumTable(ctx: P.VacuumTableContext): LogicalPlan = {
    val modifiers = ctx.vacuumModifier().asScala.toSeq
    def once[T](what: String, found: Seq[T]): Option[T] = {
      if (found.size > 1) throw new InvalidTableOperationException(s"VACUUM takes $what once, not ${found.size} times")
      found.headOption
    }
    val mode = once("LITE / FULL", modifiers.flatMap(m => Option(m.vacuumType))).map { t =>
      if (t.getType == P.LITE) VacuumMode.Lite else VacuumMode.Full
    }
    val hours = once("RETAIN", modifiers.flatMap(m => Option(m.number))).map(_.getText.toDouble)
    val dryRun = once("DRY RUN", modifiers.filter(_.DRY != null)).isDefined
    val inventory = once("USING INVENTORY", modifiers.filter(_.INVENTORY != null)).map { m =>
      if (m.inventoryTable != null) s"SELECT * FROM ${m.inventoryTable.getText}" else predicateText(m.inventoryQuery).get
    }
    if (inventory.isDefined && mode.contains(VacuumMode.Lite)) {
      throw new InvalidTableOperationException("VACUUM … LITE cannot take USING INVENTORY: LITE reads the log, an " +
        "inventory replaces the listing of FULL; drop one of them")
    }
    VacuumCommand(tableRef(ctx.table), hours, dryRun, mode.getOrElse(VacuumMode.Full), inventory)
  }

  override def visitRestoreTable(ctx: P.RestoreTableContext): LogicalPlan = {
    val spark = org.apache.spark.sql.SparkSession.active
    val target = if (ctx.version != null) io.silt.read.TimeTravel.AtVersion(ctx.version.getText.toLong)
      else io.silt.read.TimeTravel.AsOfTimestamp(io.silt.read.TimeTravel.parseTimestamp(spark, SiltSqlAstBuilder.unquote(ctx.timestamp.getText)))
    RestoreCommand(tableRef(ctx.table), target)
  }

  override def visitGenerateManifest(ctx: P.GenerateManifestContext): LogicalPlan =
    GenerateCommand(SiltSqlAstBuilder.identifier(ctx.modeName.getText), tableRef(ctx.table))

  override def visitConvertToDelta(ctx: P.ConvertToDeltaContext): LogicalPlan = {
    val schema = Option(ctx.partitionSchema).map(p => org.apache.spark.sql.SparkSession.active.sessionState.sqlParser
      .parseTableSchema(predicateText(p).get))
    ConvertCommand(tableRef(ctx.table), schema, collectStats = ctx.STATISTICS == null)
  }

  override def visitCloneTable(ctx: P.CloneTableContext): LogicalPlan = {
    if (ctx.deep != null) {
      throw new UnsupportedOptionException("DEEP CLONE", "DEEP CLONE is not supported by Silt: use SHALLOW CLONE (no " +
        "data copied), or CREATE TABLE … USING silt AS SELECT * FROM the source to copy the rows")
    }
    val mode = if (ctx.CREATE == null) CreateMode.Replace else if (ctx.REPLACE != null) CreateMode.CreateOrReplace
      else CreateMode.Create
    if (ctx.EXISTS != null && mode != CreateMode.Create) {
      throw new InvalidTableOperationException("IF NOT EXISTS cannot go with REPLACE in a SHALLOW CLONE")
    }
    val spark = org.apache.spark.sql.SparkSession.active
    val version = if (ctx.version != null) io.silt.read.TimeTravel.AtVersion(ctx.version.getText.toLong)
      else if (ctx.timestamp != null) io.silt.read.TimeTravel.AsOfTimestamp(
        io.silt.read.TimeTravel.parseTimestamp(spark, SiltSqlAstBuilder.unquote(ctx.timestamp.getText)))
      else io.silt.read.TimeTravel.Latest
    val clauses = ctx.cloneClause().asScala.toSeq
    if (clauses.count(_.TBLPROPERTIES != null) > 1 || clauses.count(_.LOCATION != null) > 1) {
      throw new InvalidTableOperationException("a SHALLOW CLONE takes TBLPROPERTIES and LOCATION once each")
    }
    val properties = clauses.flatMap(_.property().asScala).map { p =>
      val key = if (p.key.STRING != null) SiltSqlAstBuilder.unquote(p.key.STRING.getText)
        else p.key.qualifiedName.identifier().asScala.map(i => SiltSqlAstBuilder.identifier(i.getText)).mkString(".")
      val value = if (p.value.STRING != null) SiltSqlAstBuilder.unquote(p.value.STRING.getText) else p.value.getText
      key -> value
    }
    val location = clauses.flatMap(c => Option(c.location)).headOption.map(l => SiltSqlAstBuilder.unquote(l.getText))
    CloneCommand(tableRef(ctx.target), tableRef(ctx.source), version, mode, ctx.EXISTS != null, properties.toMap, location)
  }

  override def visitCheckpointTable(ctx: P.CheckpointTableContext): LogicalPlan =
    CheckpointCommand(tableRef(ctx.table))

  override def visitRepairTable(ctx: P.RepairTableContext): LogicalPlan = UniformSyncCommand(tableRef(ctx.table))

  override def visitDescribeFiles(ctx: P.DescribeFilesContext): LogicalPlan =
    DescribeFilesCommand(tableRef(ctx.table))

  override def visitDescribeDetail(ctx: P.DescribeDetailContext): LogicalPlan =
    DescribeDetailCommand(tableRef(ctx.table))

  override def visitReorgTable(ctx: P.ReorgTableContext): LogicalPlan = {
    val mode = Option(ctx.compatVersion).fold[OptimizeMode](OptimizeMode.Purge)(v => OptimizeMode.UpgradeUniform(v.getText.toInt))
    if (ctx.compatVersion != null && ctx.partitionPredicate != null) {
      throw new io.silt.errors.InvalidTableOperationException("REORG TABLE … WHERE … APPLY (UPGRADE UNIFORM(…)) is " +
        "not allowed: the upgrade rewrites the whole table; leave out the WHERE clause")
    }
    OptimizeCommand(tableRef(ctx.table), predicateText(ctx.partitionPredicate), mode)
  }

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

  override def visitDropFeature(ctx: P.DropFeatureContext): LogicalPlan = {
    val f = ctx.feature
    val name = Option(f.STRING).map(s => SiltSqlAstBuilder.unquote(s.getText))
      .getOrElse(f.identifier().asScala.map(i => SiltSqlAstBuilder.identifier(i.getText)).mkString("-"))
    DropFeatureCommand(tableRef(ctx.table), name, ctx.TRUNCATE != null)
  }

  override def visitSyncIdentity(ctx: P.SyncIdentityContext): LogicalPlan =
    SyncIdentityCommand(tableRef(ctx.table), ctx.column.identifier().asScala.map(i => SiltSqlAstBuilder.identifier(i.getText)).toSeq)

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
