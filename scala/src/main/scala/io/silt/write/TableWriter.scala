package io.silt.write

import java.util.UUID

import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException}
import io.silt.log._
import io.silt.read.PartitionPruning
import io.silt.txn.{Operation, OptimisticTransaction}
import io.silt.stats.FileStats
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode, SparkSession}
import org.apache.spark.sql.functions.{assert_true, coalesce, expr, lit}
import org.apache.spark.sql.types.{ArrayType, MapType, StructType}

/** How to write: the DataFrameWriter mode and options that Silt understands. */
final case class WriteOptions(
    mode: SaveMode,
    partitionBy: Option[Seq[String]] = None,
    replaceWhere: Option[String] = None,
    mergeSchema: Boolean = false,
    overwriteSchema: Boolean = false,
    properties: Map[String, String] = Map.empty,
    description: Option[String] = None,
    operation: String = "WRITE")

object WriteOptions {
  /** From DataFrameWriter options (keys are case-insensitive there). */
  def fromOptions(mode: SaveMode, options: Map[String, String], partitionBy: Option[Seq[String]]): WriteOptions = {
    val lower = options.map { case (k, v) => k.toLowerCase -> v }
    WriteOptions(mode, partitionBy, lower.get("replacewhere"),
      lower.get("mergeschema").exists(_.equalsIgnoreCase("true")),
      lower.get("overwriteschema").exists(_.equalsIgnoreCase("true")))
  }
}

/**
 * Writes a DataFrame into a table as one transaction: creates the table when it does not exist,
 * enforces or evolves the schema, writes data files with statistics, and commits them together
 * with the removal of the files an overwrite replaces.
 */
object TableWriter {

  /** Returns the committed version, or None when mode Ignore found an existing table. */
  def write(spark: SparkSession, tablePath: Path, data: DataFrame, opts: WriteOptions): Option[Long] = {
    val log = TableLog.forPath(spark, tablePath.toString)
    val txn = OptimisticTransaction.start(spark, log)
    if (txn.tableExists) {
      opts.mode match {
        case SaveMode.ErrorIfExists => throw new InvalidTableOperationException(
          s"a table already exists at $tablePath (save mode 'error'); use mode 'append' or 'overwrite'")
        case SaveMode.Ignore => return None
        case _ =>
      }
      TableFeatures.checkWritable(tablePath.toString, txn.protocol, txn.metadata)
    }
    val overwrite = opts.mode == SaveMode.Overwrite
    val metadata = prepareMetadata(txn, data.schema, opts, overwrite)
    if (opts.replaceWhere.isDefined && !overwrite) {
      throw new InvalidTableOperationException("option replaceWhere only applies to mode 'overwrite'")
    }
    val replacePredicate = opts.replaceWhere.filter(_ => overwrite && txn.tableExists).map { text =>
      PartitionPruning.resolvePartitionPredicate(spark, text, metadata, "replaceWhere")
    }
    val checked = opts.replaceWhere.filter(_ => overwrite).map { text =>
      data.filter(assert_true(coalesce(expr(text), lit(false)),
        lit(s"replaceWhere: a written row does not satisfy '$text'")).isNull)
    }.getOrElse(data)
    val aligned = SchemaEvolution.align(checked, metadata.schema)
    val removed = if (overwrite && txn.tableExists) txn.filesInPartitions(replacePredicate.toSeq) else Nil
    val added = DataFileWriter.write(spark, tablePath, aligned, metadata)
    val now = System.currentTimeMillis()
    val removes = removed.map(_.remove(now))
    val op = Operation(
      opts.operation,
      Map("mode" -> opts.mode.name(), "partitionBy" -> ActionCodec.jsonArray(metadata.partitionColumns)) ++
        opts.replaceWhere.map(p => "predicate" -> ActionCodec.jsonArray(Seq(p))),
      Map(
        "numFiles" -> added.size.toLong,
        "numOutputRows" -> added.flatMap(a => FileStats.parse(a.stats).numRecords).sum,
        "numOutputBytes" -> added.map(_.size).sum,
        "numRemovedFiles" -> removes.size.toLong,
        "numRemovedBytes" -> removed.map(_.size).sum))
    Some(txn.commit(removes ++ added, op))
  }

  /** Creates an empty table (CREATE TABLE) and returns its first version. */
  def create(spark: SparkSession, tablePath: Path, schema: StructType, partitionColumns: Seq[String],
      properties: Map[String, String], description: Option[String]): Long = {
    val log = TableLog.forPath(spark, tablePath.toString)
    val txn = OptimisticTransaction.start(spark, log)
    if (txn.tableExists) {
      throw new InvalidTableOperationException(s"a Delta table already exists at $tablePath")
    }
    val opts = WriteOptions(SaveMode.ErrorIfExists, Some(partitionColumns), properties = properties,
      description = description, operation = "CREATE TABLE")
    prepareMetadata(txn, schema, opts, overwrite = false)
    txn.commit(Nil, Operation("CREATE TABLE", Map(
      "partitionBy" -> ActionCodec.jsonArray(partitionColumns), "isManaged" -> "false",
      "properties" -> ActionCodec.mapper.writeValueAsString(scala.jdk.CollectionConverters.MapHasAsJava(properties).asJava))))
  }

