package io.silt.catalog

import java.util

import scala.jdk.CollectionConverters._

import io.silt.txn.CreateMode
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.connector.catalog.{Identifier, StagedTable, SupportsWrite, Table, TableCapability}
import org.apache.spark.sql.connector.catalog.TableCapability._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, SupportsTruncate, V1Write, WriteBuilder}
import org.apache.spark.sql.sources.InsertableRelation
import org.apache.spark.sql.types.StructType

/** Which staged statement: CREATE TABLE AS SELECT, REPLACE TABLE [AS SELECT], or CREATE OR REPLACE. */
sealed abstract class StagedKind(val mayExist: Boolean, val mustExist: Boolean, val mode: CreateMode) extends Serializable {
}
object StagedKind {
  case object Create extends StagedKind(mayExist = false, mustExist = false, CreateMode.Create)
  case object Replace extends StagedKind(mayExist = true, mustExist = true, CreateMode.Replace)
  case object CreateOrReplace extends StagedKind(mayExist = true, mustExist = false, CreateMode.CreateOrReplace)
}

/**
 * A table being created or replaced: Spark writes the query into it (which only captures the
 * query and its write options), then commits it, and [[SiltCatalog]] writes the data and the new
 * definition in one commit. A query that fails leaves the old table as it was.
 */
final class StagedSiltTable(
    catalog: SiltCatalog,
    val ident: Identifier,
    val kind: StagedKind,
    override val schema: StructType,
    override val partitioning: Array[Transform],
    val tableProperties: Map[String, String]) extends StagedTable with SupportsWrite {

  @volatile private[catalog] var query: Option[DataFrame] = None
  @volatile private[catalog] var writeOptions: Map[String, String] = Map.empty

  override def name(): String = ident.toString
  override def properties(): util.Map[String, String] = tableProperties.asJava
  override def capabilities(): util.Set[TableCapability] = Set(V1_BATCH_WRITE, TRUNCATE).asJava

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    writeOptions = info.options.asCaseSensitiveMap.asScala.toMap
    new WriteBuilder with SupportsTruncate {
      override def truncate(): WriteBuilder = this
      override def build(): V1Write = new V1Write {
        override def toInsertableRelation: InsertableRelation = new InsertableRelation {
          override def insert(data: DataFrame, overwrite: Boolean): Unit = query = Some(data)
        }
      }
    }
  }

  override def commitStagedChanges(): Unit = catalog.commitStaged(this)

  // Nothing was written before the commit, so there is nothing to undo.
  override def abortStagedChanges(): Unit = ()
}
