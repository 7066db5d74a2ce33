package io.silt.optimize

import io.silt.actions.{AddFile, TablePaths}
import io.silt.config.TableFileSystem
import io.silt.convert.{ParquetFooters, SourceFile}
import io.silt.errors.InvalidTableOperationException
import io.silt.features.ColumnMapping
import io.silt.log.Snapshot
import org.apache.parquet.schema.MessageTypeParser
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

/**
 * The files whose Parquet columns hold another type than the table schema gives them: those written
 * before a type change (type widening), which must be rewritten before the feature can be dropped.
 * Found from the files' footers (one Spark job; no data page is read), as Delta Lake does.
 */
object WidenedFiles {
  def select(spark: SparkSession, snapshot: Snapshot, files: Seq[AddFile]): Seq[AddFile] = {
    val metadata = snapshot.metadata
    val expected = ColumnMapping.of(metadata).physicalSchema(metadata.dataSchema)
    val byPath = files.map(f => TablePaths.absolute(snapshot.tablePath, f.path).toString -> f).toMap
    val sources = byPath.keys.toSeq.map(p => SourceFile(p, p, 0L, 0L))
    val converter = new ParquetToSparkSchemaConverter(spark.sessionState.conf)
    val conf = TableFileSystem.hadoopConf(spark, snapshot.tablePath)
    ParquetFooters.read(spark, sources, conf).flatMap {
      case Left((file, error)) => throw new InvalidTableOperationException(
        s"the data file ${file.path} cannot be read as Parquet ($error); restore it or remove it from the table first")
      case Right(footer) =>
        val types = converter.convert(MessageTypeParser.parseMessageType(footer.schema))
        if (differs(types, expected)) Some(byPath(footer.file.path)) else None
    }
  }

  /** Whether a field that both `file` and `table` have holds another type (nullability aside). */
  private[optimize] def differs(file: DataType, table: DataType): Boolean = (file, table) match {
    case (f: StructType, t: StructType) =>
      f.fields.exists(ff => t.fields.find(_.name == ff.name).exists(tf => differs(ff.dataType, tf.dataType)))
    case (f: ArrayType, t: ArrayType) => differs(f.elementType, t.elementType)
    case (f: MapType, t: MapType) => differs(f.keyType, t.keyType) || differs(f.valueType, t.valueType)
    case (f, t) => f != t
  }
}
