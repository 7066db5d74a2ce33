package io.silt.config

import scala.util.Try

/** Byte sizes as settings and options write them. */
object ByteSize {
  /** A positive byte size such as 134217728, 128m or 1g, as bytes; None when it is not one. */
  def parse(value: String): Option[Long] = {
    val (digits, unit) = value.toLowerCase.span(_.isDigit)
    val multiplier = unit.stripSuffix("b") match {
      case "" => Some(1L)
      case "k" => Some(1L << 10)
      case "m" => Some(1L << 20)
      case "g" => Some(1L << 30)
      case _ => None
    }
    if (digits.isEmpty) None else multiplier.flatMap(m => Try(digits.toLong).toOption.map(_ * m)).filter(_ > 0)
  }
}
