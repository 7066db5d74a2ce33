package io.silt.features

import io.silt.actions._
import io.silt.errors.UnsupportedTableFeatureException
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType, TimestampNTZType}

/**
 * The protocol versions and table features Silt reads and writes, and the checks that refuse a
 * table needing anything else, naming what is missing.
 */
object TableFeatures {
  val MaxReaderVersion = 3
  val MaxWriterVersion = 7

  /** Reader features whose semantics this engine implements when reading. */
  val SupportedReaderFeatures: Set[String] = Set("timestampNtz", "vacuumProtocolCheck", "deletionVectors", "v2Checkpoint", "columnMapping")

  /** Writer features whose rules this engine follows when writing. */
  val SupportedWriterFeatures: Set[String] =
    Set("appendOnly", "invariants", "checkConstraints", "timestampNtz", "vacuumProtocolCheck", "domainMetadata",
      "deletionVectors", "v2Checkpoint", "columnMapping", "changeDataFeed", Clustering.Feature)

  /** Refuses to read a table that needs something this reader does not implement. */
  def checkReadable(tablePath: String, p: Protocol, m: Metadata): Unit = {
    if (p.minReaderVersion > MaxReaderVersion) {
      throw new UnsupportedTableFeatureException(tablePath, Seq(s"reader version ${p.minReaderVersion}"),
        s"Silt reads Delta reader versions up to $MaxReaderVersion")
    }
    // Reader version 2 implies column mapping, which Silt reads.
    val missing = if (p.minReaderVersion == 3) {
      p.readerFeatures.getOrElse(Set.empty).diff(SupportedReaderFeatures).toSeq.sorted
    } else Nil
    if (missing.nonEmpty) {
      throw new UnsupportedTableFeatureException(tablePath, missing.map(f => s"table feature '$f'"),
        s"Silt cannot read tables with ${missing.mkString(", ")} yet")
    }
  }

  /** Refuses to write a table whose protocol or metadata needs writer rules Silt does not follow. */
  def checkWritable(tablePath: String, p: Protocol, m: Metadata): Unit = {
    checkReadable(tablePath, p, m)
    if (p.minWriterVersion > MaxWriterVersion) {
      throw new UnsupportedTableFeatureException(tablePath, Seq(s"writer version ${p.minWriterVersion}"),
        s"Silt writes Delta writer versions up to $MaxWriterVersion")
    }
    val declared = if (p.minWriterVersion == 7) p.writerFeatures.getOrElse(Set.empty)
                   else legacyWriterFeatures(p.minWriterVersion)
    // A legacy protocol implies features that only bind when the metadata uses them.
    val active = if (p.minWriterVersion == 7) declared else declared.filter(f => usedBy(f, m))
    val missing = active.diff(SupportedWriterFeatures).toSeq.sorted
    if (missing.nonEmpty) {
      throw new UnsupportedTableFeatureException(tablePath, missing.map(f => s"table feature '$f'"),
        s"Silt cannot write tables with ${missing.mkString(", ")} yet")
    }
  }

  /** The protocol a new table with this schema and these properties (and clustering, when `clustered`) needs. */
  def protocolFor(schema: StructType, configuration: Map[String, String], clustered: Boolean = false): Protocol = {
    val readerFeatures = Set.newBuilder[String]
    val writerFeatures = Set.newBuilder[String]
    if (containsType(schema, _.isInstanceOf[TimestampNTZType])) {
      readerFeatures += "timestampNtz"
      writerFeatures += "timestampNtz"
    }
    val props = TableProperties(configuration)
    if (props.deletionVectorsEnabled) {
      readerFeatures += "deletionVectors"
      writerFeatures += "deletionVectors"
    }
    if (props.checkpointPolicy == CheckpointPolicy.V2) {
      readerFeatures += "v2Checkpoint"
      writerFeatures += "v2Checkpoint"
    }
    if (props.columnMappingMode != ColumnMappingMode.None) {
      readerFeatures += "columnMapping"
      writerFeatures += "columnMapping"
    }
    if (props.appendOnly) {
      writerFeatures += "appendOnly"
    }
    if (props.changeDataFeed) {
      writerFeatures += "changeDataFeed"
    }
    if (clustered) {
      writerFeatures += Clustering.Feature
      writerFeatures += "domainMetadata"
    }
    if (props.checkConstraints.nonEmpty) {
      writerFeatures += "checkConstraints"
    }
    if (anyFieldMetadata(schema, "delta.invariants")) {
      writerFeatures += "invariants"
    }
    val r = readerFeatures.result()
    val w = writerFeatures.result()
    // Without reader features (or with column mapping only, reader version 2), the legacy writer
    // version that implies the features is enough.
    val legacy = (2 to 5).find(v => w.subsetOf(legacyWriterFeatures(v)))
    if (r.isEmpty && legacy.isDefined) Protocol(1, legacy.get)
    else if (r == Set("columnMapping") && legacy.isDefined) Protocol(2, math.max(5, legacy.get))
    // Writer features beyond the legacy versions (clustering) without reader features: reader 1
    // (or 2 for column mapping), as Delta Lake writes it.
    else if (r.isEmpty) Protocol(1, 7, None, Some(w))
    else if (r == Set("columnMapping")) Protocol(2, 7, None, Some(w ++ r))
    else Protocol(3, 7, Some(r), Some(w ++ r))
  }

