package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadOnly

/** In-commit timestamps: each commit's time in its first `commitInfo`. */
object InCommitTimestampFeature extends Feature("inCommitTimestamp", Writer, ReadOnly(
    "Silt does not write in-commit timestamps yet, so its commits would break the table's timeline"))
