package io.silt.vacuum

import io.silt.errors.{ErrorClass, InvalidTableOperationException}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.types.{BooleanType, LongType, StringType, StructField, StructType}

/** A file of an inventory, as VACUUM … USING INVENTORY takes it in place of listing the table's folder. */
final case class InventoryFile(path: Path, length: Long, modificationTime: Long)

/**
 * VACUUM's inventory: a table or query listing the files of a storage (from a cloud's inventory
 * report, say), so that VACUUM of a very large table need not list its folder. Its rows are taken
 * as Delta Lake takes them: the columns below by name (others ignored), files only, those under
 * the table root; outside it, nothing is touched.
 */
object Inventory {
  val Schema: StructType = StructType(Seq(StructField("path", StringType), StructField("length", LongType),
    StructField("isDir", BooleanType), StructField("modificationTime", LongType)))

  /** The inventory's files under `root` (a qualified table path), with their paths relative to it. */
  def filesUnder(inventory: DataFrame, root: Path): Seq[(String, InventoryFile)] = {
    val prefix = root.toString.stripSuffix("/") + "/"
    checked(inventory).where(col("path").startsWith(lit(prefix)) && !col("isDir"))
      .select("path", "length", "modificationTime").collect().toSeq.map { r =>
        val p = r.getString(0)
        p.substring(prefix.length) -> InventoryFile(new Path(p), r.getLong(1), r.getLong(2))
      }
  }

  /** The inventory, once its columns are checked (refused, naming them, when they are not [[Schema]]'s). */
  def checked(inventory: DataFrame): DataFrame = {
    val named = inventory.schema.fields.filter(f => Schema.fieldNames.contains(f.name)).map(_.copy(nullable = true))
    if (StructType(named) != Schema) {
      throw new InvalidTableOperationException(s"the inventory of VACUUM … USING INVENTORY has columns " +
        s"${inventory.schema.simpleString}; it needs ${Schema.simpleString} (path a qualified URI, length in bytes, " +
        "modificationTime in ms; other columns are ignored)", errorClass = ErrorClass.InvalidInventorySchema)
    }
    inventory
  }
}
