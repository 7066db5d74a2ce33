package io.silt.shims

import scala.collection.mutable.ArrayBuffer
import scala.util.Try

import io.silt.errors.InvalidTableOperationException
import io.silt.spark.UpperCaseCharStream
import org.antlr.v4.runtime.{CharStreams, CommonTokenStream, Token}
import org.apache.spark.sql.catalyst.analysis.UnresolvedTable
import org.apache.spark.sql.catalyst.parser.{ParserInterface, SqlBaseLexer}
import org.apache.spark.sql.catalyst.plans.logical.{CreateTable, CreateTableAsSelect, LogicalPlan, ReplaceTable, ReplaceTableAsSelect}
import org.apache.spark.sql.types.StructType

/**
 * Spark 4's table-definition clauses that Spark 3.5's SQL lacks, read around Spark 3.5's parser:
 * `CLUSTER BY (cols)` of CREATE / REPLACE TABLE, `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [( … )]`
 * of a column, and `ALTER TABLE t CLUSTER BY (cols) | NONE`. The clauses are blanked out of the text
 * (so Spark's errors keep their positions), Spark parses the rest, and the plan gets them back as the
 * transform, column metadata or table change that [[CatalogDefinitions]] reads.
 */
object DefinitionClauses {
  private final case class Tok(text: String, start: Int, stop: Int, quoted: Boolean) {
    def is(word: String): Boolean = !quoted && text.equalsIgnoreCase(word)
  }

  private val TableProviders = Set("delta", "silt")

  private final case class Identity(column: String, start: Long, step: Long, byDefault: Boolean)

  /** The plan of `sqlText` when it holds one of the clauses; None leaves it to Spark's parser as it is. */
  def parse(sqlText: String, delegate: ParserInterface): Option[LogicalPlan] = {
    val toks = tokens(sqlText)
    if (toks.length < 4) None
    else if (toks(0).is("ALTER") && toks(1).is("TABLE")) alterClusterBy(sqlText, toks, delegate)
    else if ((toks(0).is("CREATE") || toks(0).is("REPLACE")) && toks.take(6).exists(_.is("TABLE"))) {
      definition(sqlText, toks, delegate)
    } else None
  }

  private def tokens(sqlText: String): IndexedSeq[Tok] = {
    val lexer = new SqlBaseLexer(new UpperCaseCharStream(CharStreams.fromString(sqlText)))
    lexer.removeErrorListeners()
    val stream = new CommonTokenStream(lexer)
    stream.fill()
    val quoted = Set(SqlBaseLexer.BACKQUOTED_IDENTIFIER, SqlBaseLexer.STRING_LITERAL, SqlBaseLexer.DOUBLEQUOTED_STRING)
    (0 until stream.size).map(stream.get).filter(t => t.getChannel == Token.DEFAULT_CHANNEL && t.getType != Token.EOF)
      .map(t => Tok(t.getText, t.getStartIndex, t.getStopIndex, quoted(t.getType))).toIndexedSeq
  }

  /** `ALTER TABLE name CLUSTER BY (cols) | NONE` as a table change on the resolved table. */
  private def alterClusterBy(sqlText: String, toks: IndexedSeq[Tok], delegate: ParserInterface): Option[LogicalPlan] = {
    val at = toks.indexWhere(_.is("CLUSTER"))
    if (at < 3 || !toks.lift(at + 1).exists(_.is("BY"))) return None
    val rest = toks.drop(at + 2).filterNot(_.text == ";")
    val columns =
      if (rest.length == 1 && rest.head.is("NONE")) Seq.empty[String]
      else columnList(sqlText, rest, 0, delegate) match {
        case Some((cols, end)) if end == rest.length - 1 => cols
        case _ => return None
      }
    val name = delegate.parseMultipartIdentifier(sqlText.substring(toks(2).start, toks(at - 1).stop + 1))
    Some(AlterTableClusterBy(UnresolvedTable(name, "ALTER TABLE ... CLUSTER BY", None), columns))
  }

  /**
   * The columns of a parenthesized list starting at `toks(open)`, each a (dotted) name, and the index
   * of its closing parenthesis; None when it is not such a list.
   */
  private def columnList(sqlText: String, toks: IndexedSeq[Tok], open: Int,
      delegate: ParserInterface): Option[(Seq[String], Int)] = {
    if (!toks.lift(open).exists(_.text == "(")) return None
    val close = toks.indexWhere(_.text == ")", open)
    if (close < 0 || toks.slice(open + 1, close).exists(_.text == "(")) return None
    val names = ArrayBuffer.empty[Seq[Tok]]
    var current = ArrayBuffer.empty[Tok]
    toks.slice(open + 1, close).foreach { t =>
      if (t.text == ",") { names += current.toSeq; current = ArrayBuffer.empty } else current += t
    }
    names += current.toSeq
    if (names.exists(_.isEmpty)) return None
    val columns = names.map(n => delegate.parseMultipartIdentifier(sqlText.substring(n.head.start, n.last.stop + 1)))
    Some((columns.map(_.mkString(".")).toSeq, close))
  }

