package io.silt

import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The engine's packages form layers (docs/ARCHITECTURE.md): a package may use its own layer's
 * packages (without a cycle) and those below, never one above. Both imports and fully-qualified
 * references count, so an inline `io.silt.x.Y` cannot hide an edge.
 */
class ArchitectureSpec extends AnyFunSuite {
  /** Lowest layer first; `root` is the `io.silt` package itself (the session extension). */
  private val Layers: Seq[Set[String]] = Seq(
    Set("errors"),
    Set("config", "spark", "shims"),
    Set("dv", "expressions"),
    Set("actions", "logstore"),
    Set("features", "partition"),
    Set("log"),
    Set("stats"),
    Set("txn", "state"),
    Set("read", "write"),
    Set("dml", "optimize", "optimizer", "vacuum", "checkpoint", "manifest", "convert", "clone", "uniform"),
    Set("sql", "catalog"),
    Set("root", "tables"),
    Set("connect"))

  private val layerOf: Map[String, Int] = Layers.zipWithIndex.flatMap { case (ps, i) => ps.map(_ -> i) }.toMap

  private val mainRoot = Seq(Paths.get("scala/src/main/scala/io/silt"), Paths.get("src/main/scala/io/silt"))
    .find(Files.isDirectory(_)).getOrElse(fail("cannot find scala/src/main/scala/io/silt from " + Paths.get("").toAbsolutePath))

  // The shims of every Spark minor (scala/src/shims/spark-*/io/silt/...) are held to the same layers; those
  // in Spark's package (org.apache.spark.sql.silt, beside SparkInternals) are outside them.
  private val shimsRoot = mainRoot.getParent.getParent.getParent.getParent.resolve("shims")

  private def sources: Seq[Path] = Seq(mainRoot).flatMap(scalaFiles) ++ Seq(shimsRoot).filter(Files.isDirectory(_))
    .flatMap(scalaFiles).filter(_.toString.contains("/io/silt/"))

  private def scalaFiles(root: Path): Seq[Path] =
    Files.walk(root).iterator().asScala.filter(_.toString.endsWith(".scala")).toSeq

  private val PackageLine = """(?m)^package\s+([\w.]+)\s*$""".r
  private val Reference = """\bio\.silt\.(?:([a-z]\w*)\b|[A-Z])""".r

  /** The package a file declares (one clause only: chained clauses would allow references this test cannot see). */
  private def packageOf(file: Path, text: String): String = PackageLine.findAllMatchIn(text).map(_.group(1)).toList match {
    case List("io.silt") => "root"
    case List(p) if p.startsWith("io.silt.") => p.stripPrefix("io.silt.").takeWhile(_ != '.')
    case other => fail(s"$file: expected one `package io.silt[.x]` clause, found ${other.mkString(", ")}")
  }

  /** The Silt packages a source refers to, comments and the package clause left out. */
  private def referenced(text: String): Set[String] = {
    val code = text.replaceAll("""(?s)/\*.*?\*/""", "").replaceAll("//[^\n]*", "").replaceAll("""(?m)^package .*$""", "")
    Reference.findAllMatchIn(code).map(m => Option(m.group(1)).getOrElse("root")).toSet
  }

  private lazy val edges: Map[String, Map[String, Seq[String]]] = sources.map { f =>
    val text = new String(Files.readAllBytes(f), "UTF-8")
    val from = packageOf(f, text)
    (from, f.getFileName.toString, referenced(text) - from)
  }.groupBy(_._1).map { case (from, files) =>
    from -> files.flatMap { case (_, name, tos) => tos.map(_ -> name) }.groupBy(_._1).map { case (to, ns) => to -> ns.map(_._2).distinct }
  }

  test("every package is assigned to a layer") {
    val unknown = (edges.keySet ++ edges.values.flatMap(_.keys)).filterNot(layerOf.contains)
    assert(unknown.isEmpty, s"packages missing from ArchitectureSpec.Layers and docs/ARCHITECTURE.md: $unknown")
  }

  test("no package uses a package of a higher layer") {
    val upward = for {
      (from, tos) <- edges.toSeq
      (to, files) <- tos if layerOf.getOrElse(to, -1) > layerOf.getOrElse(from, -1)
    } yield s"$from -> $to (${files.mkString(", ")})"
    assert(upward.isEmpty, upward.sorted.mkString("edges up the layers:\n", "\n", ""))
  }

  test("no cycles between packages") {
    def reachable(start: String): Set[String] = {
      var seen = Set.empty[String]
      var frontier = edges.getOrElse(start, Map.empty).keySet
      while (frontier.nonEmpty) {
        seen ++= frontier
        frontier = frontier.flatMap(p => edges.getOrElse(p, Map.empty).keySet) -- seen
      }
      seen
    }
    val cyclic = edges.keys.filter(p => reachable(p).contains(p)).toSeq.sorted
    assert(cyclic.isEmpty, s"packages on a cycle: ${cyclic.mkString(", ")}; edges: " +
      cyclic.map(p => s"$p -> ${edges(p).keys.filter(cyclic.contains).mkString(",")}").mkString("; "))
  }
}