  /** ALTER TABLE SET/UNSET TBLPROPERTIES: commits the new properties, upgrading the protocol if they need it. */
  def alterProperties(spark: SparkSession, tablePath: Path, set: Map[String, String], unset: Seq[String]): Long = {
    val txn = OptimisticTransaction.start(spark, TableLog.forPath(spark, tablePath.toString))
    if (!txn.tableExists) throw new io.silt.errors.NotADeltaTableException(tablePath.toString)
    TableFeatures.checkWritable(tablePath.toString, txn.protocol, txn.metadata)
    val current = txn.metadata
    val m = current.copy(configuration = current.configuration -- unset ++ set)
    txn.updateMetadata(m)
    upgradeProtocol(txn, m)
    val op = if (set.nonEmpty) Operation("SET TBLPROPERTIES", Map("properties" -> ActionCodec.mapper.writeValueAsString(
      scala.jdk.CollectionConverters.MapHasAsJava(set).asJava)))
      else Operation("UNSET TBLPROPERTIES", Map("properties" -> ActionCodec.jsonArray(unset)))
    txn.readFiles(Nil)
    txn.commit(Nil, op)
  }

  /** Sets the transaction's metadata (and protocol) for writing data of `dataSchema`; returns it. */
  private def prepareMetadata(txn: OptimisticTransaction, dataSchema: StructType, opts: WriteOptions,
      overwrite: Boolean): Metadata = {
    val path = txn.log.tablePath.toString
    if (!txn.tableExists || (overwrite && opts.overwriteSchema)) {
      val schema = StructType(dataSchema.fields.map(_.copy(nullable = true)))
      val partitionColumns = opts.partitionBy.getOrElse(
        if (txn.tableExists) txn.metadata.partitionColumns else Nil)
      validateNewSchema(path, schema, partitionColumns)
      val base = if (txn.tableExists) txn.metadata
        else Metadata(UUID.randomUUID().toString, None, opts.description, Format(), "", Nil,
          opts.properties, Some(System.currentTimeMillis()))
      val m = base.copy(schemaString = schema.json, partitionColumns = partitionColumns.map(c =>
        schema.fieldNames.find(_.equalsIgnoreCase(c)).get))
      txn.updateMetadata(m)
      upgradeProtocol(txn, m)
      m
    } else {
      val current = txn.metadata
      opts.partitionBy.foreach { cols =>
        val same = cols.map(_.toLowerCase) == current.partitionColumns.map(_.toLowerCase)
        if (!same && cols.nonEmpty) {
          throw new InvalidTableOperationException(s"table $path is partitioned by " +
            s"[${current.partitionColumns.mkString(", ")}], not by [${cols.mkString(", ")}]; " +
            "use mode 'overwrite' with option overwriteSchema = true to change the partitioning")
        }
      }
      val merged = SchemaEvolution.merge(current.schema, dataSchema, opts.mergeSchema)
      if (merged != current.schema) {
        val m = current.copy(schemaString = merged.json)
        txn.updateMetadata(m)
        upgradeProtocol(txn, m)
        m
      } else current
    }
  }

  private def upgradeProtocol(txn: OptimisticTransaction, m: Metadata): Unit = {
    val needed = TableFeatures.protocolFor(m.schema, m.configuration)
    val current = if (txn.tableExists) Some(txn.protocol) else None
    val merged = current match {
      case None => needed
      case Some(p) if p.minReaderVersion >= needed.minReaderVersion && p.minWriterVersion >= needed.minWriterVersion &&
        needed.readerFeatures.getOrElse(Set.empty).subsetOf(p.readerFeatures.getOrElse(Set.empty)) &&
        needed.writerFeatures.getOrElse(Set.empty).subsetOf(p.writerFeatures.getOrElse(Set.empty)) => p
      case Some(p) if p.minWriterVersion < 7 =>
        // Legacy protocols have no feature lists; move to 3/7 and keep what the old versions implied.
        val legacy = if (p.minWriterVersion >= 2) Set("appendOnly", "invariants") else Set.empty[String]
        Protocol(3, 7, Some(needed.readerFeatures.getOrElse(Set.empty)),
          Some(needed.writerFeatures.getOrElse(Set.empty) ++ legacy))
      case Some(p) => Protocol(math.max(p.minReaderVersion, needed.minReaderVersion), 7,
        Some(p.readerFeatures.getOrElse(Set.empty) ++ needed.readerFeatures.getOrElse(Set.empty)),
        Some(p.writerFeatures.getOrElse(Set.empty) ++ needed.writerFeatures.getOrElse(Set.empty)))
    }
    if (!current.contains(merged)) txn.updateProtocol(merged)
  }

  private def validateNewSchema(path: String, schema: StructType, partitionColumns: Seq[String]): Unit = {
    val dupes = schema.fieldNames.groupBy(_.toLowerCase).collect { case (_, v) if v.length > 1 => v.head }
    if (dupes.nonEmpty) throw new SchemaMismatchException(s"duplicate column name(s) ${dupes.mkString(", ")} for table $path")
    partitionColumns.foreach { c =>
      val field = schema.fields.find(_.name.equalsIgnoreCase(c)).getOrElse(
        throw new SchemaMismatchException(s"partition column $c is not a column of the data " +
          s"(columns: ${schema.fieldNames.mkString(", ")})"))
      field.dataType match {
        case _: StructType | _: ArrayType | _: MapType => throw new SchemaMismatchException(
          s"cannot partition table $path by $c of type ${field.dataType.simpleString}: partition columns must be of an atomic type")
        case _ =>
      }
    }
    if (schema.nonEmpty && partitionColumns.size == schema.size) {
      throw new SchemaMismatchException(s"cannot partition table $path by all of its columns; at least one data column is needed")
    }
  }
}
