package io.silt.log

import io.silt.actions._
import io.silt.logstore._
import java.nio.charset.StandardCharsets
import java.security.MessageDigest

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.hadoop.fs.Path

/**
 * The `_last_checkpoint` file: a hint pointing readers at the newest checkpoint, with the MD5
 * checksum of its canonical form that the protocol defines (paths of quoted, URL-encoded names
 * joined by '+', sorted bytewise, `path=value` pairs joined by ',', the checksum key left out).
 */
object LastCheckpoint {

  /** The JSON text of `_last_checkpoint` for these fields, with its checksum added. */
  def render(fields: ObjectNode): String = {
    fields.remove("checksum")
    fields.put("checksum", checksum(fields))
    ActionCodec.mapper.writeValueAsString(fields)
  }

  /**
   * The version `_last_checkpoint` in `logPath` points at; None when it is missing or unreadable.
   * Only a hint: readers check that the checkpoint is really there before trusting it.
   */
  def hintedVersion(store: LogStore, logPath: Path): Option[Long] =
    try {
      val lines = store.readLines(new Path(logPath, FileNames.LastCheckpoint))
      lines.headOption.map(ActionCodec.mapper.readTree).flatMap(n => Option(n.get("version"))).filter(_.canConvertToLong)
        .map(_.asLong).filter(_ >= 0)
    } catch { case NonFatal(_) => None }

  def checksum(node: JsonNode): String = {
    val md5 = MessageDigest.getInstance("MD5").digest(canonicalize(node).getBytes(StandardCharsets.UTF_8))
    md5.map("%02x".format(_)).mkString
  }

  def canonicalize(node: JsonNode): String = {
    val pairs = ArrayBuffer.empty[(String, String)]
    def walk(n: JsonNode, path: List[String]): Unit = {
      if (n.isObject) n.properties().asScala.foreach { e =>
        if (!(path.isEmpty && e.getKey == "checksum")) walk(e.getValue, path :+ ("\"" + encode(e.getKey) + "\""))
      } else if (n.isArray) n.elements().asScala.zipWithIndex.foreach { case (v, i) => walk(v, path :+ i.toString) }
      else if (n.isTextual) pairs += (path.mkString("+") -> ("\"" + encode(n.asText) + "\""))
      else pairs += (path.mkString("+") -> n.toString)
    }
    walk(node, Nil)
    pairs.sortWith((a, b) => compareBytes(a._1.getBytes(StandardCharsets.UTF_8), b._1.getBytes(StandardCharsets.UTF_8)) < 0)
      .map { case (p, v) => s"$p=$v" }.mkString(",")
  }

  /** Percent-encodes every UTF-8 byte except A-Z a-z 0-9 - . _ ~, with uppercase hex. */
  def encode(s: String): String = {
    val sb = new StringBuilder
    s.getBytes(StandardCharsets.UTF_8).foreach { b =>
      val c = (b & 0xff).toChar
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) sb.append(c)
      else sb.append("%%%02X".format(b & 0xff))
    }
    sb.toString
  }

  private def compareBytes(a: Array[Byte], b: Array[Byte]): Int = java.util.Arrays.compareUnsigned(a, b)
}
