package io.silt.features

import io.silt.actions.RemoveFile
import io.silt.errors.InvalidTableOperationException
import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/** `delta.appendOnly`: a table whose rows are never deleted or rewritten. */
object AppendOnlyFeature extends Feature("appendOnly", Writer, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 2))
  override def neededBy(t: TableShape): Boolean = t.properties.appendOnly

  // The rule binds from the version that set the property on: the commit turning it on may still rewrite.
  override def checkCommit(c: PendingCommit): Unit = {
    val appendOnly = c.previous.exists(m => TableProperties(m.configuration).appendOnly)
    if (appendOnly && c.actions.exists { case r: RemoveFile => r.dataChange; case _ => false }) {
      throw new InvalidTableOperationException(s"table ${c.tablePath} is append-only " +
        s"(${TableProperties.AppendOnly.key} = true): this operation would delete or overwrite data")
    }
  }
}
