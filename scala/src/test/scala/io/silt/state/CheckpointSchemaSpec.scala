package io.silt.state

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import io.silt.dv.{DeletionVectorDescriptor, DvStorage}
import io.silt.actions._
import org.apache.spark.sql.types.StructType
import org.scalatest.funsuite.AnyFunSuite

/**
 * The checkpoint schema and the action codec describe the same fields: every field the codec
 * writes for an action with every field set has a column of the checkpoint schema, and every
 * column is a field the codec writes (maps and arrays compared as one field).
 */
class CheckpointSchemaSpec extends AnyFunSuite {
  private val dv = DeletionVectorDescriptor(DvStorage.Relative, "ab^-aqEH.-t@S}K{vb[*k^", Some(1), 10, 2, Some(99L))
  private val add = AddFile("p", Map("a" -> "1"), 1L, 2L, dataChange = true, Some("{}"), Map("t" -> "v"), Some(dv),
    Some(3L), Some(4L), Some("liquid"))
  private val remove = add.remove(5L)
  private val metadata = Metadata("id", Some("n"), Some("d"), Format("parquet", Map("o" -> "v")), "{}", Seq("a"),
    Map("k" -> "v"), Some(6L))
  private val protocol = Protocol(3, 7, Some(Set("deletionVectors")), Some(Set("deletionVectors")))
  private val txn = SetTransaction("app", 7L, Some(8L))
  private val domain = DomainMetadata("d", "{}", removed = false)

  /** Field paths of a JSON object; a map-typed field (`mapFields`) is one path, not its keys. */
  private def jsonPaths(n: JsonNode, prefix: String = ""): Set[String] = n.properties().asScala.flatMap { e =>
    val path = prefix + e.getKey
    if (e.getValue.isObject && !MapFields(e.getKey)) jsonPaths(e.getValue, path + ".") else Set(path)
  }.toSet

  private val MapFields = Set("partitionValues", "tags", "configuration", "options")

  private def schemaPaths(s: StructType, prefix: String = ""): Set[String] = s.fields.flatMap { f =>
    f.dataType match {
      case inner: StructType => schemaPaths(inner, prefix + f.name + ".")
      case _ => Set(prefix + f.name)
    }
  }.toSet

  private def codecPaths(a: Action): Set[String] = {
    val node = ActionCodec.toNode(a)
    val key = node.fieldNames().next()
    jsonPaths(node.get(key))
  }

  test("add, metaData, protocol, txn and domainMetadata columns are exactly the codec's fields") {
    assert(schemaPaths(CheckpointSchema.add) == codecPaths(add))
    assert(schemaPaths(CheckpointSchema.metaData) == codecPaths(metadata))
    assert(schemaPaths(CheckpointSchema.protocol) == codecPaths(protocol))
    assert(schemaPaths(CheckpointSchema.txn) == codecPaths(txn))
    assert(schemaPaths(CheckpointSchema.domainMetadata) == codecPaths(domain))
  }

  test("remove columns are the codec's fields but stats and tags, which a checkpoint leaves out") {
    assert(schemaPaths(CheckpointSchema.remove) == codecPaths(remove) -- Set("stats", "tags"))
  }

  test("every action type the codec writes has a column of a classic checkpoint") {
    val columns = CheckpointSchema.topLevel(v2 = false).fieldNames.toSet
    Seq(add, remove, metadata, protocol, txn, domain).foreach { a =>
      assert(columns.contains(ActionCodec.toNode(a).fieldNames().next()))
    }
  }
}
