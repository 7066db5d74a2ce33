package io.silt.features

import io.silt.actions.Metadata
import io.silt.errors.InvalidTableOperationException
import org.apache.spark.sql.types.{LongType, MetadataBuilder, StructField, StructType}

/**
 * An identity column's definition, from its field metadata: values `start + k * step` (k >= 0)
 * that writes generate for rows that leave the column out; `highWaterMark`: the last value
 * generated (in the step's direction), None before the first; `allowExplicitInsert`: BY DEFAULT
 * (a write may give values) rather than ALWAYS.
 */
final case class IdentitySpec(start: Long, step: Long, allowExplicitInsert: Boolean, highWaterMark: Option[Long]) {
  /** The first value the next write generates: the step after the mark, else the start. */
  def nextValue: Long = highWaterMark.map(m => Math.addExact(m, step)).getOrElse(start)

  /** The mark after a write that generated values up to `last` (in the step's direction). */
  def after(last: Long): Long = highWaterMark.fold(last)(m => if (step > 0) math.max(m, last) else math.min(m, last))
}

/** Identity columns (the `identityColumns` feature): their metadata keys and definitions. */
object IdentityColumns {
  val Start = "delta.identity.start"
  val Step = "delta.identity.step"
  val HighWaterMark = "delta.identity.highWaterMark"
  val AllowExplicitInsert = "delta.identity.allowExplicitInsert"

  def specOf(f: StructField): Option[IdentitySpec] =
    if (!f.metadata.contains(Start)) None
    else Some(IdentitySpec(f.metadata.getLong(Start), if (f.metadata.contains(Step)) f.metadata.getLong(Step) else 1L,
      f.metadata.contains(AllowExplicitInsert) && f.metadata.getBoolean(AllowExplicitInsert),
      if (f.metadata.contains(HighWaterMark)) Some(f.metadata.getLong(HighWaterMark)) else None))

  /** The identity columns of a schema (top level: Delta has no nested ones), with their definitions. */
  def of(schema: StructType): Seq[(StructField, IdentitySpec)] = schema.fields.toSeq.flatMap(f => specOf(f).map(f -> _))

  /** `f` as an identity column; refused unless it is a BIGINT with a non-zero step. */
  def define(f: StructField, start: Long, step: Long, allowExplicitInsert: Boolean): StructField = {
    if (f.dataType != LongType) throw new InvalidTableOperationException(s"identity column ${f.name} must be BIGINT, " +
      s"not ${f.dataType.sql}")
    if (step == 0) throw new InvalidTableOperationException(s"identity column ${f.name} cannot have a step of 0")
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putLong(Start, start).putLong(Step, step)
      .putBoolean(AllowExplicitInsert, allowExplicitInsert).build())
  }

  /** The commitInfo tag Delta Lake writes on a commit whose metadata change is only identity columns' marks. */
  val OnlyMarksTag = "delta.identity.schemaUpdate"

  /**
   * Whether `after` differs from `before` in identity columns' high-water marks alone: what a write that
   * generated identity values commits, and what a concurrent transaction that changes no metadata may build on.
   */
  def onlyMarksChanged(before: Metadata, after: Metadata): Boolean = before != after && {
    def unmarked(m: Metadata) = m.copy(schemaString = StructType(m.schema.fields.map { f =>
      if (!f.metadata.contains(HighWaterMark)) f
      else f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).remove(HighWaterMark).build())
    }).json)
    unmarked(before) == unmarked(after)
  }

  /** `schema` with each identity column's mark moved to the value `marks` gives it (by column name). */
  def withMarks(schema: StructType, marks: Map[String, Long]): StructType = StructType(schema.fields.map { f =>
    marks.get(f.name).map(m => f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putLong(HighWaterMark, m)
      .build())).getOrElse(f)
  })
}
