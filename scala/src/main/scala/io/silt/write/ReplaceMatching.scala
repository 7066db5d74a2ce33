package io.silt.write

import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}

/**
 * Delta Lake's dynamic data overwrite (write options `replaceUsing`, `replaceOn` and
 * `targetAlias`): an overwrite that replaces only the table's rows matching a row of the data,
 * on equal key columns or on a condition, and keeps the rest. Run by `dml.ReplaceMatchingRows`.
 */
sealed trait ReplaceMatching

object ReplaceMatching {
  /** Rows whose `columns` equal a data row's (NULL matches nothing, as in a join). */
  final case class Using(columns: Seq[String]) extends ReplaceMatching
  /** Rows for which `condition` holds with a data row; the table is named `targetAlias` in it. */
  final case class On(condition: String, targetAlias: Option[String]) extends ReplaceMatching
  /** Rows for which `predicate` (on the table's columns, data columns among them) holds: replaceWhere. */
  final case class Where(predicate: String) extends ReplaceMatching

  /** Write options (keys lower-cased) whose use with a dynamic data overwrite Silt refuses. */
  private val NotWith = Seq("replacewhere" -> "replaceWhere", "partitionoverwritemode" -> "partitionOverwriteMode",
    "mergeschema" -> "mergeSchema", "overwriteschema" -> "overwriteSchema", "txnappid" -> "txnAppId",
    "txnversion" -> "txnVersion", "datachange" -> "dataChange", "maxrecordsperfile" -> "maxRecordsPerFile",
    "compression" -> "compression")

  /** The error for a dynamic data overwrite where it cannot run: an INSERT, a stream, or a table not there yet. */
  def notHere(table: String): InvalidTableOperationException = new InvalidTableOperationException(
    s"options replaceUsing and replaceOn replace rows of the existing table $table, by a DataFrame write in mode " +
      "'overwrite' (save or saveAsTable); they do not apply to this write (INSERT, a stream, or a table that does " +
      "not exist yet)")

  /** From a write's options (keys lower-cased): None without replaceUsing and replaceOn. */
  def fromOptions(lower: Map[String, String], overwrite: Boolean): Option[ReplaceMatching] = {
    val using = lower.get("replaceusing")
    val on = lower.get("replaceon")
    val alias = lower.get("targetalias")
    if (alias.isDefined && on.isEmpty) throw new UnsupportedOptionException("targetAlias",
      "option targetAlias names the table in a replaceOn condition; give replaceOn too, or leave it out")
    if (using.isEmpty && on.isEmpty) return None
    val given = if (using.isDefined) "replaceUsing" else "replaceOn"
    if (using.isDefined && on.isDefined) throw new InvalidTableOperationException(
      "options replaceUsing and replaceOn cannot both be set: each says which rows the write replaces")
    if (!overwrite) throw new InvalidTableOperationException(s"option $given replaces rows, so it applies to mode " +
      "'overwrite' only; append without it")
    NotWith.collectFirst { case (k, name) if lower.contains(k) => name }.foreach { name =>
      throw new UnsupportedOptionException(name, s"option $name cannot be used with $given, which says which rows " +
        "the write replaces; write without one of them" + (if (name.startsWith("txn")) " (or use MERGE)" else ""))
    }
    lower.keys.find(_.startsWith("delta.")).foreach { k =>
      throw new UnsupportedOptionException(k, s"option $k would set a table property in a write with $given, which " +
        "writes to an existing table only; use ALTER TABLE … SET TBLPROPERTIES")
    }
    Some(using.map { text =>
      val columns = text.split(",").map(_.trim).toSeq
      if (columns.exists(_.isEmpty)) throw new UnsupportedOptionException("replaceUsing",
        s"replaceUsing = '$text' must be a comma-separated list of column names")
      Using(columns)
    }.getOrElse {
      if (on.get.trim.isEmpty) throw new UnsupportedOptionException("replaceOn", "replaceOn needs a condition")
      On(on.get, alias.map(_.trim).filter(_.nonEmpty))
    })
  }
}
