package io.silt.actions

/** The one way Silt renders small JSON values (operation parameters), with the log's own mapper. */
object Json {
  /** A JSON array of strings, as operationParameters hold lists. */
  def array(values: Seq[String]): String = {
    val a = ActionCodec.mapper.createArrayNode()
    values.foreach(a.add)
    ActionCodec.mapper.writeValueAsString(a)
  }

  /** A JSON object of string fields, in the order given (None: the field is left out). */
  def obj(fields: (String, Option[String])*): String = {
    val o = ActionCodec.mapper.createObjectNode()
    fields.foreach { case (k, v) => v.foreach(o.put(k, _)) }
    ActionCodec.mapper.writeValueAsString(o)
  }

  /** A string map as a JSON object, keys sorted. */
  def obj(values: Map[String, String]): String = obj(values.toSeq.sortBy(_._1).map { case (k, v) => k -> Some(v) }: _*)
}
