// sbt build of the Silt engine jar: Spark is provided, the SQL parser is generated from grammar/.
// One jar per Spark minor: -Dsilt.spark=4.3.0 selects the release built against (4.2.0 by default).
val sparkVersion = sys.props.getOrElse("silt.spark", "4.2.0")
val SupportedMinors = Seq("3.5", "4.0", "4.1", "4.2", "4.3")
val sparkMinor = {
  val m = sparkVersion.split('.').take(2).mkString(".")
  if (!SupportedMinors.contains(m)) sys.error(s"Silt builds for Spark ${SupportedMinors.mkString(", ")}, not $m")
  m
}
val onSpark3 = sparkMinor == "3.5"
// A Spark release Maven Central lacks is compiled against the jars inside its pyspark release:
// -Dsilt.spark.jars=<that release's pyspark/jars folder> (the Makefile passes its venv's).
val sparkJars = sys.props.get("silt.spark.jars").map(file)
// Code that differs between Spark minors lives in scala/src/shims/spark-A (one minor) or
// spark-A-B (minors A to B); a build compiles the folders whose range holds its minor.
def minorKey(v: String): (Int, Int) = {
  val p = v.split('.')
  (p(0).toInt, p(1).toInt)
}
def shimApplies(folder: String): Boolean = folder.stripPrefix("spark-").split('-').map(minorKey) match {
  case Array(only) => only == minorKey(sparkMinor)
  case Array(lo, hi) => Ordering[(Int, Int)].lteq(lo, minorKey(sparkMinor)) && Ordering[(Int, Int)].lteq(minorKey(sparkMinor), hi)
}
// spark-connect: the Connect server's plugin interfaces (io.silt.connect), used only when a server runs; its
// own jar is enough (it holds the protocol classes), and its dependencies are not all on Maven Central.
// Spark 3.5's Connect plugin interface is another (and its server is not in pyspark 3.5): no plugin is built for it.
val sparkDependency = if (sparkJars.isDefined) Nil else Seq("org.apache.spark" %% "spark-sql" % sparkVersion % Provided) ++
  (if (onSpark3) Nil else Seq(("org.apache.spark" %% "spark-connect" % sparkVersion % Provided).intransitive()))
// Spark 3.5 is built for Scala 2.12 and ships ANTLR 4.9 (whose runtime cannot read a parser that 4.10 or
// later generated); Spark 4 for Scala 2.13 with ANTLR 4.13. The same sources compile under both Scalas.
val antlrVersion = if (onSpark3) "4.9.3" else "4.13.1" // the ANTLR runtime Spark ships
val scalaRelease = if (onSpark3) "2.12.18" else "2.13.18" // the Scala library Spark ships

ThisBuild / organization := "io.silt"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := scalaRelease
ThisBuild / versionScheme := Some("early-semver")

lazy val Antlr = config("antlr").hide

lazy val generateParser = taskKey[Seq[File]]("Generates the Java SQL parser from grammar/SiltSqlBase.g4")
lazy val generatePythonParser = taskKey[Seq[File]]("Generates the Python SQL parser into python/silt/sql/generated")

def runAntlr(cp: Seq[File], grammar: File, lang: String, out: File, pkg: Option[String], log: Logger): Seq[File] = {
  IO.delete(out)
  IO.createDirectory(out)
  val args = Seq("-Dlanguage=" + lang, "-visitor", "-no-listener", "-Xexact-output-dir", "-o", out.getAbsolutePath) ++
    pkg.toSeq.flatMap(p => Seq("-package", p)) :+ grammar.getAbsolutePath
  val code = scala.sys.process.Process(
    Seq("java", "-cp", cp.map(_.getAbsolutePath).mkString(java.io.File.pathSeparator), "org.antlr.v4.Tool") ++ args
  ).!(scala.sys.process.ProcessLogger(l => log.info(l), l => log.error(l)))
  if (code != 0) sys.error(s"ANTLR failed on $grammar")
  (out ** "*.*").get.filter(_.isFile)
}

