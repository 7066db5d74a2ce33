package io.silt.dml

import io.silt.features.ChangeDataFeed
import io.silt.spark.Identifiers
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, NamedExpression}
import org.apache.spark.sql.functions.{array, col, inline, lit, struct, when}

/**
 * The change data feed rows of a DELETE, UPDATE or MERGE, from its row-change plan: a deleted row
 * as it was, an updated row as it was and as it is now, an inserted row. A row-change plan that
 * feeds them carries each target row's values as read ([[preimage]]) besides its new ones.
 */
object ChangeRows {
  private val PreimagePrefix = "__silt_pre_"

  /** The target row's values as read, as extra columns of a row-change plan (null for a row without one). */
  def preimage(values: Seq[Expression], tableOutput: Seq[Attribute]): Seq[NamedExpression] =
    values.zip(tableOutput).map { case (v, a) => Alias(v, PreimagePrefix + a.name)() }

  /** The change rows (the table's `columns` and `_change_type`) of a row-change plan's rows. */
  def of(changes: DataFrame, columns: Seq[String]): DataFrame = {
    def image(prefix: String, kind: String): Column =
      struct(columns.map(c => Identifiers.column(prefix + c).as(c)) :+ lit(kind).as(ChangeDataFeed.ChangeTypeColumn): _*)
    val action = col(RowChanges.ActionColumn)
    val images = when(action === RowChange.Delete.code, array(image(PreimagePrefix, ChangeDataFeed.Delete)))
      .when(action === RowChange.Update.code, array(image(PreimagePrefix, ChangeDataFeed.UpdatePreimage),
        image("", ChangeDataFeed.UpdatePostimage)))
      .when(action === RowChange.Insert.code, array(image("", ChangeDataFeed.Insert)))
    changes.where(action =!= RowChange.Keep.code).select(inline(images))
  }
}
