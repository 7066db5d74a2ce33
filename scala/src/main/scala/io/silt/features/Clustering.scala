package io.silt.features

import io.silt.actions._
import scala.jdk.CollectionConverters._

import io.silt.errors.CorruptLogException
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * Liquid clustering as the Delta protocol records it: the `clustering` writer feature and the
 * `delta.clustering` domain, whose `clusteringColumns` are column paths of physical names (so a
 * rename under column mapping keeps them). A table with the domain is clustered, even with no
 * columns (after `CLUSTER BY NONE`).
 */
object Clustering {
  val Domain = "delta.clustering"
  val Feature = "clustering"
  /** Delta Lake clusters by four columns at most. */
  val MaxColumns = 4
  /** What OPTIMIZE of a clustered table writes in the files it clusters (`clusteringProvider`). */
  val Provider = "liquid"

  /** The clustering columns (physical paths) a table's domains record; None when it is not clustered. */
  def physicalColumns(domains: Map[String, DomainMetadata]): Option[Seq[Seq[String]]] =
    domains.get(Domain).filterNot(_.removed).map { d =>
      val node = try ActionCodec.mapper.readTree(d.configuration) catch {
        case e: Exception => throw new CorruptLogException(Domain, s"the clustering domain is not JSON: ${e.getMessage}", e)
      }
      Option(node.get("clusteringColumns")).filter(_.isArray).map(_.elements().asScala.map { path =>
        path.elements().asScala.map(_.asText).toSeq
      }.toSeq).getOrElse(throw new CorruptLogException(Domain, "the clustering domain has no clusteringColumns list"))
    }

  /** The domain that records these clustering columns (physical paths). */
  def domain(physical: Seq[Seq[String]]): DomainMetadata = {
    val node = ActionCodec.mapper.createObjectNode()
    val columns = node.putArray("clusteringColumns")
    physical.foreach(path => path.foldLeft(columns.addArray())((a, p) => a.add(p)))
    node.put("domainName", Domain)
    DomainMetadata(Domain, ActionCodec.mapper.writeValueAsString(node), removed = false)
  }

  /** The logical, dotted names of physical column paths of a table with this schema (DESCRIBE DETAIL, metrics). */
  def logicalNames(schema: StructType, physical: Seq[Seq[String]]): Seq[String] =
    logicalPaths(schema, physical).map(_.mkString("."))

  /** The logical paths of physical column paths of a table with this schema. */
  def logicalPaths(schema: StructType, physical: Seq[Seq[String]]): Seq[Seq[String]] = physical.map { path =>
    def walk(s: StructType, rest: Seq[String]): List[String] = rest match {
      case Seq() => Nil
      case name +: tail =>
        val f = s.fields.find(f => ColumnMapping.physicalName(f) == name).getOrElse(
          throw new CorruptLogException(Domain, s"clustering column ${path.mkString(".")} is not in the table schema"))
        f.name :: (f.dataType match { case n: StructType => walk(n, tail); case _ => walk(new StructType(), tail) })
    }
    walk(schema, path)
  }

  /** The physical path of a logical dotted column name; None when the table has no such column. */
  def physicalPath(schema: StructType, logical: String): Option[Seq[String]] = {
    def walk(s: StructType, rest: List[String]): Option[List[StructField]] = rest match {
      case Nil => Some(Nil)
      case name :: tail => s.fields.find(_.name.equalsIgnoreCase(name)).flatMap { f =>
        if (tail.isEmpty) Some(List(f)) else f.dataType match {
          case n: StructType => walk(n, tail).map(f :: _)
          case _ => None
        }
      }
    }
    walk(schema, logical.split('.').toList).map(_.map(ColumnMapping.physicalName))
  }
}
