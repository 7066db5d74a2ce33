package io.silt.actions

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonParser
import com.fasterxml.jackson.databind.{DeserializationFeature, JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}
import io.silt.dv.{DeletionVectorDescriptor, DvStorage}

/** Reads and writes actions as the single-key JSON objects of Delta commit files. */
object ActionCodec {
  val mapper: ObjectMapper = new ObjectMapper()
    .configure(JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS, true)
    .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true)
  private val nodes = JsonNodeFactory.instance

  /** Parses one line; throws IllegalArgumentException with the reason when it is not an action. */
  def fromJson(line: String): Action = {
    val root = mapper.readTree(line)
    if (root == null || !root.isObject || root.size() == 0) {
      throw new IllegalArgumentException(s"not a JSON object with an action: ${abbreviate(line)}")
    }
    fromNode(root)
  }

  /** The action of a parsed single-action object (a commit line or a checkpoint row). */
  def fromNode(root: JsonNode): Action = {
    if (root == null || !root.isObject || root.size() == 0) {
      throw new IllegalArgumentException(s"not a JSON object with an action: ${abbreviate(String.valueOf(root))}")
    }
    val (key, body) = {
      val e = root.fields().next()
      (e.getKey, e.getValue)
    }
    key match {
      case "protocol" => protocol(body)
      case "metaData" => metadata(body)
      case "add" => addOf(new JsonFields(body))
      case "remove" => removeOf(new JsonFields(body))
      case "cdc" => AddCDCFile(req(body, "path").asText, stringMap(body, "partitionValues"),
        long(body, "size").getOrElse(0L), stringMap(body, "tags"))
      case "commitInfo" => CommitInfo(body)
      case "txn" => SetTransaction(req(body, "appId").asText, req(body, "version").asLong,
        long(body, "lastUpdated"))
      case "domainMetadata" => DomainMetadata(req(body, "domain").asText,
        str(body, "configuration").getOrElse(""), bool(body, "removed").getOrElse(false))
      case other => UnknownAction(other, body)
    }
  }

  def toJson(action: Action): String = mapper.writeValueAsString(toNode(action))

  def toNode(action: Action): ObjectNode = {
    val root = nodes.objectNode()
    action match {
      case p: Protocol =>
        val o = root.putObject("protocol")
        o.put("minReaderVersion", p.minReaderVersion)
        o.put("minWriterVersion", p.minWriterVersion)
        p.readerFeatures.foreach(fs => putArray(o, "readerFeatures", fs.toSeq.sorted))
        p.writerFeatures.foreach(fs => putArray(o, "writerFeatures", fs.toSeq.sorted))
      case m: Metadata =>
        val o = root.putObject("metaData")
        o.put("id", m.id)
        m.name.foreach(o.put("name", _))
        m.description.foreach(o.put("description", _))
        val f = o.putObject("format")
        f.put("provider", m.format.provider)
        putMap(f, "options", m.format.options)
        o.put("schemaString", m.schemaString)
        putArray(o, "partitionColumns", m.partitionColumns)
        putMap(o, "configuration", m.configuration)
        m.createdTime.foreach(o.put("createdTime", _))
      case a: AddFile =>
        val o = root.putObject("add")
        o.put("path", a.path)
        putMap(o, "partitionValues", a.partitionValues)
        o.put("size", a.size)
        o.put("modificationTime", a.modificationTime)
        o.put("dataChange", a.dataChange)
        a.stats.foreach(o.put("stats", _))
        if (a.tags.nonEmpty) putMap(o, "tags", a.tags)
        a.deletionVector.foreach(dv => o.set[JsonNode]("deletionVector", dvNode(dv)))
        a.baseRowId.foreach(o.put("baseRowId", _))
        a.defaultRowCommitVersion.foreach(o.put("defaultRowCommitVersion", _))
        a.clusteringProvider.foreach(o.put("clusteringProvider", _))
      case r: RemoveFile =>
        val o = root.putObject("remove")
        o.put("path", r.path)
        r.deletionTimestamp.foreach(o.put("deletionTimestamp", _))
        o.put("dataChange", r.dataChange)
        r.extendedFileMetadata.foreach(o.put("extendedFileMetadata", _))
        if (r.extendedFileMetadata.contains(true)) putMap(o, "partitionValues", r.partitionValues)
        r.size.foreach(o.put("size", _))
        r.stats.foreach(o.put("stats", _))
        if (r.tags.nonEmpty) putMap(o, "tags", r.tags)
        r.deletionVector.foreach(dv => o.set[JsonNode]("deletionVector", dvNode(dv)))
        r.baseRowId.foreach(o.put("baseRowId", _))
        r.defaultRowCommitVersion.foreach(o.put("defaultRowCommitVersion", _))
      case c: AddCDCFile =>
        val o = root.putObject("cdc")
        o.put("path", c.path)
        putMap(o, "partitionValues", c.partitionValues)
        o.put("size", c.size)
        o.put("dataChange", false)
        if (c.tags.nonEmpty) putMap(o, "tags", c.tags)
      case t: SetTransaction =>
        val o = root.putObject("txn")
        o.put("appId", t.appId)
        o.put("version", t.version)
        t.lastUpdated.foreach(o.put("lastUpdated", _))
      case d: DomainMetadata =>
        val o = root.putObject("domainMetadata")
        o.put("domain", d.domain)
        o.put("configuration", d.configuration)
        o.put("removed", d.removed)
      case c: CommitInfo => root.set[JsonNode]("commitInfo", c.json)
      case u: UnknownAction => root.set[JsonNode](u.key, u.json)
    }
    root
  }

  private def protocol(b: JsonNode): Protocol = Protocol(
    req(b, "minReaderVersion").asInt, req(b, "minWriterVersion").asInt,
    strings(b, "readerFeatures").map(_.toSet), strings(b, "writerFeatures").map(_.toSet))

  private def metadata(b: JsonNode): Metadata = {
    val fmt = Option(b.get("format")).filterNot(_.isNull)
      .map(f => Format(str(f, "provider").getOrElse("parquet"), stringMap(f, "options")))
      .getOrElse(Format())
    Metadata(req(b, "id").asText, str(b, "name"), str(b, "description"), fmt,
      req(b, "schemaString").asText, strings(b, "partitionColumns").getOrElse(Nil),
      stringMap(b, "configuration"), long(b, "createdTime"))
  }

  /** An add action from its fields (a commit line's or a checkpoint row's). */
  def addOf(b: ActionFields): AddFile = AddFile(
    req(b, "path"), b.strings("partitionValues"), b.long("size").getOrElse(0L),
    b.long("modificationTime").getOrElse(0L), b.bool("dataChange").getOrElse(true),
    b.text("stats"), b.strings("tags"), dv(b), b.long("baseRowId"),
    b.long("defaultRowCommitVersion"), b.text("clusteringProvider"))

  /** A remove action from its fields. */
  def removeOf(b: ActionFields): RemoveFile = RemoveFile(
    req(b, "path"), b.long("deletionTimestamp"), b.bool("dataChange").getOrElse(true),
    b.bool("extendedFileMetadata"), b.strings("partitionValues"), b.long("size"),
    b.text("stats"), b.strings("tags"), dv(b), b.long("baseRowId"), b.long("defaultRowCommitVersion"))

  /** The action named `key` with these fields. */
  def fromFields(key: String, fields: ActionFields): Action = key match {
    case "add" => addOf(fields)
    case "remove" => removeOf(fields)
    case _ =>
      val root = nodes.objectNode()
      root.set[JsonNode](key, fields.json)
      fromNode(root)
  }

  private def dv(b: ActionFields): Option[DeletionVectorDescriptor] =
    b.struct("deletionVector").map { d =>
      def required[T](name: String, v: Option[T]) =
        v.getOrElse(throw new IllegalArgumentException(s"required field '$name' is missing"))
      DeletionVectorDescriptor(DvStorage.fromCode(req(d, "storageType")), req(d, "pathOrInlineDv"),
        d.long("offset").map(_.toInt), required("sizeInBytes", d.long("sizeInBytes")).toInt,
        required("cardinality", d.long("cardinality")), d.long("maxRowIndex"))
    }

  private def req(b: ActionFields, name: String): String =
    b.text(name).getOrElse(throw new IllegalArgumentException(s"required field '$name' is missing"))

  private def dvNode(dv: DeletionVectorDescriptor): ObjectNode = {
    val o = nodes.objectNode()
    o.put("storageType", dv.storageType.code)
    o.put("pathOrInlineDv", dv.pathOrInlineDv)
    dv.offset.foreach(o.put("offset", _))
    o.put("sizeInBytes", dv.sizeInBytes)
    o.put("cardinality", dv.cardinality)
    dv.maxRowIndex.foreach(o.put("maxRowIndex", _))
    o
  }

  private def req(b: JsonNode, name: String): JsonNode = {
    val v = b.get(name)
    if (v == null || v.isNull) throw new IllegalArgumentException(s"required field '$name' is missing")
    v
  }
  private def str(b: JsonNode, name: String): Option[String] = new JsonFields(b).text(name)
  private def long(b: JsonNode, name: String): Option[Long] = new JsonFields(b).long(name)
  private def bool(b: JsonNode, name: String): Option[Boolean] = new JsonFields(b).bool(name)
  private def strings(b: JsonNode, name: String): Option[Seq[String]] =
    Option(b.get(name)).filterNot(_.isNull).map(_.elements().asScala.map(_.asText).toSeq)
  private def stringMap(b: JsonNode, name: String): Map[String, String] = new JsonFields(b).strings(name)

  private def putArray(o: ObjectNode, name: String, values: Seq[String]): Unit = {
    val a = o.putArray(name)
    values.foreach(a.add)
  }

  private def putMap(o: ObjectNode, name: String, m: Map[String, String]): Unit = {
    val n = o.putObject(name)
    m.toSeq.sortBy(_._1).foreach { case (k, v) => if (v == null) n.putNull(k) else n.put(k, v) }
  }

  private def abbreviate(s: String): String = if (s.length > 120) s.take(120) + "…" else s
}
