package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** VACUUM checks the writer protocol as well as the reader's (Silt's VACUUM always does). */
object VacuumProtocolCheckFeature extends Feature("vacuumProtocolCheck", ReaderWriter, ReadWrite) {
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Nil))
}
