package io.silt.shims

import org.apache.spark.sql.connector.read.streaming.{ReadLimit, ReadMaxBytes}

/** A streaming source's limit on the bytes of one micro-batch: Spark 4's own. */
object ByteReadLimit {
  def apply(bytes: Long): ReadLimit = ReadLimit.maxBytes(bytes)

  def unapply(limit: ReadLimit): Option[Long] = limit match {
    case b: ReadMaxBytes => Some(b.maxBytes)
    case _ => None
  }
}
