package io.silt.optimize

import io.silt.errors.{InvalidTableOperationException, NotADeltaTableException}
import io.silt.features.{Clustering, ColumnMapping, TableProperties}
import io.silt.log.TableLog
import io.silt.read.SiltRelation
import io.silt.txn.{Operation, OptimisticTransaction}
import io.silt.write.{DataFileWriter, RowTrackingWrites}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

/**
 * Takes column mapping off a table, as Delta Lake's REMOVE COLUMN MAPPING (DROP FEATURE
 * columnMapping's cleanup): one commit that rewrites every live file under the logical names
 * (dataChange = false) and sets the schema without mapping metadata, the mode and the max column
 * id unset, and the clustering columns recorded by their logical names. Every file is read for it,
 * so a concurrent write conflicts instead of adding files under the physical names.
 */
object ColumnMappingRemoval {
  /** What a column name cannot hold without column mapping (Delta's rule for Parquet column names). */
  val InvalidNameChars: Set[Char] = " ,;{}()\n\t=".toSet

  def run(spark: SparkSession, tablePath: Path): Long = {
    val log = TableLog.forPath(spark, tablePath.toString)
    val txn = OptimisticTransaction.start(spark, log)
    val snapshot = txn.readSnapshot.getOrElse(throw new NotADeltaTableException(tablePath.toString))
    val mapped = snapshot.metadata
    val schema = ColumnMapping.logicalSchema(mapped.schema)
    val invalid = names(schema).filter(_.exists(InvalidNameChars)).distinct
    if (invalid.nonEmpty) throw new InvalidTableOperationException(s"table $tablePath: column mapping cannot be removed " +
      s"while columns are named ${invalid.map(n => s"'$n'").mkString(", ")}: without it a column name cannot hold a " +
      "space or any of ,;{}()= (nor a tab or a newline); rename those columns first (ALTER TABLE … RENAME COLUMN)")
    val mappingKeys = Set(TableProperties.ColumnMappingModeProperty.key, TableProperties.ColumnMappingMaxColumnId.key).map(_.toLowerCase)
    // Every file is rewritten, as by a REPLACE: the one case where the mode may go back to none.
    txn.updateMetadata(mapped.copy(schemaString = schema.json,
      configuration = mapped.configuration.filterNot { case (k, _) => mappingKeys(k.toLowerCase) }), replacingTable = true)

    val files = txn.filesToValidate()
    val scan = spark.baseRelationToDataFrame(SiltRelation.forFiles(spark, snapshot, files.toIndexedSeq))
    val added = if (files.isEmpty) Nil else DataFileWriter.write(spark, tablePath,
      RowTrackingWrites.copied(scan, snapshot.protocol, mapped), txn.metadata, enforceConstraints = false)
      .map(_.copy(dataChange = false))
    val clustering = Clustering.physicalColumns(snapshot.domains).map(p => Clustering.domain(Clustering.logicalPaths(mapped.schema, p)))
    val now = System.currentTimeMillis()
    txn.commit(files.map(_.remove(now, dataChange = false)) ++ added ++ clustering,
      Operation.RemoveColumnMapping(Map("numRemovedFiles" -> files.size.toLong, "numAddedFiles" -> added.size.toLong)))
  }

  /** Every field name, nested ones too. */
  private def names(dt: DataType): Seq[String] = dt match {
    case s: StructType => s.fields.toSeq.flatMap(f => f.name +: names(f.dataType))
    case a: ArrayType => names(a.elementType)
    case m: MapType => names(m.keyType) ++ names(m.valueType)
    case _ => Nil
  }
}
