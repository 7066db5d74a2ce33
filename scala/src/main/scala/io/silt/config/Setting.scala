package io.silt.config

import io.silt.errors.UnsupportedOptionException
import org.apache.spark.sql.{RuntimeConfig, SparkSession}

/**
 * One `spark.silt.*` session setting: its key, type, default, documentation and the values it
 * accepts. A value that does not parse is an error naming the key and what it accepts.
 */
final class Setting[T] private[config] (
    val key: String,
    val defaultText: String,
    val doc: String,
    val accepted: String,
    parse: String => Option[T],
    default: Option[T]) {

  /** The value set in the session, or the default (None when the setting has none and is not set). */
  def option(conf: RuntimeConfig): Option[T] = conf.getOption(key).map(parseValue).orElse(default)
  def option(spark: SparkSession): Option[T] = option(spark.conf)

  /** The value set in the session, else the default; only for settings that have a default. */
  def apply(conf: RuntimeConfig): T = option(conf).getOrElse(
    throw new IllegalStateException(s"$key has no default; read it with option()"))
  def apply(spark: SparkSession): T = apply(spark.conf)

  def parseValue(text: String): T = parseAs(key, text)

  private def parseAs(k: String, text: String): T = parse(text.trim).getOrElse(
    throw new UnsupportedOptionException(k, s"setting $k = '$text' is not valid: it takes $accepted"))

  // A key with a <placeholder> (spark.silt.logStore.<scheme>.impl) declares one setting per value of it.
  private val template = "<[a-z]+>".r
  private val pattern = (template.split(key).map(java.util.regex.Pattern.quote).mkString("([A-Za-z0-9+.-]+)") +
    (if (key.endsWith(">")) "([A-Za-z0-9+.-]+)" else "")).r

  /** Whether `k` is this setting's key, or one of its keys when the key has a placeholder. */
  def matches(k: String): Boolean = pattern.matches(k)

  /** Every value set in the session for a key with a placeholder, by the placeholder's value (lower case). */
  def byPart(conf: RuntimeConfig): Map[String, T] = if (template.findFirstIn(key).isEmpty) Map.empty else conf.getAll.toSeq.collect {
    case (k, v) if matches(k) => pattern.findFirstMatchIn(k).get.group(1).toLowerCase -> parseAs(k, v)
  }.toMap

  override def toString: String = key
}

/** Builders of typed settings, in the manner of Spark's `SQLConf.buildConf`. */
private[config] object Setting {
  def boolean(key: String, default: Boolean, doc: String): Setting[Boolean] =
    new Setting(key, default.toString, doc, "true or false",
      v => v.toLowerCase match { case "true" => Some(true); case "false" => Some(false); case _ => None }, Some(default))

  def int(key: String, default: Int, min: Int, doc: String): Setting[Int] =
    new Setting(key, default.toString, doc, s"an integer >= $min", v => v.toIntOption.filter(_ >= min), Some(default))

  def long(key: String, default: Option[Long], min: Long, doc: String): Setting[Long] =
    new Setting(key, default.fold("(none)")(_.toString), doc, s"an integer >= $min", v => v.toLongOption.filter(_ >= min), default)

  def fraction(key: String, default: Double, doc: String): Setting[Double] =
    new Setting(key, default.toString, doc, "a number from 0 to 1",
      v => v.toDoubleOption.filter(d => d >= 0 && d <= 1), Some(default))

  /** A string value that `check` accepts; `accepted` says which, for the error. */
  def checked(key: String, defaultText: String, accepted: String, doc: String)(check: String => Boolean): Setting[String] =
    new Setting(key, defaultText, doc, accepted, v => Some(v).filter(check), None)

  def string(key: String, doc: String): Setting[String] =
    new Setting(key, "(none)", doc, "a string", v => Some(v), None)

  def oneOf(key: String, default: String, values: Seq[String], doc: String): Setting[String] =
    new Setting(key, default, doc, values.mkString(" or "),
      v => values.find(_.equalsIgnoreCase(v)), Some(default))

  /** A byte size such as 134217728, 128m or 1g; `defaultText` documents a default computed elsewhere. */
  def bytes(key: String, default: Option[Long], defaultText: String, doc: String): Setting[Long] =
    new Setting(key, defaultText, doc, "a byte size (e.g. 134217728, 128m, 1g)", ByteSize.parse, default)
}
