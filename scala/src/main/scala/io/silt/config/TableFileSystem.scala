package io.silt.config

import java.util.Locale

import scala.jdk.CollectionConverters._

import io.silt.errors.{ErrorClass, UnsupportedOptionException}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/**
 * Hadoop file-system settings given for one table rather than for the session, as Delta Lake takes
 * them: `fs.*` and `dfs.*` options of a path read or write, and `DeltaTable.forPath(spark, path,
 * hadoopConf)`. They reach that table's log and files only (credentials of one storage account,
 * say), never another table's.
 *
 * Silt's statements name a table by its path, not by an object that could carry settings, so the
 * settings are given for the extent of an operation: on the calling thread and the threads it
 * starts, for the table at one path. What an operation builds to run later (a scan's relation)
 * takes them with it.
 */
object TableFileSystem {
  private val Prefixes = Seq("fs.", "dfs.")

  /** Whether `key` is a Hadoop file-system setting a table may be given (Delta's prefixes). */
  def isOption(key: String): Boolean = Prefixes.exists(key.toLowerCase(Locale.ROOT).startsWith)

  /** The file-system settings among a read's or write's options. */
  def optionsIn(options: Map[String, String]): Map[String, String] = options.filter { case (k, _) => isOption(k) }

  /** `forPath`'s hadoopConf, checked as Delta checks it: file-system settings only. */
  def checkedHadoopConf(hadoopConf: Map[String, String]): Map[String, String] = {
    hadoopConf.keys.find(k => !isOption(k)).foreach { k =>
      throw new UnsupportedOptionException(k, s"hadoopConf key '$k' is not a file-system setting: DeltaTable.forPath " +
        s"takes Hadoop settings whose keys start with ${Prefixes.mkString(" or ")}; set others on the session",
        ErrorClass.ForPathUnsupportedHadoopConf)
    }
    hadoopConf
  }

  private final case class Entry(qualified: Path, options: Map[String, String])

  private val scope = new InheritableThreadLocal[List[Entry]] {
    override def initialValue(): List[Entry] = Nil
  }

  /** Runs `body` with `options` applied to the table at `path` (its log and its files). */
  def withOptions[T](spark: SparkSession, path: String, options: Map[String, String])(body: => T): T = {
    val depth = push(spark, path, options)
    try body finally exit(depth)
  }

  /**
   * Applies `options` to the table at `path` until `exit` is given the depth this returns: for a
   * caller that cannot pass a closure (Silt's Python API, whose calls each run on one JVM thread).
   */
  def enter(spark: SparkSession, path: String, options: java.util.Map[String, String]): Int =
    push(spark, path, options.asScala.toMap)

  private def push(spark: SparkSession, path: String, options: Map[String, String]): Int = {
    val before = scope.get
    if (options.nonEmpty) scope.set(Entry(qualify(new Path(path), withSettings(spark, options)), options) :: before)
    before.size
  }

  /** Ends what `enter` began (and what began after it). */
  def exit(depth: Int): Unit = scope.set(scope.get.takeRight(depth))

  /** The settings given for the table at `tablePath`, if any. */
  def optionsFor(spark: SparkSession, tablePath: Path): Map[String, String] = scope.get match {
    case Nil => Map.empty
    case entries => entries.collectFirst {
      case e if qualify(tablePath, withSettings(spark, e.options)) == e.qualified => e.options
    }.getOrElse(Map.empty)
  }

  /** The Hadoop configuration that reaches the table at `tablePath`: the session's, with the table's settings. */
  def hadoopConf(spark: SparkSession, tablePath: Path): Configuration =
    withSettings(spark, optionsFor(spark, tablePath))

  private def withSettings(spark: SparkSession, options: Map[String, String]): Configuration =
    spark.sessionState.newHadoopConfWithOptions(options)

  private def qualify(path: Path, conf: Configuration): Path = path.getFileSystem(conf).makeQualified(path)
}
