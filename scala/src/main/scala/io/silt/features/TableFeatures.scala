package io.silt.features

import io.silt.actions._
import io.silt.errors.UnsupportedTableFeatureException
import org.apache.spark.sql.types.StructType

/**
 * Every Delta table feature Silt knows (each one file implementing [[TableFeature]]), and what
 * the protocol makes of them: which features a table needs, the least protocol holding them,
 * and the checks that refuse a table needing something Silt does not read or write, naming it.
 */
object TableFeatures {
  val MaxReaderVersion = 3
  val MaxWriterVersion = 7

  /** The registry: every feature of Delta 4.4, in the protocol's order. */
  val all: Seq[TableFeature] = Seq(AppendOnlyFeature, InvariantsFeature, CheckConstraintsFeature, GeneratedColumnsFeature,
    ColumnDefaultsFeature, ChangeDataFeedFeature, ColumnMappingFeature, IdentityColumnsFeature, DeletionVectorsFeature,
    RowTrackingFeature, TimestampNtzFeature, DomainMetadataFeature, V2CheckpointFeature, ClusteringFeature,
    VacuumProtocolCheckFeature, InCommitTimestampFeature, new TypeWideningFeature(preview = false),
    new TypeWideningFeature(preview = true), new VariantTypeFeature(preview = false), new VariantTypeFeature(preview = true),
    CheckpointProtectionFeature, new IcebergCompatFeature(1), new IcebergCompatFeature(2)) ++ RefusedFeatures.all

  private val byName: Map[String, TableFeature] = all.map(f => f.name.toLowerCase -> f).toMap

  /** The feature of this name, matched case-insensitively. */
  def named(name: String): Option[TableFeature] = byName.get(name.toLowerCase)

  /** `m` (a new or replaced table's) with the properties the features it needs imply, where it does not set them. */
  def withImpliedProperties(m: Metadata): Metadata = {
    val shape = TableShape.of(m)
    val implied = all.filter(_.neededBy(shape)).flatMap(_.impliedProperties)
      .filterNot { case (k, _) => m.configuration.keys.exists(_.equalsIgnoreCase(k)) }
    if (implied.isEmpty) m else m.copy(configuration = m.configuration ++ implied)
  }

  /** The features `p` declares, and for a legacy protocol those its versions imply and `m` uses. */
  def active(p: Protocol, m: Metadata): Seq[TableFeature] = {
    val shape = TableShape.of(m)
    if (p.minWriterVersion == 7) (p.readerFeatures.getOrElse(Set.empty) ++ p.writerFeatures.getOrElse(Set.empty) ++
      impliedByReader(p)).toSeq.flatMap(named)
    else legacyFeatures(p.minWriterVersion).filter(f => f.support.writes || f.neededBy(shape))
  }

  /** Every feature `p` declares (for a legacy protocol, every one its versions imply); unknown names left out. */
  def declared(p: Protocol): Seq[TableFeature] =
    if (p.minWriterVersion == 7) (p.readerFeatures.getOrElse(Set.empty) ++ p.writerFeatures.getOrElse(Set.empty) ++
      impliedByReader(p)).toSeq.sorted.flatMap(named)
    else legacyFeatures(p.minWriterVersion) ++ impliedByReader(p).flatMap(named)

  /** Refuses to read a table that needs something this reader does not implement. */
  def checkReadable(tablePath: String, p: Protocol, m: Metadata): Unit = {
    if (p.minReaderVersion > MaxReaderVersion) {
      throw new UnsupportedTableFeatureException(tablePath, Seq(s"reader version ${p.minReaderVersion}"),
        s"Silt reads Delta reader versions up to $MaxReaderVersion")
    }
    // Reader version 2 implies column mapping, which Silt reads; version 3 lists what readers need.
    val needed = if (p.minReaderVersion == 3) p.readerFeatures.getOrElse(Set.empty).toSeq.sorted else Nil
    refuse(tablePath, needed, f => f.support.reads || !f.isReaderWriter, "read")
    active(p, m).foreach(_.checkRead(tablePath, m))
  }

  /** Refuses to write a table whose protocol or metadata needs writer rules Silt does not follow. */
  def checkWritable(tablePath: String, p: Protocol, m: Metadata): Unit = {
    checkReadable(tablePath, p, m)
    if (p.minWriterVersion > MaxWriterVersion) {
      throw new UnsupportedTableFeatureException(tablePath, Seq(s"writer version ${p.minWriterVersion}"),
        s"Silt writes Delta writer versions up to $MaxWriterVersion", forWrite = true)
    }
    val declared = if (p.minWriterVersion == 7) p.writerFeatures.getOrElse(Set.empty).toSeq.sorted
                   else active(p, m).map(_.name).sorted
    refuse(tablePath, declared, _.support.writes, "write")
  }

