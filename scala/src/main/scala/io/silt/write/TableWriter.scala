package io.silt.write

import java.util.UUID

import io.silt.config.SiltSettings
import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException, UnsupportedOptionException}
import io.silt.actions._
import io.silt.features._
import io.silt.log._
import io.silt.partition.PartitionPredicates
import io.silt.txn.{CreateMode, Operation, OptimisticTransaction}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode, SparkSession}
import org.apache.spark.sql.functions.{assert_true, coalesce, expr, lit}
import org.apache.spark.sql.types.{ArrayType, MapType, StructType}

/** What CREATE or REPLACE TABLE declares: columns, partitioning, properties and comment. */
final case class TableDefinition(schema: StructType, partitionColumns: Seq[String], properties: Map[String, String],
    description: Option[String], clusterBy: Option[Seq[String]] = None)

/**
 * Writes a DataFrame into a table as one transaction: creates the table when it does not exist,
 * enforces or evolves the schema, writes data files with statistics, and commits them together
 * with the removal of the files an overwrite replaces.
 */
object TableWriter {

  /**
   * Returns the committed version, or None when nothing was committed: mode Ignore found a table,
   * or an idempotent write's version was already committed.
   */
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
      checkPropertiesUnchanged(txn.metadata, opts.properties)
    }
    IdempotentWrites.run(spark, txn, opts.appTransaction)(Option.empty[Long])(Some(commitData(spark, txn, data, opts)))
  }

  private def commitData(spark: SparkSession, txn: OptimisticTransaction, data: DataFrame, opts: WriteOptions): Long = {
    val tablePath = txn.log.tablePath
    opts.replaceMatching.foreach(_ => throw ReplaceMatching.notHere(tablePath.toString))
    val overwrite = opts.overwrite
    val metadata = prepareMetadata(spark, txn, data.schema, opts, overwrite)
    val clustering = TableClustering.forCommit(txn, opts.clusterBy,
      defines = !txn.tableExists || (overwrite && opts.overwriteSchema))
    if (!opts.dataChange) checkRewrite(txn)
    if (opts.replaceWhere.isDefined && !overwrite) {
      throw new InvalidTableOperationException("option replaceWhere only applies to mode 'overwrite'")
    }
    val replacePredicate = opts.replaceWhere.filter(_ => overwrite && txn.tableExists).map { text =>
      PartitionPredicates.resolve(spark, text, metadata, "replaceWhere")
    }
    val checked = opts.replaceWhere.filter(_ => overwrite && SiltSettings.ReplaceWhereConstraintCheck(spark)).map { text =>
      data.filter(assert_true(coalesce(expr(text), lit(false)),
        lit(s"replaceWhere: a written row does not satisfy '$text'")).isNull)
    }.getOrElse(data)
    // Dynamic mode replaces the partitions the data has; a table without partitions is one partition.
    val dynamic = opts.dynamicPartitionOverwrite && overwrite && metadata.partitionColumns.nonEmpty
    val aligned = IdentityColumnWrites.generate(spark, SchemaEvolution.align(checked, metadata.schema), txn, metadata,
      newRows = true)
    val added = DataFileWriter.write(spark, tablePath, aligned, metadata, opts.fileWriterOptions,
      optimizeWrite = OptimizedWrite.enabled(spark, opts.optimizeWrite, metadata)).map(_.copy(dataChange = opts.dataChange))
    val removed = if (!overwrite || !txn.tableExists) Nil
      else if (dynamic) txn.filesInPartitionValues(added.map(_.partitionValues).toSet)
      else txn.filesInPartitions(replacePredicate.toSeq)
    val now = System.currentTimeMillis()
    val removes = removed.map(_.remove(now, opts.dataChange))
    // Delta's names: the removed files' only for an overwrite, the rows' only for a replaceWhere
    val metrics = Map(
      "numFiles" -> added.size.toLong,
      "numOutputRows" -> added.flatMap(_.numPhysicalRecords).sum,
      "numOutputBytes" -> added.map(_.size).sum) ++ (if (!overwrite) Map.empty else Map(
      "numRemovedFiles" -> removes.size.toLong,
      "numRemovedBytes" -> removed.map(_.size).sum)) ++ (if (opts.replaceWhere.isEmpty || !overwrite) Map.empty else Map(
      // a replaceWhere drops whole files here: their rows are deleted, none copied (Delta's names)
      "numDeletedRows" -> removed.flatMap(_.numLogicalRecords).sum, "numCopiedRows" -> 0L, "numAddedChangeFiles" -> 0L))
    val op = opts.streamingBatch.map(b => Operation.StreamingUpdate(b.outputMode, b.queryId, b.batchId, metrics, opts.userMetadata))
      .getOrElse(Operation.Write(opts.mode.name(), opts.partitionBy.getOrElse(Nil), opts.replaceWhere, dynamic, metrics,
        opts.userMetadata))
    txn.commit(removes ++ added ++ clustering, op)
  }

  /** A write with dataChange = false rewrites rows already in the table: it may not create it or change its metadata. */
  private def checkRewrite(txn: OptimisticTransaction): Unit = {
    def refuse(what: String) = throw new InvalidTableOperationException(s"option dataChange = false marks a " +
      s"rewrite of rows already in ${txn.log.tablePath}, so it cannot $what; write without it")
    if (!txn.tableExists) refuse("create the table")
    if (txn.metadataChanged) refuse("change the table's schema, partitioning or properties")
  }

  /** `delta.*` write options set properties of a table the write creates; on an existing table they must not differ. */
  private def checkPropertiesUnchanged(current: Metadata, properties: Map[String, String]): Unit =
    properties.foreach { case (k, v) =>
      if (!current.configuration.exists { case (ck, cv) => ck.equalsIgnoreCase(k) && cv == v }) {
        throw new UnsupportedOptionException(k, s"write option $k = '$v' would change a property of the existing " +
          s"table ${current.id}; use ALTER TABLE … SET TBLPROPERTIES ('$k' = '$v') instead")
      }
    }

  /** Creates an empty table (CREATE TABLE) and returns its first version. */
  def create(spark: SparkSession, tablePath: Path, table: TableDefinition): Long =
    replace(spark, tablePath, table, None, WriteOptions(SaveMode.ErrorIfExists), CreateMode.Create, mayExist = false).get

  /**
   * Gives the table at `tablePath` the definition `table` and exactly the rows of `data` (none
   * without it) in one commit: CREATE TABLE [AS SELECT], and REPLACE TABLE, CREATE OR REPLACE
   * TABLE and saveAsTable in mode overwrite when `mayExist`. A replaced table keeps its id, its
   * history and its protocol's features; its old files stay for time travel until VACUUM.
   * None when an idempotent write's version was already committed.
   */
  def replace(spark: SparkSession, tablePath: Path, table: TableDefinition, data: Option[DataFrame],
      opts: WriteOptions, mode: CreateMode, mayExist: Boolean): Option[Long] = {
    val txn = OptimisticTransaction.start(spark, TableLog.forPath(spark, tablePath.toString))
    if (txn.tableExists) {
      if (!mayExist) throw new InvalidTableOperationException(s"a Delta table already exists at $tablePath; " +
        "use CREATE OR REPLACE TABLE to replace it, or CREATE TABLE without a schema to register it")
      TableFeatures.checkWritable(tablePath.toString, txn.protocol, txn.metadata)
    }
    opts.replaceMatching.foreach(_ => throw ReplaceMatching.notHere(tablePath.toString))
    if (!opts.dataChange) throw new InvalidTableOperationException(s"option dataChange = false marks a rewrite " +
      s"of rows already in $tablePath, so it cannot create or replace the table; write without it")
    IdempotentWrites.run(spark, txn, opts.appTransaction)(Option.empty[Long])(
      Some(replaceWith(spark, txn, table, data, opts, mode)))
  }

  private def replaceWith(spark: SparkSession, txn: OptimisticTransaction, table: TableDefinition,
      data: Option[DataFrame], opts: WriteOptions, mode: CreateMode): Long = {
    val tablePath = txn.log.tablePath
    val defined = opts.copy(mode = SaveMode.Overwrite, partitionBy = Some(table.partitionColumns),
      properties = opts.properties ++ table.properties, description = table.description, overwriteSchema = true)
    // The columns of a query's result are nullable, as in Delta; declared columns keep NOT NULL.
    val schema = if (data.isDefined) SchemaEvolution.asNullable(table.schema) else table.schema
    val metadata = prepareMetadata(spark, txn, schema, defined, overwrite = true, declaredSchema = true, replace = true)
    val clustering = TableClustering.forCommit(txn, table.clusterBy, defines = true, replacing = true)
    val added = data.map(d => DataFileWriter.write(spark, tablePath, IdentityColumnWrites.generate(spark,
      SchemaEvolution.align(d, metadata.schema), txn, metadata, newRows = true), metadata, opts.fileWriterOptions,
      optimizeWrite = OptimizedWrite.enabled(spark, opts.optimizeWrite, metadata))).getOrElse(Nil)
    val removed = if (txn.tableExists) txn.filesInPartitions(Nil) else Nil
    val now = System.currentTimeMillis()
    // Recorded whenever the commit sets the clustering: [] when a REPLACE clears it, as Delta does.
    val clusterBy = if (clustering.isEmpty) None else Some(table.clusterBy.getOrElse(Nil))
    val op = Operation.CreateOrReplace(mode, data.isDefined, metadata.partitionColumns, clusterBy,
      defined.properties, table.description,
      Map("numFiles" -> added.size.toLong,
        "numOutputRows" -> added.flatMap(_.numPhysicalRecords).sum,
        "numOutputBytes" -> added.map(_.size).sum,
        "numRemovedFiles" -> removed.size.toLong),
      opts.userMetadata)
    txn.commit(removed.map(_.remove(now)) ++ added ++ clustering, op)
  }

  /** TRUNCATE TABLE: every row removed in one commit; the files stay for time travel until VACUUM. */
  def truncate(spark: SparkSession, tablePath: Path): Long = {
    val txn = ExistingTable.begin(spark, tablePath)
    val removed = txn.filesInPartitions(Nil)
    val now = System.currentTimeMillis()
    txn.commit(removed.map(_.remove(now)), Operation.Truncate(Map("numRemovedFiles" -> removed.size.toLong, "numRemovedBytes" -> removed.map(_.size).sum)))
  }

  /** ALTER TABLE SET/UNSET TBLPROPERTIES: commits the new properties, upgrading the protocol if they need it. */
  def alterProperties(spark: SparkSession, tablePath: Path, set: Map[String, String], unset: Seq[String],
      statement: String = "SET TBLPROPERTIES"): Long = {
    val txn = ExistingTable.begin(spark, tablePath)
    checkSettable(set)
    val (requested, properties) = ProtocolRequest.parse(tablePath.toString, set)
    unset.find(ProtocolRequest.isProtocolKey).foreach { k =>
      throw new InvalidTableOperationException(s"table property $k cannot be unset: a table's protocol is never " +
        "lowered by a property")
    }
    unset.find(_.toLowerCase.startsWith(TableProperties.ConstraintPrefix)).foreach { k =>
      throw new InvalidTableOperationException(s"table property $k cannot be unset directly: use " +
        s"ALTER TABLE … DROP CONSTRAINT ${k.substring(TableProperties.ConstraintPrefix.length)}")
    }
    val current = txn.metadata
    // Keys match case-insensitively: a key set or unset in another case replaces the one there.
    val replaced = (k: String) => set.keys.exists(_.equalsIgnoreCase(k)) || unset.exists(_.equalsIgnoreCase(k))
    val m = current.copy(configuration = IcebergCompat.withoutOrphanUniform(current.configuration,
      current.configuration.filterNot { case (k, _) => replaced(k) } ++ properties))
    txn.updateMetadata(m)
    upgradeProtocol(txn, txn.metadata, requested = requested)
    val op = if (set.nonEmpty) Operation.SetProperties(set, statement) else Operation.UnsetProperties(unset)
    txn.readFiles(Nil)
    txn.commit(Nil, op)
  }

  /** Sets the transaction's metadata (and protocol) for writing data of `dataSchema`; returns it. */
  private def prepareMetadata(spark: SparkSession, txn: OptimisticTransaction, schemaOfData: StructType, opts: WriteOptions,
      overwrite: Boolean, declaredSchema: Boolean = false, replace: Boolean = false): Metadata = {
    val path = txn.log.tablePath.toString
    // A table the session creates gets its property defaults, as in Delta Lake (not one it replaces: Delta
    // Lake's REPLACE does not apply them either); what the statement gives wins.
    val given = if (txn.tableExists) opts.properties else {
      val defaults = SiltSettings.propertyDefaults(spark.conf)
      try checkSettable(defaults) catch { case e: UnsupportedOptionException =>
        throw new UnsupportedOptionException(SiltSettings.PropertyDefaults.key, s"a session setting " +
          s"${SiltSettings.PropertyDefaults.key} (or Delta Lake's ${SiltSettings.PropertyDefaults.deltaKey.get}) gives new " +
          s"tables a property Silt cannot set: ${e.detailMessage}")
      }
      defaults.filter { case (k, _) => !opts.properties.keys.exists(_.equalsIgnoreCase(k)) } ++ opts.properties
    }
    checkSettable(given)
    val (requested, properties) = ProtocolRequest.parse(path, given)
    val dataSchema = if (declaredSchema) schemaOfData else WriterMetadata.stripped(schemaOfData)
    if (!txn.tableExists || (overwrite && opts.overwriteSchema)) {
      // A declared schema keeps its NOT NULL columns; the schema of written data is all nullable, as in Delta.
      val schema = if (declaredSchema) dataSchema else SchemaEvolution.asNullable(dataSchema)
      val partitionColumns = opts.partitionBy.getOrElse(
        if (txn.tableExists) txn.metadata.partitionColumns else Nil)
      validateNewSchema(path, schema, partitionColumns)
      val base = if (txn.tableExists && replace) txn.metadata.copy(description = opts.description, configuration = properties)
        else if (txn.tableExists) txn.metadata
        else Metadata(UUID.randomUUID().toString, None, opts.description, Format(), "", Nil,
          properties, Some(System.currentTimeMillis()))
      val m = base.copy(schemaString = schema.json, partitionColumns = partitionColumns.map(c =>
        schema.fieldNames.find(_.equalsIgnoreCase(c)).get))
      txn.updateMetadata(m, replacingTable = replace)
      upgradeProtocol(txn, txn.metadata, requested = requested)
      txn.metadata
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
      val merged = SchemaEvolution.merge(current.schema, dataSchema, opts.mergeSchema,
        widen = TableProperties(current.configuration).typeWidening)
      if (merged != current.schema) {
        txn.updateMetadata(current.copy(schemaString = merged.json))
        upgradeProtocol(txn, txn.metadata)
        txn.metadata
      } else current
    }
  }

  /**
   * Table properties a statement or write may set: CHECK constraints only through ALTER TABLE …
   * ADD CONSTRAINT (which checks the rows), and of the other `delta.*` keys those Silt honours.
   */
  def checkSettable(properties: Map[String, String]): Unit = {
    properties.keys.find(_.toLowerCase.startsWith(TableProperties.ConstraintPrefix)).foreach { k =>
      throw new InvalidTableOperationException(s"table property $k cannot be set directly: use " +
        s"ALTER TABLE … ADD CONSTRAINT ${k.substring(TableProperties.ConstraintPrefix.length)} CHECK (…)")
    }
    TableProperties.checkSettable(properties)
  }

  /** Moves the transaction's protocol up to what metadata `m` needs (never down). */
  def upgradeProtocol(txn: OptimisticTransaction, m: Metadata, clustered: Boolean = false,
      requested: ProtocolRequest = ProtocolRequest(None, None, Set.empty)): Unit = {
    val current = if (txn.tableExists || txn.protocolUpdated) Some(txn.protocol) else None
    val needed = if (current.isEmpty) TableFeatures.protocolForNewTable(m.schema, m.configuration, clustered)
                 else TableFeatures.protocolFor(m.schema, m.configuration, clustered)
    val merged = TableFeatures.merge(Some(TableFeatures.merge(current, needed)), requested.protocol)
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
