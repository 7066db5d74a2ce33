package io.silt.config

/** The engine's version, as written into commitInfo.engineInfo. */
object SiltVersion {
  val Version: String = Option(getClass.getPackage.getImplementationVersion).getOrElse("0.1.0")
}