  /** Throws, naming every feature in `names` that is unknown or not `ok`, and why Silt lacks each. */
  private def refuse(tablePath: String, names: Seq[String], ok: TableFeature => Boolean, verb: String): Unit = {
    val missing = names.filterNot(n => named(n).exists(ok))
    if (missing.nonEmpty) {
      val why = missing.map(n => named(n).map(_.support) match {
        case Some(FeatureSupport.ReadOnly(w)) => s"$n: $w"
        case Some(FeatureSupport.Refused(w)) => s"$n: $w"
        case _ => s"$n: a feature Silt does not know"
      })
      throw new UnsupportedTableFeatureException(tablePath, missing.map(f => s"table feature '$f'"),
        s"Silt cannot $verb tables with ${missing.mkString(", ")} (${why.mkString("; ")})", forWrite = verb == "write")
    }
  }

  /** The features a table of this shape needs, with the features they require. */
  def neededBy(shape: TableShape): Seq[TableFeature] = withRequired(all.filter(_.neededBy(shape)))

  /** `features` and everything they require, transitively. */
  def withRequired(features: Seq[TableFeature]): Seq[TableFeature] = {
    val more = features.flatMap(_.requires).flatMap(named).filterNot(features.contains)
    if (more.isEmpty) features.distinct else withRequired(features ++ more)
  }

  /** The protocol a new table with this schema and these properties (and clustering, when `clustered`) needs. */
  def protocolFor(schema: StructType, configuration: Map[String, String], clustered: Boolean = false): Protocol =
    protocolOf(neededBy(TableShape(schema, TableProperties(configuration), clustered)))

  /**
   * The protocol Delta Lake gives a new table with this schema and these properties: its default
   * (1, 2) when that holds what the table needs, else table features (writer 7), listing what the
   * table needs and what (1, 2) implies (appendOnly, invariants), as Delta Lake's merge of its
   * default with the needed features lists them. Reader 2 stays for column mapping alone.
   */
  def protocolForNewTable(schema: StructType, configuration: Map[String, String], clustered: Boolean = false): Protocol = {
    val features = neededBy(TableShape(schema, TableProperties(configuration), clustered))
    val default = Protocol(1, 2)
    if (covers(default, protocolOf(features))) default
    else {
      val r = features.filter(_.isReaderWriter).map(_.name).toSet
      val w = features.map(_.name).toSet ++ legacyOf(default)
      if (r.isEmpty) Protocol(1, 7, None, Some(w))
      else if (r == Set(ColumnMappingFeature.name)) Protocol(2, 7, None, Some(w))
      else Protocol(3, 7, Some(r), Some(w))
    }
  }

  /**
   * The least protocol holding `features`: the legacy versions that imply them when there are
   * no reader features but column mapping, else reader 3 (or 2 for column mapping) and writer 7.
   */
  def protocolOf(features: Seq[TableFeature]): Protocol = {
    val r = features.filter(_.isReaderWriter).map(_.name).toSet
    val w = features.map(_.name).toSet
    val legacy = (2 to 6).find(v => w.subsetOf(legacyFeatures(v).map(_.name).toSet))
    if (r.isEmpty && legacy.isDefined) Protocol(1, legacy.get)
    else if (r == Set(ColumnMappingFeature.name) && legacy.isDefined) Protocol(2, math.max(5, legacy.get))
    else if (r.isEmpty) Protocol(1, 7, None, Some(w))
    else if (r == Set(ColumnMappingFeature.name)) Protocol(2, 7, None, Some(w))
    else Protocol(3, 7, Some(r), Some(w))
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
      val readerFeatures = p.readerFeatures.getOrElse(impliedByReader(p)) ++ needed.readerFeatures.getOrElse(Set.empty)
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
    val pReader = p.readerFeatures.getOrElse(impliedByReader(p))
    p.minReaderVersion >= needed.minReaderVersion && writerVersionOk &&
      needed.readerFeatures.getOrElse(Set.empty).subsetOf(pReader) &&
      neededWriter.subsetOf(p.writerFeatures.getOrElse(Set.empty) ++ legacyOf(p))
  }

  /** Reader version 2 implies column mapping, which a reader-features list must then name. */
  private def impliedByReader(p: Protocol): Set[String] =
    if (p.minReaderVersion == 2) Set(ColumnMappingFeature.name) else Set.empty

  /** The supported features a legacy protocol (writer below 7) implies; none for writer 7. */
  private def legacyOf(p: Protocol): Set[String] =
    if (p.minWriterVersion >= 7) Set.empty
    else legacyFeatures(p.minWriterVersion).filter(_.support.writes).map(_.name).toSet ++ impliedByReader(p)

  /** The features a legacy writer version (below 7) implies. */
  private def legacyFeatures(writer: Int): Seq[TableFeature] = all.filter(_.legacyVersions.exists(_._2 <= writer))
}
