package io.silt.write

import io.silt.errors.InvalidTableOperationException
import io.silt.features.{ColumnMapping, IdentityColumns}
import io.silt.read.SiltRelation
import io.silt.spark.Identifiers
import io.silt.txn.Operation
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{max, min}
import org.apache.spark.sql.types.StructType

/**
 * ALTER TABLE … ALTER COLUMN c SYNC IDENTITY: after values were given to a BY DEFAULT identity
 * column, its high-water mark moves to the first value of its sequence at or past them (for a
 * positive step, the least `start + n * step >= max(c)`), so that generated values stay clear of
 * them. The mark never goes back, as in Delta Lake.
 */
object SyncIdentity {
  def run(spark: SparkSession, tablePath: Path, column: Seq[String]): Long = {
    val name = column.mkString(".")
    def refuse(why: String): Nothing =
      throw new InvalidTableOperationException(s"ALTER TABLE $tablePath ALTER COLUMN $name SYNC IDENTITY: $why")
    val txn = ExistingTable.begin(spark, tablePath)
    val current = txn.metadata
    val (field, spec) = IdentityColumns.of(current.schema).find(_._1.name.equalsIgnoreCase(name))
      .getOrElse(refuse("the column is not an identity column"))
    // every row read: a concurrent write of other values conflicts
    txn.filesToValidate()
    val rows = spark.baseRelationToDataFrame(SiltRelation.forSnapshot(spark, txn.readSnapshot.get))
    val c = Identifiers.column(field.name)
    val extreme = Option(rows.agg(if (spec.step > 0) max(c) else min(c)).first().get(0)).map(_.asInstanceOf[Long])
    val synced = extreme.map { v =>
      // the least n >= 0 with start + n * step at or past v, in the step's direction
      val n = math.max(0L, Math.floorDiv(Math.subtractExact(v, spec.start) + spec.step - math.signum(spec.step), spec.step))
      Math.addExact(spec.start, Math.multiplyExact(n, spec.step))
    }
    val mark = (spec.highWaterMark ++ synced).reduceOption((a, b) => if (spec.step > 0) math.max(a, b) else math.min(a, b))
    val schema = mark.fold(current.schema)(m => IdentityColumns.withMarks(current.schema, Map(field.name -> m)))
    if (schema != current.schema) txn.updateMetadata(current.copy(schemaString = schema.json))
    txn.commit(Nil, Operation.ChangeColumn(SchemaPaths.fieldJson(field.name,
      ColumnMapping.logicalSchema(StructType(Seq(schema(field.name)))).head), None))
  }
}
