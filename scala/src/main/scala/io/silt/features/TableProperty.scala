package io.silt.features

import scala.util.Try

import io.silt.errors.InvalidTableOperationException
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.UTF8String

/**
 * One Delta table property Silt honours, declared once: its key, Delta Lake's default (as text, for the
 * documentation), what its values must be, what it does, how a value reads, and whether only Silt's own
 * statements write it. Keys match
 * case-insensitively, as Delta's do; a value that does not read names the property and what it must be.
 */
final case class TableProperty[T](key: String, defaultText: String, expected: String, doc: String)(
    val default: T, read: String => Option[T], val keptBySilt: Boolean = false) {
  /** The same property, written by Silt's own statements (DROP FEATURE, column mapping) and not set by a user's. */
  def kept: TableProperty[T] = TableProperty(key, defaultText, expected, doc)(default, read, keptBySilt = true)

  /** The property's value in a table's `configuration`, or its default. */
  def of(configuration: Map[String, String]): T = TableProperty.lookup(configuration, key).fold(default) { v =>
    read(v).getOrElse(throw new InvalidTableOperationException(s"table property $key must be $expected, not '$v'"))
  }

  /** Whether `configuration` sets the property (whatever its value). */
  def isSet(configuration: Map[String, String]): Boolean = TableProperty.lookup(configuration, key).isDefined
}

/** The kinds of value a table property takes, each with its reader. */
object TableProperty {
  /** A key's value in `configuration`, its key compared case-insensitively, trimmed. */
  def lookup(configuration: Map[String, String], key: String): Option[String] =
    configuration.find(_._1.equalsIgnoreCase(key)).map(_._2.trim)

  private def bool(v: String): Option[Boolean] = v.toLowerCase match {
    case "true" => Some(true)
    case "false" => Some(false)
    case _ => None
  }

  def flag(key: String, default: Boolean, doc: String): TableProperty[Boolean] =
    TableProperty[Boolean](key, default.toString, "true or false", doc)(default, bool)

  /** A flag whose absence means "the table does not say" (a session setting decides then). */
  def optionalFlag(key: String, doc: String): TableProperty[Option[Boolean]] =
    TableProperty[Option[Boolean]](key, "(unset)", "true or false", doc)(None, v => bool(v).map(Some(_)))

  def int(key: String, default: Int, min: Int, doc: String): TableProperty[Int] =
    TableProperty[Int](key, default.toString, if (min == 1) "a positive integer" else s"an integer >= $min", doc)(
      default, v => Try(v.toInt).toOption.filter(_ >= min))

  def long(key: String, default: Long, expected: String, doc: String): TableProperty[Long] =
    TableProperty[Long](key, default.toString, expected, doc)(default, v => Try(v.toLong).toOption.filter(_ >= 0))

  /** A number that only some tables have (a version, a time in milliseconds). */
  def optionalLong(key: String, expected: String, doc: String): TableProperty[Option[Long]] =
    TableProperty[Option[Long]](key, "(unset)", expected, doc)(None, v => Try(v.toLong).toOption.map(Some(_)))

  /** A duration as Delta Lake writes one ('interval 30 days', '2 weeks'), read as milliseconds. */
  def duration(key: String, default: String, doc: String): TableProperty[Long] =
    TableProperty[Long](key, default, "a duration such as 'interval 30 days'", doc)(
      durationMs(default).get, durationMs)

  /** A duration that only some tables set (unset: without limit). */
  def optionalDuration(key: String, doc: String): TableProperty[Option[Long]] =
    TableProperty[Option[Long]](key, "(unset)", "a duration such as 'interval 30 days'", doc)(None,
      v => durationMs(v).filter(_ >= 0).map(Some(_)))

  def durationMs(text: String): Option[Long] = {
    val withPrefix = if (text.trim.toLowerCase.startsWith("interval")) text.trim else s"interval ${text.trim}"
    Option(IntervalUtils.safeStringToInterval(UTF8String.fromString(withPrefix))).map { i =>
      i.months * 30L * 86400000L + i.days * 86400000L + i.microseconds / 1000L
    }
  }

  /** One of named values, matched case-insensitively. */
  def oneOf[T](key: String, values: Seq[T], name: T => String, default: T, doc: String): TableProperty[T] =
    TableProperty[T](key, name(default), values.map(name).mkString(" or "), doc)(default,
      v => values.find(name(_).equalsIgnoreCase(v)))

  /** A comma-separated set of format names, each one of `known` (matched case-insensitively); unset: none. */
  def formats(key: String, known: Seq[String], doc: String): TableProperty[Set[String]] =
    TableProperty[Set[String]](key, "(unset)", s"a comma-separated list of ${known.mkString(", ")}", doc)(Set.empty, v => {
      val names = v.split(",").toSeq.map(_.trim.toLowerCase).filter(_.nonEmpty)
      if (names.forall(known.contains) && names.distinct.size == names.size) Some(names.toSet) else None
    })

  /** A comma-separated list of column names. */
  def columns(key: String, doc: String): TableProperty[Option[Seq[String]]] =
    TableProperty[Option[Seq[String]]](key, "(unset)", "a comma-separated list of columns", doc)(None,
      v => Some(Some(v.split(",").toSeq.map(_.trim).filter(_.nonEmpty))))
}
