package io.silt.config

import scala.util.Try

/** Whether delta-spark is on the classpath: then Delta Lake's names and settings stay its own. */
object DeltaLakeClasspath {
  private val DeltaSourceClass = "org.apache.spark.sql.delta.sources.DeltaDataSource"

  lazy val present: Boolean = {
    val loaders = Seq(Thread.currentThread.getContextClassLoader, getClass.getClassLoader).filter(_ != null)
    loaders.exists(l => Try(Class.forName(DeltaSourceClass, false, l)).isSuccess)
  }
}
