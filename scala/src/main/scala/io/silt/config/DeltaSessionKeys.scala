package io.silt.config

import scala.io.Source
import scala.util.Try

import io.silt.errors.UnsupportedOptionException
import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.RuntimeConfig
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.UTF8String

/** What Silt does with one of Delta Lake's session settings. */
sealed abstract class DeltaKeyTreatment(val name: String) extends Serializable {
  override def toString: String = name
}

object DeltaKeyTreatment {
  /** The Delta Lake name of a Silt setting ([[Setting.withDeltaKey]]): set under either key, it is honoured. */
  case object Honoured extends DeltaKeyTreatment("honoured")
  /** It tunes Delta Lake's own implementation (caches, shuffles, state partitions): accepted, changes nothing. */
  case object NoEffect extends DeltaKeyTreatment("no effect")
  /** It changes a behaviour Silt does not have: Silt behaves as Delta's default, and refuses any other value. */
  case object NotImplemented extends DeltaKeyTreatment("not implemented")
  val all: Seq[DeltaKeyTreatment] = Seq(Honoured, NoEffect, NotImplemented)
}

/**
 * One key Delta Lake registers under `spark.databricks.delta.` (or `spark.databricks.io.skipping.`)
 * that is no Silt setting's Delta name: what Silt does with it, Delta's default (None: Delta has
 * none), the statements another value would change, and what it means.
 */
final case class DeltaKey(key: String, treatment: DeltaKeyTreatment, deltaDefault: Option[String],
    kinds: Set[StatementKind], meaning: String) {
  /** Whether `value` asks for other than Delta's default, which is what Silt does. */
  def refuses(value: String): Boolean = deltaDefault.forall(d => !DeltaKey.sameValue(d, value))
}

/** Reading Delta Lake's keys that Silt lists: their declarations, values and names. */
object DeltaKey {
  /** Delta writes defaults as Spark renders them (`2097152b`, `3600000ms`, `3.0`, `interval 1 week`): compared as values. */
  def sameValue(a: String, b: String): Boolean = {
    val (x, y) = (a.trim.toLowerCase, b.trim.toLowerCase)
    def as[T](f: String => T): Boolean = Try(f(x) == f(y)).getOrElse(false)
    def interval(s: String) = Option(IntervalUtils.safeStringToInterval(UTF8String.fromString(
      if (s.startsWith("interval")) s else s"interval $s"))).get
    x == y || as(BigDecimal(_)) || as(ByteSize.parse(_).get) || as(JavaUtils.timeStringAsMs) ||
      as(s => Try(JavaUtils.byteStringAsBytes(s)).get) || as(interval)
  }

  /** The keys a resource of Silt's jar declares, a line each: key, treatment, Delta's default, kinds, meaning. */
  def load(resource: String): Seq[DeltaKey] = {
    val in = getClass.getResourceAsStream(resource)
    if (in == null) throw new IllegalStateException(s"$resource is missing from Silt's jar")
    val lines = try Source.fromInputStream(in, "UTF-8").getLines().toList finally in.close()
    lines.filter(l => l.trim.nonEmpty && !l.startsWith("#")).map { line =>
      line.split("\t", -1) match {
        case Array(key, treatment, default, kinds, meaning) =>
          DeltaKey(key, DeltaKeyTreatment.all.find(_.name == treatment).getOrElse(
            throw new IllegalStateException(s"$resource: $key has no treatment '$treatment'")),
            Some(default).filter(_ != "<undefined>"),
            kinds.split(",").map(_.trim).filter(_.nonEmpty).map(StatementKind.named).toSet, meaning)
        case _ => throw new IllegalStateException(s"$resource: not 5 tab-separated fields: $line")
      }
    }
  }

  /** The key of `candidates` nearest to `k` in edit distance. */
  def closest(k: String, candidates: Seq[String]): String =
    candidates.minBy(c => editDistance(k.toLowerCase, c.toLowerCase))

  private def editDistance(a: String, b: String): Int = {
    val row = Array.tabulate(b.length + 1)(identity)
    for (i <- 1 to a.length) {
      var diagonal = row(0)
      row(0) = i
      for (j <- 1 to b.length) {
        val above = row(j)
        row(j) = math.min(math.min(row(j) + 1, row(j - 1) + 1), diagonal + (if (a(i - 1) == b(j - 1)) 0 else 1))
        diagonal = above
      }
    }
    row(b.length)
  }
}

/**
 * Every session setting Delta Lake 4.4 (and 3.3, Spark 3.5's) registers, each in one class (the list
 * is compared with the reference's own registry by tests/test_delta_session_keys.py, so that a key
 * of a new Delta release cannot go unclassified): honoured (a Silt setting's Delta name, declared in [[SiltSettings]]),
 * no effect, or not implemented (declared in `delta-settings.tsv` beside this class). A key under
 * Delta's prefixes that Delta does not have is refused as a misspelling, naming the closest key.
 */
object DeltaSessionKeys {
  /** Where Delta Lake's session settings are. */
  val Prefixes: Seq[String] = Seq("spark.databricks.delta.", "spark.databricks.io.skipping.")

