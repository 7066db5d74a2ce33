package io.silt.shims

import org.apache.spark.sql.connector.read.streaming.ReadLimit

/**
 * A streaming source's limit on the bytes of one micro-batch. Spark 3.5 has none of its own; Spark hands a
 * source's default limit back to it unread, so the source's own serves.
 */
object ByteReadLimit {
  private final case class MaxBytes(bytes: Long) extends ReadLimit

  def apply(bytes: Long): ReadLimit = MaxBytes(bytes)

  def unapply(limit: ReadLimit): Option[Long] = limit match {
    case MaxBytes(bytes) => Some(bytes)
    case _ => None
  }
}
