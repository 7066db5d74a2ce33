package io.silt.dml

import io.silt.errors.{SchemaMismatchException, UnsupportedOptionException}
import io.silt.features.TableProperties
import io.silt.log.Snapshot
import io.silt.read.SiltRelation
import io.silt.write.SchemaEvolution
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, AttributeReference, Cast, ExprId}
import org.apache.spark.sql.catalyst.plans.logical.{Assignment, InsertAction, InsertStarAction, MergeAction, MergeIntoTable,
  UpdateAction, UpdateStarAction}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

/**
 * MERGE WITH SCHEMA EVOLUTION (or with `spark.silt.schema.autoMerge.enabled`): what `UPDATE SET *`
 * / `INSERT *` (or `SET new_column = …`) assign but the target lacks becomes part of the target:
 * new nullable columns, new fields of the structs assigned whole (also inside arrays and maps), and
 * on a table with type widening, the wider types of values where Delta widens by itself.
 * The MERGE is planned against the widened schema, its files read as null there, and the
 * new metadata is committed with its rows, in one commit: a MERGE that fails adds nothing. Spark
 * leaves the keys of new columns unresolved until the target has them; Silt's own rule widens the
 * target (Spark's would alter the table first, in a commit of its own).
 */
object MergeSchemaEvolution {

  /**
   * The target's schema (`table`, the log's) widened with what `m` assigns; `table` itself when
   * nothing is new. `widenTypes` (the table has `delta.enableTypeWidening`): a column (or field)
   * assigned a wider type takes it where Delta widens by itself ([[TypeWidening.automatic]]).
   */
  private def widenedSchema(m: MergeIntoTable, table: StructType, widenTypes: Boolean): StructType = {
    val assignments = (m.matchedActions ++ m.notMatchedActions).flatMap {
      case u: UpdateAction => u.assignments
      case i: InsertAction => i.assignments
      case _ => Nil
    }
    // `t.new_column`: a first part that is not a target column is the target's alias.
    val targetColumns = m.targetTable.output.map(_.name.toLowerCase).toSet
    assignments.foldLeft(table) {
      case (schema, Assignment(UnresolvedAttribute(parts), value)) if value.resolved =>
        val path = if (parts.size > 1 && !targetColumns(parts.head.toLowerCase)) parts.tail else parts
        // Silt's MERGE assigns whole columns, so a new field is added by assigning its struct whole
        if (path.size > 1) throw new UnsupportedOptionException("WITH SCHEMA EVOLUTION", s"MERGE WITH SCHEMA " +
          s"EVOLUTION cannot add ${parts.mkString(".")} by itself: assign the whole struct ${path.head} (UPDATE SET *)")
        mergeInto(schema, StructField(path.head, value.dataType), widenTypes).getOrElse(schema)
      // A value of another type than the target's, which Spark casts to the target's type: a
      // struct's new fields are added, a wider type taken where the table widens types (a
      // conflicting type is left to Spark's cast, which names it). A struct value is then matched
      // to the widened struct by name (RowChanges.castTo).
      case (schema, Assignment(key: Attribute, c: Cast)) if c.child.resolved && c.dataType == key.dataType &&
          key.dataType != c.child.dataType && (hasStruct(c.child.dataType) || widenTypes) =>
        mergeInto(schema, StructField(key.name, c.child.dataType), widenTypes).getOrElse(schema)
      case (schema, _) => schema
    }
  }

  /**
   * Whether Spark has planned `m`'s assignments far enough for the new columns to be known: both
   * sides resolved, stars expanded, every value resolved (or a cast of a resolved value).
   */
  def ready(m: MergeIntoTable): Boolean = m.targetTable.resolved && m.sourceTable.resolved &&
    (m.matchedActions ++ m.notMatchedActions).forall {
      case u: UpdateAction => u.assignments.forall(valueReady)
      case i: InsertAction => i.assignments.forall(valueReady)
      case _: UpdateStarAction | _: InsertStarAction => false
      case _ => true
    }

  private def valueReady(a: Assignment): Boolean = a.value.resolved || (a.value match {
    case c: Cast => c.child.resolved
    case _ => false
  })

  /** `m` with the casts Spark put to the old type of a widened column (`oldTypes`, by id) made casts to its new type. */
  private def recast(m: MergeIntoTable, oldTypes: Map[ExprId, DataType]): MergeIntoTable = {
    def fix(as: Seq[Assignment]): Seq[Assignment] = as.map {
      case Assignment(key: Attribute, c: Cast) if oldTypes.get(key.exprId).contains(c.dataType) =>
        Assignment(key, Cast(c.child, key.dataType, c.timeZoneId))
      case other => other
    }
    def actions(as: Seq[MergeAction]): Seq[MergeAction] = as.map {
      case u: UpdateAction => u.copy(assignments = fix(u.assignments))
      case i: InsertAction => i.copy(assignments = fix(i.assignments))
      case other => other
    }
    m.copy(matchedActions = actions(m.matchedActions), notMatchedActions = actions(m.notMatchedActions))
  }

  /** `schema` with `field` merged in (a new column, or new nested fields); None when the types conflict. */
  private def mergeInto(schema: StructType, field: StructField, widenTypes: Boolean): Option[StructType] =
    try Some(SchemaEvolution.merge(schema, StructType(Seq(field)), mergeSchema = true, widen = widenTypes)) catch {
      case _: SchemaMismatchException => None
    }

  private def hasStruct(dt: DataType): Boolean = dt match {
    case _: StructType => true
    case a: ArrayType => hasStruct(a.elementType)
    case mt: MapType => hasStruct(mt.keyType) || hasStruct(mt.valueType)
    case _ => false
  }

  /**
   * `m` (ready) with its target `r`, the V2 relation of the table at `snapshot`, replaced by a scan of
   * the snapshot under the widened schema (not committed yet: the MERGE commits it with its rows);
   * when nothing is new, by the table as it is. Columns whose type widened keep their ids, with
   * the new type wherever the plan uses them.
   */
  def againstWidenedTarget(spark: SparkSession, m: MergeIntoTable, r: DataSourceV2Relation, snapshot: Snapshot,
      catalogTable: Option[CatalogTable]): MergeIntoTable = {
    val current = snapshot.metadata.schema
    val schema = widenedSchema(m, current, TableProperties(snapshot.metadata.configuration).typeWidening)
    val target = if (schema == current) snapshot
      else snapshot.withUncommittedMetadata(snapshot.metadata.copy(schemaString = schema.json))
    val relation = SiltRelation.forSnapshot(spark, target)
    val output = SchemaEvolution.asNullable(relation.schema).fields.toSeq.map { f =>
      r.output.find(_.name.equalsIgnoreCase(f.name)) match {
        case Some(a) if a.dataType == f.dataType => a
        case Some(a) => a.withDataType(f.dataType)
        case None => AttributeReference(f.name, f.dataType, nullable = true)()
      }
    }
    val widened = r.output.flatMap(a => output.find(o => o.exprId == a.exprId && o.dataType != a.dataType).map(a -> _))
    val scan = SiltRelation.scan(relation, output, catalogTable)
    val planned = m.copy(targetTable = m.targetTable.transformUp { case x if x eq r => scan })
      .rewriteAttrs(AttributeMap(widened.map { case (a, b) => a -> (b: Attribute) })).asInstanceOf[MergeIntoTable]
    recast(planned, widened.map { case (a, _) => a.exprId -> a.dataType }.toMap)
  }
}
