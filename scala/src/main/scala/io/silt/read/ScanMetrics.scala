package io.silt.read

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.datasources.HadoopFsRelation

/** How many data files the Silt scans of a query read; for tests and benchmarks. */
object ScanMetrics {

  /** Runs the query and returns the number of files its Silt scans read. */
  def filesScanned(df: DataFrame): Long = {
    val plan = df.queryExecution.executedPlan
    plan.executeCollect()
    siltScans(plan).map(_.metrics("numFiles").value).sum
  }

  private def siltScans(plan: SparkPlan): Seq[FileSourceScanExec] = plan match {
    case a: AdaptiveSparkPlanExec => siltScans(a.executedPlan)
    case q: QueryStageExec => siltScans(q.plan)
    case s: FileSourceScanExec if s.relation.location.isInstanceOf[SiltFileIndex] => Seq(s)
    case other => other.children.flatMap(siltScans) ++ other.subqueries.flatMap(siltScans)
  }

  /** Whether a relation reads a Silt table. */
  def isSilt(r: HadoopFsRelation): Boolean = r.location.isInstanceOf[SiltFileIndex]
}
