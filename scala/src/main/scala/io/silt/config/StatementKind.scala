package io.silt.config

/**
 * What a statement does to a table, as far as a session setting can change it: the statements a
 * Delta Lake setting Silt does not implement is refused at (see [[DeltaSessionKeys]]).
 */
sealed abstract class StatementKind(val name: String) extends Serializable {
  override def toString: String = name
}

object StatementKind {
  /** A batch scan of a table (a query, time travel, and what DML and OPTIMIZE read of it). */
  case object Read extends StatementKind("READ")
  /** An append, overwrite, INSERT or CREATE … AS SELECT. */
  case object Write extends StatementKind("WRITE")
  case object Delete extends StatementKind("DELETE")
  case object Update extends StatementKind("UPDATE")
  case object Merge extends StatementKind("MERGE")
  /** OPTIMIZE, ZORDER BY, REORG, auto compaction. */
  case object Optimize extends StatementKind("OPTIMIZE")
  case object Vacuum extends StatementKind("VACUUM")
  case object Restore extends StatementKind("RESTORE")
  case object Clone extends StatementKind("CLONE")
  case object Convert extends StatementKind("CONVERT")
  /** CREATE / REPLACE / ALTER TABLE: schema, properties, constraints, clustering, features. */
  case object Ddl extends StatementKind("DDL")
  /** A streaming read or write of a table. */
  case object Stream extends StatementKind("STREAM")
  /** A read of the change data feed. */
  case object ChangeFeed extends StatementKind("CHANGE_FEED")
  /** Every commit (its log entry, the checkpoint after it). */
  case object Commit extends StatementKind("COMMIT")
  /** Every statement that opens a table. */
  case object Any extends StatementKind("ANY")

  val all: Seq[StatementKind] = Seq(Read, Write, Delete, Update, Merge, Optimize, Vacuum, Restore, Clone, Convert, Ddl,
    Stream, ChangeFeed, Commit, Any)

  def named(name: String): StatementKind = all.find(_.name.equalsIgnoreCase(name.trim))
    .getOrElse(throw new IllegalArgumentException(s"no statement kind $name; the kinds are ${all.mkString(", ")}"))
}