  /**
   * The least protocol at or above both `current` (None: a new table) and `needed`: the same
   * protocol when it already has everything, else the higher versions, and once either uses
   * table features (writer 7), the union of both feature lists with what a legacy version implied.
   */
  def merge(current: Option[Protocol], needed: Protocol): Protocol = current match {
    case None => needed
    case Some(p) if covers(p, needed) => p
    case Some(p) if p.minWriterVersion < 7 && needed.minWriterVersion < 7 =>
      Protocol(math.max(p.minReaderVersion, needed.minReaderVersion), math.max(p.minWriterVersion, needed.minWriterVersion))
    case Some(p) =>
      val reader = math.max(p.minReaderVersion, needed.minReaderVersion)
      // Reader version 2 implies column mapping, which a reader-features list must then name.
      val impliedReader = if (p.minReaderVersion == 2) Set("columnMapping") else Set.empty[String]
      val readerFeatures = p.readerFeatures.getOrElse(impliedReader) ++ needed.readerFeatures.getOrElse(Set.empty)
      Protocol(reader, 7, if (reader >= 3) Some(readerFeatures) else None,
        Some(p.writerFeatures.getOrElse(Set.empty) ++ needed.writerFeatures.getOrElse(Set.empty) ++ legacyOf(p) ++
          legacyOf(needed) ++ (if (reader >= 3) readerFeatures else Set.empty)))
  }

  /** Whether `p` already has all `needed` asks for (features a legacy version implies included). */
  private def covers(p: Protocol, needed: Protocol): Boolean = {
    val neededWriter = needed.writerFeatures.getOrElse(Set.empty)
    // Writer 7 asked for only to name features: covered when p's legacy version implies them all.
    val writerVersionOk = p.minWriterVersion >= needed.minWriterVersion ||
      (needed.minWriterVersion == 7 && neededWriter.nonEmpty)
    val pReader: Set[String] = p.readerFeatures.getOrElse(if (p.minReaderVersion == 2) Set("columnMapping") else Set.empty[String])
    p.minReaderVersion >= needed.minReaderVersion && writerVersionOk &&
      needed.readerFeatures.getOrElse(Set.empty).subsetOf(pReader) &&
      neededWriter.subsetOf(p.writerFeatures.getOrElse(Set.empty) ++ legacyOf(p))
  }

  /** The supported features a legacy protocol (writer below 7) implies; none for writer 7. */
  private def legacyOf(p: Protocol): Set[String] =
    if (p.minWriterVersion >= 7) Set.empty
    else legacyWriterFeatures(p.minWriterVersion).intersect(SupportedWriterFeatures) ++
      (if (p.minReaderVersion == 2) Set("columnMapping") else Set.empty)

  /** The features a legacy writer version (below 7) implies. */
  def legacyWriterFeatures(version: Int): Set[String] = {
    val byVersion = Seq(
      2 -> Set("appendOnly", "invariants"),
      3 -> Set("checkConstraints"),
      4 -> Set("changeDataFeed", "generatedColumns"),
      5 -> Set("columnMapping"),
      6 -> Set("identityColumns"))
    byVersion.filter(_._1 <= version).flatMap(_._2).toSet
  }

  private def usedBy(feature: String, m: Metadata): Boolean = feature match {
    case "checkConstraints" => TableProperties(m.configuration).checkConstraints.nonEmpty
    case "changeDataFeed" => TableProperties(m.configuration).changeDataFeed
    case "generatedColumns" => anyFieldMetadata(m.schema, "delta.generationExpression")
    case "columnMapping" => TableProperties(m.configuration).columnMappingMode != ColumnMappingMode.None
    case "identityColumns" => anyFieldMetadata(m.schema, "delta.identity.start")
    case _ => true
  }

  private def anyFieldMetadata(dt: DataType, key: String): Boolean = dt match {
    case s: StructType => s.fields.exists(f => f.metadata.contains(key) || anyFieldMetadata(f.dataType, key))
    case a: ArrayType => anyFieldMetadata(a.elementType, key)
    case m: MapType => anyFieldMetadata(m.keyType, key) || anyFieldMetadata(m.valueType, key)
    case _ => false
  }

  def containsType(dt: DataType, p: DataType => Boolean): Boolean = dt match {
    case s: StructType => s.fields.exists(f => containsType(f.dataType, p))
    case a: ArrayType => containsType(a.elementType, p)
    case m: MapType => containsType(m.keyType, p) || containsType(m.valueType, p)
    case other => p(other)
  }
}
