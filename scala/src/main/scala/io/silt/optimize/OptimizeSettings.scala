package io.silt.optimize

import org.apache.spark.sql.SparkSession

/** The `spark.silt.optimize.*` session settings, read once per command. */
final case class OptimizeSettings(
    minFileSize: Long,
    maxFileSize: Long,
    maxThreads: Int,
    numRanges: Int,
    addNoise: Boolean,
    maxDeletedRowsRatio: Double)

object OptimizeSettings {
  val Prefix = "spark.silt.optimize."
  private val GiB = 1L << 30

  def from(spark: SparkSession): OptimizeSettings = {
    def get(key: String, default: String) = spark.conf.get(Prefix + key, default)
    val max = bytes(get("maxFileSize", GiB.toString), "maxFileSize")
    OptimizeSettings(
      minFileSize = bytes(get("minFileSize", max.toString), "minFileSize"),
      maxFileSize = max,
      maxThreads = math.max(1, get("maxThreads", "15").toInt),
      numRanges = math.max(2, get("zorder.numRanges", "1024").toInt),
      addNoise = get("zorder.addNoise", "true").toBoolean,
      maxDeletedRowsRatio = get("maxDeletedRowsRatio", "0.05").toDouble)
  }

  /** A byte size such as 134217728, 128m or 1g. */
  private def bytes(value: String, name: String): Long = {
    val v = value.trim.toLowerCase
    val (digits, unit) = v.span(c => c.isDigit)
    val mult = unit.stripSuffix("b") match {
      case "" => 1L
      case "k" => 1L << 10
      case "m" => 1L << 20
      case "g" => 1L << 30
      case _ => throw new IllegalArgumentException(s"$Prefix$name: '$value' is not a byte size")
    }
    if (digits.isEmpty) throw new IllegalArgumentException(s"$Prefix$name: '$value' is not a byte size")
    digits.toLong * mult
  }
}
