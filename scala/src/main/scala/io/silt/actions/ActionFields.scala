package io.silt.actions

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode

/**
 * The fields of one action by name, wherever they are read from: a commit line's JSON object, or
 * a checkpoint's Parquet row ([[ParquetActionRows]]), so that one decoder builds the file actions
 * of both ([[ActionCodec.addOf]]) without turning a million checkpoint rows into JSON first.
 */
trait ActionFields {
  def text(name: String): Option[String]
  def long(name: String): Option[Long]
  def bool(name: String): Option[Boolean]
  /** A map of strings (empty when absent); null values stay null (a null partition value). */
  def strings(name: String): Map[String, String]
  def struct(name: String): Option[ActionFields]
  /** The whole action as JSON, for the decoders that read JSON. */
  def json: JsonNode
}

/** The fields of a JSON object. */
final class JsonFields(val json: JsonNode) extends ActionFields {
  private def opt(name: String): Option[JsonNode] = Option(json.get(name)).filterNot(_.isNull)
  def text(name: String): Option[String] = opt(name).map(_.asText)
  def long(name: String): Option[Long] = opt(name).map(_.asLong)
  def bool(name: String): Option[Boolean] = opt(name).map(_.asBoolean)
  def strings(name: String): Map[String, String] = opt(name).map(_.properties().asScala.map { e =>
    e.getKey -> (if (e.getValue.isNull) null else e.getValue.asText)
  }.toMap).getOrElse(Map.empty)
  def struct(name: String): Option[ActionFields] = opt(name).map(new JsonFields(_))
}
