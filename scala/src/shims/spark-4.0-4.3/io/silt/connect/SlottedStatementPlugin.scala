package io.silt.connect

import java.util.Optional

import scala.jdk.CollectionConverters._

import io.silt.spark.SlottedStatement
import org.apache.spark.connect.proto.SQL
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.plugin.RelationPlugin
import org.apache.spark.sql.connect.planner.SparkConnectPlanner

/**
 * Silt's statements with Column expressions from a Spark Connect client (Silt's Python API), as the
 * classic API plans them: the client sends the statement's SQL text around slots and each slot's
 * expression in the Connect protocol's own messages, and the plan is the slotted statement's, so a
 * Column is never printed and parsed. Registered by `silt.configure` under
 * `spark.connect.extensions.relation.classes`.
 *
 * The message is a Relation extension whose Any has type [[SlottedStatementPlugin.TypeUrl]] and holds
 * a Spark Connect `SQL` message: `query` is the statement, `pos_arguments` the expressions of slots
 * 0, 1, ... and `named_arguments("nonce")` a string literal, the nonce of the slot names.
 */
final class SlottedStatementPlugin extends RelationPlugin {
  override def transform(relation: Array[Byte], planner: SparkConnectPlanner): Optional[LogicalPlan] = {
    val any = org.sparkproject.connect.protobuf.Any.parseFrom(relation)
    if (any.getTypeUrl != SlottedStatementPlugin.TypeUrl) return Optional.empty()
    val message = SQL.parseFrom(any.getValue.toByteArray)
    val nonce = Option(message.getNamedArgumentsMap.get("nonce"))
      .filter(e => e.hasLiteral && e.getLiteral.hasString)
      .getOrElse(throw new IllegalArgumentException("a slotted statement without its nonce (a string literal)"))
      .getLiteral.getString
    val slots = message.getPosArgumentsList.asScala.toSeq.map(e => planner.transformExpression(e))
    Optional.of(SlottedStatement.filled(planner.session, nonce, slots).plan(message.getQuery))
  }
}

object SlottedStatementPlugin {
  /** The type of the Any that carries a slotted statement (python/silt/connect_statement.py sends it). */
  val TypeUrl = "type.googleapis.com/silt.connect.SlottedStatement"
}
