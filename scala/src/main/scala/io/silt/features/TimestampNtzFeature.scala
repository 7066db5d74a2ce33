package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite
import org.apache.spark.sql.types.TimestampNTZType

/** TIMESTAMP_NTZ columns. */
object TimestampNtzFeature extends Feature("timestampNtz", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = t.containsType(_.isInstanceOf[TimestampNTZType])
}
