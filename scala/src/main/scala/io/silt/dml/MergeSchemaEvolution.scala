package io.silt.dml

import scala.util.Try

import io.silt.errors.{SchemaMismatchException, UnsupportedOptionException}
import io.silt.features.TableProperties
import io.silt.log.Snapshot
import io.silt.read.SiltRelation
import io.silt.write.{SchemaEvolution, TypeWidening}
import io.silt.shims.MergeEvolution
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, AttributeReference, Cast, ExprId, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{Assignment, InsertAction, InsertStarAction, LogicalPlan}
import org.apache.spark.sql.catalyst.plans.logical.{MergeAction, MergeIntoTable, UpdateAction, UpdateStarAction}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, MetadataBuilder, NullType, StructField, StructType}

/**
 * MERGE WITH SCHEMA EVOLUTION (or with `spark.silt.schema.autoMerge.enabled`): what `UPDATE SET *`
 * / `INSERT *` (or `SET new_column = …`) assign but the target lacks becomes part of the target:
 * new nullable columns, new fields of the structs assigned whole (also inside arrays and maps), and
 * on a table with type widening, the wider types of values where Delta widens by itself.
 * The MERGE is planned against the widened schema, its files read as null there, and the
 * new metadata is committed with its rows, in one commit: a MERGE that fails adds nothing. Spark
 * leaves the keys of new columns unresolved until the target has them; Silt's own rule widens the
 * target (Spark's would alter the table first, in a commit of its own). Spark 3.5 and 4.0 have no
 * MERGE schema evolution: there Silt expands `*` over the source ([[expandStars]]) and marks the keys
 * of new columns until the target has them.
 */
object MergeSchemaEvolution {
  // The key of a column the target does not have yet, where Spark 3.5 and 4.0 would refuse a key they
  // cannot resolve: named again once the target is widened, when Spark resolves it against the new column.
  private val NewColumnMark = "silt.mergeNewColumn"

  private def newColumnKey(name: String): AttributeReference =
    AttributeReference(name, NullType, nullable = true, new MetadataBuilder().putBoolean(NewColumnMark, true).build())()

  private def isNewColumnKey(e: Expression): Boolean = e match {
    case a: AttributeReference => a.metadata.contains(NewColumnMark)
    case _ => false
  }

  // The value assigned to a new column, without the cast to the key's placeholder type Spark 3.5 and 4.0 add.
  private def uncast(key: Expression, value: Expression): Expression = value match {
    case c: Cast if isNewColumnKey(key) && c.dataType == NullType => c.child
    case other => other
  }

  /**
   * `m`, whose `*` Spark has not expanded (Spark 3.5 and 4.0, both sides resolved), with `UPDATE SET *`
   * and `INSERT *` made assignments of the source's columns by name, as Spark 4.1 expands them with
   * schema evolution (a target column the source lacks is kept by an update, null in an insert); the
   * keys of columns `target` lacks, there and in explicit assignments, marked new.
   */
  def expandStars(m: MergeIntoTable, target: LogicalPlan, resolver: Resolver): MergeIntoTable = {
    val targetColumns = target.output.map(_.name.toLowerCase).toSet
    def keyOf(name: String): Expression = target.output.find(a => resolver(a.name, name)).getOrElse(newColumnKey(name))
    val fromSource = m.sourceTable.output.map(a => Assignment(keyOf(a.name), a))
    def explicit(as: Seq[Assignment]): Seq[Assignment] = as.map {
      case Assignment(UnresolvedAttribute(parts), value) if Try(target.resolve(parts, resolver)).toOption.flatten.isEmpty =>
        val path = if (parts.size > 1 && !targetColumns(parts.head.toLowerCase)) parts.tail else parts
        if (path.size > 1 && targetColumns(path.head.toLowerCase)) throw newFieldByItself(parts, path)
        // a path into no column is left to Spark, which names it
        if (path.size == 1) Assignment(newColumnKey(path.head), value) else Assignment(UnresolvedAttribute(parts), value)
      case other => other
    }
    mapAssignments(mapActions(m) {
      case UpdateStarAction(condition) => UpdateAction(condition, fromSource)
      case InsertStarAction(condition) => InsertAction(condition, fromSource)
      case other => other
    })(explicit)
  }

  /** `m` with `f` applied to each of its actions. */
  private def mapActions(m: MergeIntoTable)(f: MergeAction => MergeAction): MergeIntoTable =
    m.copy(matchedActions = m.matchedActions.map(f), notMatchedActions = m.notMatchedActions.map(f),
      notMatchedBySourceActions = m.notMatchedBySourceActions.map(f))

  /** `m` with `f` applied to the assignments of each of its updates and inserts. */
  private def mapAssignments(m: MergeIntoTable)(f: Seq[Assignment] => Seq[Assignment]): MergeIntoTable = mapActions(m) {
    case u: UpdateAction => u.copy(assignments = f(u.assignments))
    case i: InsertAction => i.copy(assignments = f(i.assignments))
    case other => other
  }

