package io.silt.txn

/** What a commit did, as recorded in its commitInfo and shown by DESCRIBE HISTORY. */
final case class Operation(
    name: String,
    parameters: Map[String, String] = Map.empty,
    metrics: Map[String, Long] = Map.empty,
    userMetadata: Option[String] = None)
