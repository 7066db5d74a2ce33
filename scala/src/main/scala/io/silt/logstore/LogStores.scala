package io.silt.logstore

import io.silt.config.{LogStoreName, SiltSettings}
import io.silt.config.LogStoreName._
import io.silt.errors.UnsupportedOptionException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * Which [[LogStore]] writes the log of a table: chosen by the URI scheme of the table's path, or
 * by the user's `spark.silt.logStore.<scheme>.impl` (a store's name or a class with a
 * constructor taking a Hadoop Configuration).
 */
object LogStores {

  /** The store a scheme gets unless the user chooses one. */
  def defaultFor(scheme: String): String = scheme.toLowerCase match {
    case "file" => Link
    case "s3a" | "s3" => ConditionalCreate
    case "gs" => CreateNoOverwrite
    // hdfs, abfs, abfss, viewfs; and, as in Delta Lake, any other scheme
    case _ => Rename
  }

  def settingKey(scheme: String): String = SiltSettings.LogStoreImpl.key.replace("<scheme>", scheme)

  /** The store for the table at `tablePath`; `chosen` maps a lower-case scheme to the user's choice. */
  def forPath(tablePath: Path, conf: Configuration, chosen: Map[String, String]): LogStore = {
    val scheme = Option(tablePath.toUri.getScheme).getOrElse(FileSystem.getDefaultUri(conf).getScheme).toLowerCase
    val impl = chosen.getOrElse(scheme, defaultFor(scheme))
    impl.toLowerCase match {
      case Link => new LocalLogStore(conf)
      case Rename => new RenameLogStore(conf)
      case ConditionalCreate => new ConditionalCreateLogStore(conf)
      case CreateNoOverwrite => new NoOverwriteCreateLogStore(conf)
      case SingleDriver => new SingleDriverLogStore(conf)
      case _ => custom(settingKey(scheme), impl, conf)
    }
  }

  private def custom(key: String, className: String, conf: Configuration): LogStore = {
    def refuse(why: String) = throw new UnsupportedOptionException(key, s"setting $key = '$className' $why; " +
      s"it takes one of ${LogStoreName.All.mkString(", ")} or the name of a class implementing io.silt.logstore.LogStore")
    val cls = try Class.forName(className, true, Thread.currentThread().getContextClassLoader)
      catch { case _: ClassNotFoundException => refuse("names no class on the classpath") }
    if (!classOf[LogStore].isAssignableFrom(cls)) refuse("names a class that is not an io.silt.logstore.LogStore")
    try cls.getConstructor(classOf[Configuration]).newInstance(conf).asInstanceOf[LogStore]
    catch { case _: NoSuchMethodException => refuse("names a class without a constructor taking a Hadoop Configuration") }
  }
}
