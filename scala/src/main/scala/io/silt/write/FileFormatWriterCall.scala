package io.silt.write

import java.lang.reflect.{InvocationTargetException, Method}

import org.apache.hadoop.conf.Configuration
import org.apache.spark.internal.io.FileCommitProtocol
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{FileFormat, FileFormatWriter, WriteJobStatsTracker}

/**
 * Calls Spark's `FileFormatWriter.write` through reflection. Its parameter list grows within a
 * Spark minor (4.0.5, 4.1.4 and 4.3.0 add a trailing callback that 4.0.1, 4.1.3 and 4.2.0 lack),
 * so a compiled call would fail with NoSuchMethodError on the other patch releases of the minor
 * the jar was built for. Parameters past the eleven every release has get their declared defaults.
 */
object FileFormatWriterCall {
  private val Known = 11

  private lazy val (module, method, defaults): (AnyRef, Method, Seq[Method]) = {
    val m = FileFormatWriter
    val cls = m.getClass
    val write = cls.getMethods.filter(x => x.getName == "write" && x.getParameterCount >= Known)
      .sortBy(_.getParameterCount).lastOption.getOrElse(throw new IllegalStateException(
        s"this Spark's FileFormatWriter has no write method with $Known or more parameters"))
    val extra = (Known + 1 to write.getParameterCount).map(i => cls.getMethod(s"write$$default$$$i"))
    (m, write, extra)
  }

  def write(session: SparkSession, plan: SparkPlan, fileFormat: FileFormat, committer: FileCommitProtocol,
      outputSpec: FileFormatWriter.OutputSpec, hadoopConf: Configuration, partitionColumns: Seq[Attribute],
      statsTrackers: Seq[WriteJobStatsTracker], options: Map[String, String]): Set[String] = {
    val fixed = Seq[AnyRef](session, plan, fileFormat, committer, outputSpec, hadoopConf, partitionColumns,
      None, statsTrackers, options, Int.box(0))
    val args = fixed ++ defaults.map(d => d.invoke(module): AnyRef)
    try method.invoke(module, args: _*).asInstanceOf[Set[String]] catch {
      case e: InvocationTargetException if e.getCause != null => throw e.getCause
    }
  }
}