  private val Resource = "/io/silt/config/delta-settings.tsv"

  /** The no-effect and not-implemented keys, from the resource: key, treatment, default, kinds, meaning. */
  lazy val declared: Seq[DeltaKey] = DeltaKey.load(Resource)
  private lazy val byKey: Map[String, DeltaKey] = declared.map(k => k.key -> k).toMap

  def isDeltaKey(k: String): Boolean = Prefixes.exists(k.startsWith)

  /** How Silt treats `key`, one of Delta Lake's; None when Delta Lake has no such key. */
  def treatmentOf(key: String): Option[DeltaKeyTreatment] =
    if (SiltSettings.all.exists(_.matchesDeltaKey(key))) Some(DeltaKeyTreatment.Honoured)
    else byKey.get(key).map(_.treatment)

  /** The Delta keys the session set, with their values, oldest key name first. */
  private def deltaKeysSet(conf: RuntimeConfig): Seq[(String, String)] =
    conf.getAll.toSeq.filter { case (k, _) => isDeltaKey(k) }.sortBy(_._1)

  /**
   * The `spark.databricks.delta.*` settings the session set, each with its value, how Silt treats
   * it (a key Delta Lake does not have: "refused") and what it means (what `silt_settings()` lists).
   * With delta-spark loaded they are its own: none.
   */
  def inSession(conf: RuntimeConfig): Seq[(String, String, String, String)] =
    if (DeltaLakeClasspath.present) Nil
    else deltaKeysSet(conf).map { case (k, v) =>
      val meaning = byKey.get(k).map(_.meaning).orElse(SiltSettings.all.find(_.matchesDeltaKey(k)).map(s => s"Silt's ${s.key}"))
      treatmentOf(k).fold((k, v, "refused", s"not a Delta Lake setting: the closest is ${closest(k)}")) { t =>
        (k, v, t.name, meaning.getOrElse(""))
      }
    }

  /**
   * What opening a table checks of Delta's keys: a key Delta Lake does not have is refused, naming
   * the closest that it has; one not implemented that every statement depends on is refused when it
   * asks for other than Delta's default; those without effect are reported once per session.
   */
  def check(conf: RuntimeConfig): Unit = if (!DeltaLakeClasspath.present) {
    val set = deltaKeysSet(conf)
    set.find { case (k, _) => treatmentOf(k).isEmpty }.foreach { case (k, _) =>
      throw new UnsupportedOptionException(k, s"$k is not a Delta Lake setting (a misspelling?): the closest is " +
        s"${closest(k)}. Delta Lake's settings that Silt reads are ${SiltSettings.all.flatMap(_.deltaKey).mkString(", ")}")
    }
    refuseAt(conf, Set(StatementKind.Any), "this statement")
    NoEffectReport.report(conf, set.filter { case (k, _) => byKey.get(k).exists(_.treatment == DeltaKeyTreatment.NoEffect) })
  }

  /**
   * Refuses `statement` (of `kinds`) when the session sets a Delta key Silt does not implement, that
   * changes such statements, to other than Delta's default, naming the key. A key whose kinds are
   * ANY changes every statement.
   */
  def refuseAt(conf: RuntimeConfig, kinds: Set[StatementKind], statement: String): Unit = if (!DeltaLakeClasspath.present) {
    deltaKeysSet(conf).foreach { case (k, v) =>
      byKey.get(k).filter(d => d.treatment == DeltaKeyTreatment.NotImplemented &&
          (d.kinds.contains(StatementKind.Any) || d.kinds.exists(kinds)) && d.refuses(v)).foreach { d =>
        throw new UnsupportedOptionException(k, s"Delta Lake's session setting $k = '$v' (${d.meaning}) would change " +
          s"$statement, and Silt does not implement it: Silt behaves as Delta Lake's default" +
          d.deltaDefault.fold(" (the setting unset)")(dv => s" ($k = '$dv')") + ". Unset it or set it to the default.")
      }
    }
  }

  /** The key of Delta Lake's (or Silt's Delta names) nearest to `k` in edit distance. */
  def closest(k: String): String = DeltaKey.closest(k, declared.map(_.key) ++ SiltSettings.all.flatMap(_.deltaKey))
}

/** Says once per session, at WARN, which of Delta Lake's settings it set have no effect in Silt. */
private object NoEffectReport {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[DeltaKey])
  // A session's RuntimeConfig lives as long as the session; weakly held, a stopped session's goes with it.
  private val reported = new java.util.WeakHashMap[RuntimeConfig, Set[String]]()

  def report(conf: RuntimeConfig, keys: Seq[(String, String)]): Unit = if (keys.nonEmpty) {
    val fresh = reported.synchronized {
      val before = Option(reported.get(conf)).getOrElse(Set.empty[String])
      val now = keys.map(_._1).filterNot(before)
      if (now.nonEmpty) reported.put(conf, before ++ now)
      now
    }
    if (fresh.nonEmpty) {
      log.warn(s"Delta Lake's session settings ${fresh.mkString(", ")} tune Delta Lake's own implementation and have " +
        "no effect in Silt (SELECT * FROM silt_settings() lists what the session set and what Silt does with it)")
    }
  }
}
