package io.silt.features

import io.silt.errors.InvalidTableOperationException
import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite
import org.apache.spark.sql.types.LongType

/**
 * Identity columns (`delta.identity.*` in a field's metadata, [[IdentityColumns]]): writes
 * generate the values of rows that leave the column out (`write.IdentityColumnWrites`).
 */
object IdentityColumnsFeature extends Feature("identityColumns", Writer, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 6))
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata(IdentityColumns.Start)

  override def checkCommit(c: PendingCommit): Unit = IdentityColumns.of(c.metadata.schema).foreach { case (f, spec) =>
    def refuse(why: String) = throw new InvalidTableOperationException(s"identity column ${f.name} of ${c.tablePath} $why")
    if (f.dataType != LongType) refuse(s"must be BIGINT, not ${f.dataType.sql}")
    if (spec.step == 0) refuse("cannot have a step of 0")
    if (c.metadata.partitionColumns.exists(_.equalsIgnoreCase(f.name))) refuse("cannot be a partition column")
  }
}
