package io.silt.dml

import io.silt.errors.UnsupportedOptionException
import io.silt.log.Snapshot
import io.silt.write.SchemaEvolution
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.{Assignment, InsertAction, MergeIntoTable, UpdateAction}
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * MERGE WITH SCHEMA EVOLUTION (or with `spark.silt.schema.autoMerge.enabled`): the source columns
 * that `UPDATE SET *` / `INSERT *` (or `SET new_column = …`) assign but the target lacks become new
 * nullable columns of the target. The MERGE is planned against the widened schema, its files
 * read as null there, and the new metadata is committed with its rows, in one commit: a MERGE
 * that fails adds no column. Spark then leaves the keys of the new columns unresolved until the
 * target has them; Silt's own rule widens the target (Spark's would alter the table first, in a
 * commit of its own).
 */
object MergeSchemaEvolution {

  /** The source columns `m` assigns to columns the target lacks, in the order first assigned. */
  def newColumns(m: MergeIntoTable): Seq[StructField] = {
    val assignments = (m.matchedActions ++ m.notMatchedActions).flatMap {
      case u: UpdateAction => u.assignments
      case i: InsertAction => i.assignments
      case _ => Nil
    }
    // `t.new_column`: a first part that is not a target column is the target's alias.
    val targetColumns = m.targetTable.output.map(_.name.toLowerCase).toSet
    val added = assignments.collect {
      case Assignment(UnresolvedAttribute(parts), value) if value.resolved =>
        val path = if (parts.size > 1 && !targetColumns(parts.head.toLowerCase)) parts.tail else parts
        if (path.size != 1) throw new UnsupportedOptionException("WITH SCHEMA EVOLUTION", s"MERGE WITH SCHEMA " +
          s"EVOLUTION adds top-level columns only, not ${parts.mkString(".")}: add it first with ALTER TABLE … ADD COLUMNS")
        StructField(path.head, value.dataType, nullable = true)
    }
    added.foldLeft(Seq.empty[StructField]) { (kept, f) =>
      if (kept.exists(_.name.equalsIgnoreCase(f.name))) kept else kept :+ f
    }
  }

  /**
   * The snapshot the MERGE plans against (its files under the widened metadata, not committed
   * yet) and the attributes of the new columns, after the target's `existing` ones.
   */
  def widen(snapshot: Snapshot, columns: Seq[StructField]): (Snapshot, Seq[AttributeReference]) = {
    val m = snapshot.metadata
    val added = SchemaEvolution.asNullable(StructType(columns))
    val widened = m.copy(schemaString = StructType(m.schema.fields ++ added.fields).json)
    (snapshot.withUncommittedMetadata(widened), added.fields.toSeq.map(f => AttributeReference(f.name, f.dataType, nullable = true)()))
  }
}