  /** CREATE / REPLACE TABLE with CLUSTER BY or identity columns: Spark's plan of the rest, with them put back. */
  private def definition(sqlText: String, toks: IndexedSeq[Tok], delegate: ParserInterface): Option[LogicalPlan] = {
    val blanks = ArrayBuffer.empty[(Int, Int)]
    val identities = ArrayBuffer.empty[Identity]
    var clusterBy: Option[Seq[String]] = None
    var depth = 0
    var groups = 0 // top-level parenthesized groups seen: the first right after the name is the column list
    var column: Option[String] = None
    var i = 0
    while (i < toks.length) {
      val t = toks(i)
      if (depth == 0 && t.is("AS")) i = toks.length // the query of CREATE TABLE … AS: none of its clauses are ours
      else if (depth == 0 && t.is("CLUSTER") && toks.lift(i + 1).exists(_.is("BY"))) {
        columnList(sqlText, toks, i + 2, delegate) match {
          case Some((cols, close)) =>
            if (clusterBy.isDefined) throw new InvalidTableOperationException("CLUSTER BY is given twice")
            clusterBy = Some(cols)
            blanks += ((t.start, toks(close).stop))
            i = close + 1
          case None => i = toks.length
        }
      } else {
        if (t.text == "(") { depth += 1; if (depth == 1) groups += 1 }
        if (t.text == ")") depth -= 1
        if (depth == 1 && groups == 1 && (t.text == "(" || t.text == ",")) {
          column = toks.lift(i + 1).flatMap(c => Try(delegate.parseMultipartIdentifier(c.text).mkString(".")).toOption)
        }
        if (groups == 1 && depth == 1 && t.is("GENERATED")) identityAt(toks, i, column) match {
          case Some((identity, last)) =>
            identities += identity
            blanks += ((t.start, toks(last).stop))
            i = last
          case None =>
        }
        i += 1
      }
    }
    if (clusterBy.isEmpty && identities.isEmpty) return None
    val blanked = blanks.foldLeft(sqlText) { case (text, (from, to)) =>
      text.substring(0, from) + text.substring(from, to + 1).map(c => if (c == '\n') c else ' ') + text.substring(to + 1)
    }
    val transforms = clusterBy.map(ClusterByTransform(_)).toSeq
    val plan = delegate.parsePlan(blanked)
    // A table of another provider never reaches Silt's catalog (Spark 3.5 creates it itself): refused here.
    plan match {
      case c: CreateTable if identities.nonEmpty && !c.tableSpec.provider.map(_.toLowerCase).exists(TableProviders) =>
        throw new InvalidTableOperationException(s"identity column ${identities.head.column}: a table with provider " +
          s"${c.tableSpec.provider.getOrElse("(none)")} has no identity columns; create it USING delta")
      case _ =>
    }
    Some(plan match {
      case c: CreateTable => c.copy(tableSchema = withIdentities(c.tableSchema, identities.toSeq),
        partitioning = c.partitioning ++ transforms)
      case r: ReplaceTable => r.copy(tableSchema = withIdentities(r.tableSchema, identities.toSeq),
        partitioning = r.partitioning ++ transforms)
      case c: CreateTableAsSelect if identities.isEmpty => c.copy(partitioning = c.partitioning ++ transforms)
      case r: ReplaceTableAsSelect if identities.isEmpty => r.copy(partitioning = r.partitioning ++ transforms)
      case other => throw new InvalidTableOperationException(s"CLUSTER BY and identity columns are clauses of a " +
        s"table's definition (CREATE or REPLACE TABLE … USING delta), not of ${other.nodeName}")
    })
  }

  /**
   * The identity clause starting at `toks(at)` (GENERATED), and the index of its last token; None when
   * the column is generated by an expression instead.
   */
  private def identityAt(toks: IndexedSeq[Tok], at: Int, column: Option[String]): Option[(Identity, Int)] = {
    def word(i: Int, w: String) = toks.lift(i).exists(_.is(w))
    val (byDefault, asAt) =
      if (word(at + 1, "ALWAYS")) (false, at + 2)
      else if (word(at + 1, "BY") && word(at + 2, "DEFAULT")) (true, at + 3)
      else return None
    if (!word(asAt, "AS") || !word(asAt + 1, "IDENTITY") || column.isEmpty) return None
    var start = 1L
    var step = 1L
    var i = asAt + 1
    if (toks.lift(i + 1).exists(_.text == "(")) {
      i += 2
      while (!toks.lift(i).exists(_.text == ")")) {
        val isStart = word(i, "START") && word(i + 1, "WITH")
        if (!isStart && !(word(i, "INCREMENT") && word(i + 1, "BY"))) return None
        val (value, last) = number(toks, i + 2).getOrElse(return None)
        if (isStart) start = value else step = value
        i = last + 1
      }
    }
    Some((Identity(column.get, start, step, byDefault), i))
  }

  /** A signed whole number at `toks(at)`, and the index of its last token. */
  private def number(toks: IndexedSeq[Tok], at: Int): Option[(Long, Int)] = {
    val (sign, digitsAt) = toks.lift(at).map(_.text) match {
      case Some("-") => (-1L, at + 1)
      case Some("+") => (1L, at + 1)
      case _ => (1L, at)
    }
    toks.lift(digitsAt).flatMap(t => Try(t.text.stripSuffix("L").stripSuffix("l").toLong).toOption)
      .map(v => (sign * v, digitsAt))
  }

  private def withIdentities(schema: StructType, identities: Seq[Identity]): StructType = {
    identities.foreach { id =>
      if (!schema.fieldNames.contains(id.column)) throw new InvalidTableOperationException(s"identity column ${id.column} " +
        "is not a top-level column of the table")
    }
    StructType(schema.fields.map(f => identities.find(_.column == f.name)
      .map(id => CatalogDefinitions.withIdentity(f, id.start, id.step, id.byDefault)).getOrElse(f)))
  }
}
