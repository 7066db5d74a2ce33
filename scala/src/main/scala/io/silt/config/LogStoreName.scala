package io.silt.config

/** The names of the log stores a user can choose with `spark.silt.logStore.<scheme>.impl` (io.silt.logstore.LogStores builds them). */
object LogStoreName {
  val Link = "link"
  val Rename = "rename"
  val ConditionalCreate = "conditional-create"
  val CreateNoOverwrite = "create-no-overwrite"
  val SingleDriver = "single-driver"
  val All: Seq[String] = Seq(Link, Rename, ConditionalCreate, CreateNoOverwrite, SingleDriver)
}
