package io.silt.config

import scala.util.Try

import io.silt.errors.UnsupportedOptionException
import org.apache.spark.sql.{RuntimeConfig, SparkSession}

/**
 * One `spark.silt.*` session setting: its key, type, default, documentation, the values it
 * accepts, and Delta Lake's name for it if it has one. A value that does not parse is an error
 * naming the key and what it accepts.
 */
final class Setting[T] private[config] (
    val key: String,
    val defaultText: String,
    val doc: String,
    val accepted: String,
    parse: String => Option[T],
    default: Option[T],
    val deltaKey: Option[String] = None,
    deltaParse: Option[DeltaUnit[T]] = None) {

  /**
   * The same setting also under Delta Lake's name (`spark.databricks.delta.*`): code moved from
   * Delta Lake sets it there. Both keys are one setting; set to different values, it is refused.
   * `fromDelta` reads a value under Delta's name where Delta's unit is not Silt's.
   */
  def withDeltaKey(deltaName: String, fromDelta: Option[DeltaUnit[T]] = None): Setting[T] =
    new Setting(key, defaultText, doc, accepted, parse, default, Some(deltaName), fromDelta)

  /** The key the session sets this setting under (Silt's or Delta's), with its value. */
  def set(conf: RuntimeConfig): Option[(String, String)] = {
    val silt: Option[(String, String)] = conf.getOption(key).map(key -> _)
    // With delta-spark loaded, getOption would give Delta Lake's defaults too: getAll has what the session set.
    val delta: Option[(String, String)] = deltaKey.flatMap(k =>
      (if (DeltaLakeClasspath.present) conf.getAll.get(k) else conf.getOption(k)).map(k -> _))
    (silt, delta) match {
      case (Some((k1, v1)), Some((k2, v2))) if parseAs(k1, v1) != parseAs(k2, v2) =>
        throw new UnsupportedOptionException(k1, s"$k1 = '$v1' and $k2 = '$v2' are both set: they are one setting " +
          s"(Delta Lake's name and Silt's), set to different values; unset one")
      case _ => silt.orElse(delta)
    }
  }

  /** Sets the value under both keys (one setting: a program reads either), what Silt reports after a statement. */
  def record(conf: RuntimeConfig, value: T): Unit = (key +: deltaKey.toSeq).foreach(conf.set(_, value.toString))

  /** The value the session set (under either key), without the default. */
  def explicit(conf: RuntimeConfig): Option[T] = set(conf).map { case (k, v) => parseAs(k, v) }

  /** The value set in the session (under either key), or the default (None when it has none and is not set). */
  def option(conf: RuntimeConfig): Option[T] = explicit(conf).orElse(default)
  def option(spark: SparkSession): Option[T] = option(spark.conf)

  /** The value set in the session, else the default; only for settings that have a default. */
  def apply(conf: RuntimeConfig): T = option(conf).getOrElse(
    throw new IllegalStateException(s"$key has no default; read it with option()"))
  def apply(spark: SparkSession): T = apply(spark.conf)

  def parseValue(text: String): T = parseAs(key, text)

  private def parseAs(k: String, text: String): T = {
    val byDelta = deltaParse.filter(_ => matchesDeltaKey(k))
    byDelta.map(_.parse).getOrElse(parse)(text.trim).getOrElse(throw new UnsupportedOptionException(k,
      s"setting $k = '$text' is not valid: it takes ${byDelta.map(_.accepted).getOrElse(accepted)}"))
  }

  // A key with a <placeholder> (spark.silt.logStore.<scheme>.impl) declares one setting per value of it.
  private val template = "<[a-z]+>".r
  private def patternOf(k: String) = (template.split(k).map(java.util.regex.Pattern.quote).mkString("([A-Za-z0-9+.-]+)") +
    (if (k.endsWith(">")) "([A-Za-z0-9+.-]+)" else "")).r
  private val pattern = patternOf(key)
  private val deltaPattern = deltaKey.map(patternOf)

  /** Whether `k` is this setting's key, or one of its keys when the key has a placeholder. */
  def matches(k: String): Boolean = pattern.pattern.matcher(k).matches()

  /** Whether `k` is this setting's Delta Lake key (or one of them, with a placeholder). */
  def matchesDeltaKey(k: String): Boolean = deltaPattern.exists(_.pattern.matcher(k).matches())

  /**
   * Every value set in the session for a key with a placeholder, by the placeholder's value (lower
   * case unless `keepCase`), under Silt's key or Delta Lake's (Silt's wins where both are set).
   */
  def byPart(conf: RuntimeConfig, keepCase: Boolean = false): Map[String, T] =
    if (template.findFirstIn(key).isEmpty) Map.empty else {
    def under(p: scala.util.matching.Regex) = conf.getAll.toSeq.collect { case (k, v) if p.pattern.matcher(k).matches() =>
      val part = p.findFirstMatchIn(k).get.group(1)
      (if (keepCase) part else part.toLowerCase) -> parseAs(k, v)
    }.toMap
    deltaPattern.fold(Map.empty[String, T])(under) ++ under(pattern)
  }

  override def toString: String = key
}

/** How a value is read under Delta Lake's name where Delta's unit is not Silt's, and what it accepts there. */
final case class DeltaUnit[T](parse: String => Option[T], accepted: String)

/** Builders of typed settings, in the manner of Spark's `SQLConf.buildConf`. */
private[config] object Setting {
  private val parseBoolean: String => Option[Boolean] =
    v => v.toLowerCase match { case "true" => Some(true); case "false" => Some(false); case _ => None }

  def boolean(key: String, default: Boolean, doc: String): Setting[Boolean] =
    new Setting(key, default.toString, doc, "true or false",
      parseBoolean, Some(default))

  /** A boolean whose default depends on context (`defaultText` says how): unset, `option` is None. */
  def booleanOrComputed(key: String, defaultText: String, doc: String): Setting[Boolean] =
    new Setting(key, defaultText, doc, "true or false",
      parseBoolean, None)

  /**
   * A boolean whose default is Delta Lake 4.4's on Spark 4 and Delta Lake 3.3's on Spark 3.5, where
   * the reference has another default (or no such setting: the behaviour it has).
   */
  def booleanByDeltaRelease(key: String, onSpark4: Boolean, onSpark35: Boolean, doc: String): Setting[Boolean] =
    new Setting(key, s"$onSpark4 ($onSpark35 on Spark 3.5)", doc, "true or false",
      parseBoolean,
      Some(if (Spark35) onSpark35 else onSpark4))

  private lazy val Spark35 = org.apache.spark.SPARK_VERSION.startsWith("3.")

  def int(key: String, default: Int, min: Int, doc: String): Setting[Int] =
    new Setting(key, default.toString, doc, s"an integer >= $min", v => Try(v.toInt).toOption.filter(_ >= min), Some(default))

  /** An integer that is 0 (the feature is off) or at least `min`. */
  def intOrOff(key: String, min: Int, doc: String): Setting[Int] =
    new Setting(key, "0", doc, s"0 (off) or an integer >= $min", v => Try(v.toInt).toOption.filter(i => i == 0 || i >= min), Some(0))

  def long(key: String, default: Option[Long], min: Long, doc: String): Setting[Long] =
    new Setting(key, default.fold("(none)")(_.toString), doc, s"an integer >= $min", v => Try(v.toLong).toOption.filter(_ >= min), default)

  def fraction(key: String, default: Double, doc: String): Setting[Double] =
    new Setting(key, default.toString, doc, "a number from 0 to 1",
      v => Try(v.toDouble).toOption.filter(d => d >= 0 && d <= 1), Some(default))

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
