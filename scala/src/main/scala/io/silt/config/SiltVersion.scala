package io.silt.config

import java.util.Properties

/** The engine's version (as written into commitInfo.engineInfo) and the Spark release it was built for. */
object SiltVersion {
  val Version: String = Option(getClass.getPackage.getImplementationVersion).getOrElse("0.1.0")

  /** The Spark release the jar was compiled against (from io/silt/build.properties, which the build writes). */
  lazy val SparkBuiltFor: String = {
    val props = new Properties()
    val in = getClass.getResourceAsStream("/io/silt/build.properties")
    if (in != null) try props.load(in) finally in.close()
    props.getProperty("spark.version", "unknown")
  }

  /** "4.2" of "4.2.1". */
  def minorOf(version: String): String = version.split('.').take(2).mkString(".")

  /** Throws UnsupportedSparkVersionException unless the running Spark is the minor release the jar was built for. */
  def checkRunningSpark(running: String): Unit =
    if (SparkBuiltFor != "unknown" && minorOf(running) != minorOf(SparkBuiltFor)) {
      throw new io.silt.errors.UnsupportedSparkVersionException(running, SparkBuiltFor)
    }
}
