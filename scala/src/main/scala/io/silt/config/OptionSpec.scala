package io.silt.config

import io.silt.errors.UnsupportedOptionException

/** An option or session setting a Delta user may pass, and whether Silt honours or refuses it. */
final case class OptionSpec(name: String, honoured: Boolean, doc: String)

object OptionSpec {
  /**
   * Refuses the first of `options` that is not honoured by `specs` (nor one of Spark's own
   * `internal` keys, nor `alsoHonoured`), naming it: a refused Delta option says why, an unknown
   * one lists what Silt honours. `kind` is "read" or "write".
   */
  def refuseUnhonoured(kind: String, options: Map[String, String], specs: Seq[OptionSpec], internal: Set[String],
      alsoHonoured: String => Boolean = _ => false): Unit = {
    val honoured = specs.filter(_.honoured).map(_.name.toLowerCase).toSet
    options.keys.find(k => !internal(k.toLowerCase) && !honoured(k.toLowerCase) && !alsoHonoured(k.toLowerCase))
      .foreach { key =>
        if (TableFileSystem.isOption(key)) throw new UnsupportedOptionException(key, s"$kind option '$key' is a Hadoop " +
          "file-system setting: Silt applies a table's own settings to batch reads and writes by path (load(path), " +
          s"save(path)) and to DeltaTable.forPath(…, hadoopConf); here, set it on the session as spark.hadoop.$key")
        val detail = specs.find(_.name.equalsIgnoreCase(key)).map(o => s"$kind option '$key' is not supported by Silt (${o.doc})")
          .getOrElse(s"unknown $kind option '$key'; Silt honours ${specs.filter(_.honoured).map(_.name).mkString(", ")}")
        throw new UnsupportedOptionException(key, detail)
      }
  }
}