  /**
   * The target's schema (`table`, the log's) widened with what `m` assigns; `table` itself when
   * nothing is new. `widenTypes` (the table has `delta.enableTypeWidening`): a column (or field)
   * assigned a wider type takes it where Delta widens by itself ([[TypeWidening.automatic]]).
   */
  private def widenedSchema(m: MergeIntoTable, table: StructType, widenTypes: Boolean): StructType = {
    val assignments = (m.matchedActions ++ m.notMatchedActions ++ m.notMatchedBySourceActions).flatMap {
      case u: UpdateAction => u.assignments
      case i: InsertAction => i.assignments
      case _ => Nil
    }
    // `t.new_column`: a first part that is not a target column is the target's alias.
    val targetColumns = m.targetTable.output.map(_.name.toLowerCase).toSet
    assignments.foldLeft(table) {
      case (schema, Assignment(key, value)) if isNewColumnKey(key) && uncast(key, value).resolved =>
        mergeInto(schema, StructField(key.asInstanceOf[Attribute].name, uncast(key, value).dataType), widenTypes)
          .getOrElse(schema)
      case (schema, Assignment(UnresolvedAttribute(parts), value)) if value.resolved =>
        val path = if (parts.size > 1 && !targetColumns(parts.head.toLowerCase)) parts.tail else parts
        if (path.size > 1) throw newFieldByItself(parts, path)
        mergeInto(schema, StructField(path.head, value.dataType), widenTypes).getOrElse(schema)
      // A value of another type than the target's, which Spark casts to the target's type: a
      // struct's new fields are added, a wider type taken where the table widens types (a
      // conflicting type is left to Spark's cast, which names it). A struct value is then matched
      // to the widened struct by name (RowChanges.castTo).
      case (schema, Assignment(key: Attribute, c: Cast)) if c.child.resolved && c.dataType == key.dataType &&
          key.dataType != c.child.dataType && (hasStruct(c.child.dataType) || widenTypes) =>
        if (widenTypes) refuseBeyondThisSpark(key, c.child.dataType)
        mergeInto(schema, StructField(key.name, c.child.dataType), widenTypes).getOrElse(schema)
      // The same value, not cast by Spark
      case (schema, Assignment(key: Attribute, value)) if value.resolved && !value.isInstanceOf[Cast] &&
          key.dataType != value.dataType && (hasStruct(value.dataType) || widenTypes) =>
        if (widenTypes) refuseBeyondThisSpark(key, value.dataType)
        mergeInto(schema, StructField(key.name, value.dataType), widenTypes).getOrElse(schema)
      case (schema, _) => schema
    }
  }

  // Silt's MERGE assigns whole columns, so a new field is added by assigning its struct whole.
  private def newFieldByItself(parts: Seq[String], path: Seq[String]) = new UnsupportedOptionException("WITH SCHEMA " +
    "EVOLUTION", s"MERGE WITH SCHEMA EVOLUTION cannot add ${parts.mkString(".")} by itself: assign the whole struct " +
    s"${path.head} (UPDATE SET *)")

  // A widening Delta makes by itself that this Spark could not read back (Spark 3.5): refused, not cast down.
  private def refuseBeyondThisSpark(key: Attribute, to: DataType): Unit = TypeWidening.beyondThisSpark(key.dataType, to)
    .foreach(why => throw new SchemaMismatchException(s"MERGE assigns column ${key.name} values of type " +
      s"${to.simpleString}, wider than its ${key.dataType.simpleString}: type widening cannot make this change here ($why)"))

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
  private def recast(m: MergeIntoTable, oldTypes: Map[ExprId, DataType]): MergeIntoTable = mapAssignments(m)(_.map {
    case Assignment(key: Attribute, c: Cast) if oldTypes.get(key.exprId).contains(c.dataType) =>
      Assignment(key, Cast(c.child, key.dataType, c.timeZoneId))
    case other => other
  })

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
    val planned = m.copy(targetTable = MergeEvolution.target(m).transformUp { case x if x eq r => scan })
      .rewriteAttrs(AttributeMap(widened.map { case (a, b) => a -> (b: Attribute) })).asInstanceOf[MergeIntoTable]
    withNewColumnsNamed(recast(planned, widened.map { case (a, _) => a.exprId -> a.dataType }.toMap))
  }

  /** `m` with each key marked new named again, for Spark to resolve against the widened target. */
  private def withNewColumnsNamed(m: MergeIntoTable): MergeIntoTable = mapAssignments(m)(_.map {
    case Assignment(key: Attribute, value) if isNewColumnKey(key) =>
      Assignment(UnresolvedAttribute(Seq(key.name)), uncast(key, value))
    case other => other
  })
}