lazy val root = (project in file("."))
  .configs(Antlr)
  .settings(
    name := "silt-spark",
    // Published as io.silt:silt-spark_<minor>_<Scala binary> (one artifact per Spark minor, as the jars are), to
    // -Dsilt.publish.dir (a Maven repository folder; ~/.m2/repository by default): `make publish-local`.
    moduleName := s"silt-spark_$sparkMinor",
    publishMavenStyle := true,
    publishTo := Some(MavenCache("silt-local",
      file(sys.props.getOrElse("silt.publish.dir", sys.props("user.home") + "/.m2/repository")))),
    Compile / packageDoc / publishArtifact := false,
    // A rebuild after a change publishes the same version again (a local repository, not a release).
    publishConfiguration := publishConfiguration.value.withOverwrite(true),
    // Spark brings the Scala library: the POM must not make --packages fetch another copy.
    autoScalaLibrary := false,
    // Each Spark minor compiles into a folder of its own, so that switching does not recompile the others.
    target := baseDirectory.value / "target" / s"spark-$sparkMinor",
    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Compile / unmanagedSourceDirectories ++= (baseDirectory.value / "scala" / "src" / "shims" * "spark-*").get
      .filter(d => shimApplies(d.getName)),
    Compile / javaSource := baseDirectory.value / "scala" / "src" / "main" / "java",
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "scala" / "src" / "test" / "scala",
    Test / resourceDirectory := baseDirectory.value / "scala" / "src" / "test" / "resources",
    ivyConfigurations += Antlr,
    Compile / unmanagedJars ++= sparkJars.toSeq.flatMap(d => (d * "*.jar").classpath),
    libraryDependencies ++= sparkDependency ++ Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      // S3A and the SDK's S3 client, for listing a log on S3 from a key on (the user's session brings them).
      ("org.apache.hadoop" % "hadoop-aws" % "3.5.0" % Provided).exclude("software.amazon.awssdk", "bundle"),
      "software.amazon.awssdk" % "s3" % "2.35.4" % Provided,
      "org.antlr" % "antlr4" % antlrVersion % Antlr,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
      "org.scalacheck" %% "scalacheck" % "1.18.1" % Test
    ) ++ (if (onSpark3) Seq(
      // scala.jdk.CollectionConverters and 2.13's collection methods on Scala 2.12 (Spark 3.5 ships it)
      "org.scala-lang.modules" %% "scala-collection-compat" % "2.7.0" % Provided) else Nil),
    generateParser := {
      val cp = update.value.select(configurationFilter("antlr"))
      val grammar = baseDirectory.value / "grammar" / "SiltSqlBase.g4"
      val out = (Compile / sourceManaged).value / "antlr" / "io" / "silt" / "sql" / "parser"
      val s = streams.value
      val cached = FileFunction.cached(s.cacheDirectory / "antlr-java", FilesInfo.hash) { _ =>
        // ANTLR 4.9 has no caseInsensitive option: its parser reads an upper-cased stream (sql.UpperCaseCharStream)
        val source = if (!onSpark3) grammar else {
          val copy = (Compile / sourceManaged).value / "antlr-grammar" / grammar.getName
          IO.write(copy, IO.read(grammar).replace("options { caseInsensitive = true; }", ""))
          copy
        }
        runAntlr(cp, source, "Java", out, Some("io.silt.sql.parser"), s.log).toSet
      }
      cached(Set(grammar)).toSeq.filter(_.getName.endsWith(".java"))
    },
    Compile / sourceGenerators += generateParser.taskValue,
    // The Spark release the jar is built for, checked against the running one (config.SiltVersion).
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "io" / "silt" / "build.properties"
      IO.write(out, s"spark.version=$sparkVersion\n")
      Seq(out)
    }.taskValue,
    generatePythonParser := {
      val cp = update.value.select(configurationFilter("antlr"))
      val grammar = baseDirectory.value / "grammar" / "SiltSqlBase.g4"
      val out = baseDirectory.value / "python" / "silt" / "sql" / "generated"
      val files = runAntlr(cp, grammar, "Python3", out, None, streams.value.log)
      IO.write(out / "__init__.py", "# Generated from grammar/SiltSqlBase.g4 by `sbt generatePythonParser`.\n")
      files
    },
    Compile / scalacOptions ++= Seq("-deprecation", "-feature", "-Xlint:-unused,_"),
    // Spark 3.5 runs on Java 8, 11 and 17 (Silt: 11 and 17); Spark 4 on 17 and later.
    javacOptions ++= Seq("--release", if (onSpark3) "11" else "17"),
    Compile / scalacOptions ++= (if (onSpark3) Seq("-release", "11") else Nil),
    Test / fork := true,
    Test / javaOptions ++= Seq("-Xmx2g", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED"),
    Test / parallelExecution := false,
    assemblyLikeJarName
  )

// A JVM job written for Delta Lake's Scala API, moved to Silt by its import (examples/jvm): built
// against the engine, which spark-submit brings from the published artifact (tests/test_jvm_api.py).
lazy val jvmExample = (project in file("examples/jvm"))
  .dependsOn(root % Provided)
  .settings(
    name := "silt-jvm-example",
    target := baseDirectory.value / "target" / s"spark-$sparkMinor",
    Compile / unmanagedJars ++= sparkJars.toSeq.flatMap(d => (d * "*.jar").classpath),
    libraryDependencies ++= sparkDependency,
    publish / skip := true
  )

// The same job as written for Delta Lake: its source with each `// was:` line put back, built against
// delta-spark (the reference release for this Spark minor), for tests/test_jvm_api.py to run on the reference.
val referenceDelta = Map("4.0" -> "delta-spark_4.0_2.13", "4.1" -> "delta-spark_4.1_2.13", "4.2" -> "delta-spark_2.13")
lazy val jvmExampleOnDelta = (project in file("examples/jvm/on-delta"))
  .settings(
    name := "silt-jvm-example-on-delta",
    target := baseDirectory.value / "target" / s"spark-$sparkMinor",
    Compile / unmanagedJars ++= sparkJars.toSeq.flatMap(d => (d * "*.jar").classpath),
    libraryDependencies ++= sparkDependency ++ referenceDelta.get(sparkMinor).toSeq.map(a => "io.delta" % a % "4.4.0" % Provided),
    Compile / sourceGenerators += Def.task {
      val sources = ((jvmExample / Compile / scalaSource).value ** "*.scala").get
      sources.map { f =>
        val asWritten = IO.read(f).replaceAll("(?m)^.*// was: (.*)$", "$1")
        val out = (Compile / sourceManaged).value / f.getName
        IO.write(out, asWritten)
        out
      }
    }.taskValue,
    publish / skip := true
  )

lazy val assemblyLikeJarName = Compile / packageBin / artifactPath :=
  target.value / s"silt-spark_${sparkMinor}_${scalaBinaryVersion.value}-${version.value}.jar"
