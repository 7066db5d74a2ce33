package io.silt.features

import scala.util.Try

import io.silt.actions._
import io.silt.errors.{UnsupportedOptionException, UnsupportedTableFeatureException}

/**
 * What the protocol table properties ask for: `delta.minReaderVersion`, `delta.minWriterVersion`
 * and `delta.feature.<name> = supported` (DeltaTable.upgradeTableProtocol / addFeatureSupport,
 * or TBLPROPERTIES). As in Delta Lake they change the protocol, never the metadata's
 * configuration, and only upward: asking for less than the table has changes nothing.
 */
final case class ProtocolRequest(minReader: Option[Int], minWriter: Option[Int], features: Set[String]) {
  /** The least protocol that satisfies the request (to be merged with the table's by [[TableFeatures.merge]]). */
  def protocol: Protocol = {
    val all = TableFeatures.withRequired(features.toSeq.flatMap(TableFeatures.named))
    val withDependencies = all.map(_.name).toSet
    val readerFeatures = all.filter(_.isReaderWriter).map(_.name).toSet
    val reader = minReader.getOrElse(1)
    val writer = minWriter.getOrElse(1)
    if (readerFeatures.nonEmpty || reader == 3) Protocol(3, 7, Some(readerFeatures), Some(withDependencies))
    else if (withDependencies.nonEmpty || writer == 7) Protocol(reader, 7, None, Some(withDependencies))
    else Protocol(reader, writer)
  }
}

object ProtocolRequest {
  val MinReaderKey = "delta.minReaderVersion"
  val MinWriterKey = "delta.minWriterVersion"
  val FeaturePrefix = "delta.feature."
  /** The values `delta.feature.<name>` may have; Delta Lake accepts both. */
  val FeatureStatuses: Set[String] = Set("supported", "enabled")

  /** The protocol as Delta Lake lists it among a table's properties (SHOW TBLPROPERTIES, DESCRIBE EXTENDED). */
  def asProperties(protocol: Protocol): Map[String, String] =
    Map(MinReaderKey -> protocol.minReaderVersion.toString, MinWriterKey -> protocol.minWriterVersion.toString) ++
      (protocol.readerFeatures.getOrElse(Set.empty) ++ protocol.writerFeatures.getOrElse(Set.empty))
        .map(name => s"$FeaturePrefix$name" -> "supported")

  def isProtocolKey(key: String): Boolean = {
    val k = key.toLowerCase
    k == MinReaderKey.toLowerCase || k == MinWriterKey.toLowerCase || k.startsWith(FeaturePrefix)
  }

  /** The request among `properties` and the properties left for the metadata; a bad value is refused, naming it. */
  def parse(tablePath: String, properties: Map[String, String]): (ProtocolRequest, Map[String, String]) = {
    val (protocolProps, rest) = properties.partition { case (k, _) => isProtocolKey(k) }
    def version(key: String, max: Int): Option[Int] = protocolProps.collectFirst {
      case (k, v) if k.equalsIgnoreCase(key) =>
        Try(v.trim.toInt).toOption.filter(n => n >= 1 && n <= max).getOrElse(throw new UnsupportedOptionException(key,
          s"$key must be one of ${(1 to max).mkString(", ")}, not '$v'"))
    }
    val writable = TableFeatures.all.filter(_.support.writes).map(_.name)
    val features = protocolProps.collect { case (k, v) if k.toLowerCase.startsWith(FeaturePrefix) =>
      val name = k.substring(FeaturePrefix.length)
      if (!FeatureStatuses.contains(v.trim.toLowerCase)) {
        throw new UnsupportedOptionException(k, s"$k must be 'supported' (or 'enabled'), not '$v': a table " +
          "feature cannot be removed by a property")
      }
      val why = TableFeatures.named(name).map(_.support) match {
        case Some(FeatureSupport.ReadOnly(w)) => w
        case Some(FeatureSupport.Refused(w)) => w
        case Some(_) => ""
        case None => "Delta has no such feature"
      }
      TableFeatures.named(name).filter(_.support.writes).map(_.name).getOrElse(throw new UnsupportedTableFeatureException(
        tablePath, Seq(s"table feature '$name'"), s"$why; Silt writes the features ${writable.sorted.mkString(", ")}"))
    }.toSet
    (ProtocolRequest(version(MinReaderKey, TableFeatures.MaxReaderVersion), version(MinWriterKey,
      TableFeatures.MaxWriterVersion), features), rest)
  }
}
