package io.silt.read

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, AttributeReference, BoundReference, Expression, Predicate}
import org.apache.spark.sql.execution.datasources.{FileIndex, PartitionDirectory}
import org.apache.spark.sql.types.StructType

/**
 * The files a change-feed read scans, listed up front, each group under the partition values Spark
 * appends to its rows (the table's partition columns, then the change type and commit the group
 * stands for). Spark leaves filters on these columns to the index, so it prunes by them.
 */
final class ChangeFileIndex(root: Path, override val partitionSchema: StructType, directories: Seq[PartitionDirectory])
    extends FileIndex {
  override def rootPaths: Seq[Path] = Seq(root)

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] = {
    val predicate = partitionFilters.reduceOption(And).map { filter =>
      Predicate.create(filter.transform { case a: AttributeReference =>
        val i = partitionSchema.fieldNames.indexWhere(_.equalsIgnoreCase(a.name))
        BoundReference(i, partitionSchema(i).dataType, nullable = true)
      })
    }
    predicate.fold(directories)(p => directories.filter(d => p.eval(d.values)))
  }

  override def inputFiles: Array[String] = directories.flatMap(_.files.map(_.getPath.toString)).distinct.toArray
  override def refresh(): Unit = ()
  override def sizeInBytes: Long = directories.iterator.flatMap(_.files).map(_.getLen).sum
  override def toString: String = s"ChangeFileIndex($root, ${directories.map(_.files.size).sum} files)"
}

object ChangeFileIndex {
  /** `values` followed by `extra` (already in Spark's internal form). */
  def row(values: InternalRow, schema: StructType, extra: Any*): InternalRow =
    InternalRow.fromSeq(values.toSeq(schema) ++ extra)
}
