package io.silt.sql

import io.silt.write.{SyncIdentity, TableConstraints}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/** ALTER TABLE t ADD CONSTRAINT name CHECK (condition). */
final case class AddConstraintCommand(table: TableRef, name: String, condition: String) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    TableConstraints.add(spark, table.path(spark), name, condition)
    Nil
  }
}

/** ALTER TABLE t DROP CONSTRAINT [IF EXISTS] name. */
final case class DropConstraintCommand(table: TableRef, name: String, ifExists: Boolean) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    TableConstraints.drop(spark, table.path(spark), name, ifExists)
    Nil
  }
}

/** ALTER TABLE t ALTER COLUMN c SET NOT NULL: the rows are checked first (Spark's analyzer would refuse it). */
final case class SetNotNullCommand(table: TableRef, column: Seq[String]) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    TableConstraints.setNotNull(spark, table.path(spark), column)
    Nil
  }
}

/** ALTER TABLE … ALTER COLUMN c SYNC IDENTITY: the identity column's high-water mark brought up to its values. */
final case class SyncIdentityCommand(table: TableRef, column: Seq[String]) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    SyncIdentity.run(spark, table.path(spark), column)
    Nil
  }
}
