package io.silt.features

import io.silt.actions.{Action, AddFile, DomainMetadata, Metadata, Protocol}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

/** Who must understand a table feature: writers only, or readers as well. */
sealed abstract class FeatureKind(val name: String) extends Serializable
object FeatureKind {
  case object Writer extends FeatureKind("writer")
  case object ReaderWriter extends FeatureKind("reader-writer")
}

/** What Silt does with a table whose protocol declares a feature. */
sealed abstract class FeatureSupport(val reads: Boolean, val writes: Boolean) extends Serializable
object FeatureSupport {
  /** Read and written with the feature's rules. */
  case object ReadWrite extends FeatureSupport(true, true)
  /** Read (a writer-only feature, or one whose read side Silt implements); every write refused. */
  final case class ReadOnly(why: String) extends FeatureSupport(true, false)
  /** Refused for write, and for read too when readers must understand it. */
  final case class Refused(why: String) extends FeatureSupport(false, false)
}

/** What a table's metadata asks of its protocol: its schema, its properties, whether it is clustered. */
final case class TableShape(schema: StructType, properties: TableProperties, clustered: Boolean) {
  /** Whether some field (at any depth) carries metadata `key`. */
  def anyFieldMetadata(key: String): Boolean = TableShape.anyField(schema, _.metadata.contains(key))
  /** Whether some column or nested field has a type matching `p`. */
  def containsType(p: DataType => Boolean): Boolean = TableShape.containsType(schema, p)
}

object TableShape {
  def of(m: Metadata, clustered: Boolean = false): TableShape =
    TableShape(m.schema, TableProperties(m.configuration), clustered)

  def anyField(dt: DataType, p: org.apache.spark.sql.types.StructField => Boolean): Boolean = dt match {
    case s: StructType => s.fields.exists(f => p(f) || anyField(f.dataType, p))
    case a: ArrayType => anyField(a.elementType, p)
    case m: MapType => anyField(m.keyType, p) || anyField(m.valueType, p)
    case _ => false
  }

  def containsType(dt: DataType, p: DataType => Boolean): Boolean = dt match {
    case s: StructType => s.fields.exists(f => containsType(f.dataType, p))
    case a: ArrayType => containsType(a.elementType, p)
    case m: MapType => containsType(m.keyType, p) || containsType(m.valueType, p)
    case other => p(other)
  }
}

/**
 * A commit about to be written, as a feature's checks see it: the metadata and protocol it
 * leaves, the previous ones (None: a new table), its actions, and the live files it read.
 */
final case class PendingCommit(tablePath: String, previous: Option[Metadata], metadata: Metadata, protocol: Protocol,
    actions: Seq[Action], liveFiles: () => Seq[AddFile]) {
  def properties: TableProperties = TableProperties(metadata.configuration)
}

/**
 * One attempt to write a commit as `version`, as a feature's per-attempt part sees and changes it: its
 * actions, the protocol and metadata it leaves and the previous metadata (None: a new table), the
 * table's metadata domains as of the version before it (the read snapshot's, then each winning commit's),
 * the clock's time, the previous commit's time (read only when asked), and the commit's in-commit
 * timestamp once a feature has stamped it.
 */
final case class CommitAttempt(version: Long, actions: Seq[Action], protocol: Protocol, metadata: Metadata,
    previous: Option[Metadata], domains: Map[String, DomainMetadata], now: Long, previousCommitTime: () => Long,
    inCommitTimestamp: Option[Long] = None)

/**
 * One Delta table feature: its name and kind, what Silt does with it, the legacy protocol
 * versions that imply it, the features it needs, when a table needs it, and the rules it adds
 * to a commit. [[TableFeatures.all]] lists them; the protocol, the transaction and the readers
 * consult that list rather than naming features themselves.
 */
trait TableFeature {
  def name: String
  def kind: FeatureKind
  def support: FeatureSupport
  /** The legacy (reader, writer) versions that imply it; None: only a protocol's feature lists name it. */
  def legacyVersions: Option[(Int, Int)] = None
  /** The features a protocol with this one must also have. */
  def requires: Seq[String] = Nil
  /** Whether a table of this shape needs the feature (a property enabling it, a column using it). */
  def neededBy(t: TableShape): Boolean = false
  /** The properties a new or replaced table needing this feature gets where it sets none (as Delta Lake sets them). */
  def impliedProperties: Map[String, String] = Map.empty
  /** Refuses to read a table whose metadata uses this feature in a way Silt cannot read; called when the protocol has it. */
  def checkRead(tablePath: String, m: Metadata): Unit = ()
  /**
   * Actions this feature adds to a commit, from the live files it read (a backfill); called on
   * every commit, before the checks. A commit given any reads every live file.
   */
  def addedActions(c: PendingCommit): Seq[Action] = Nil
  /** How DROP FEATURE removes it; None: it cannot be dropped (as in Delta), or not by Silt yet (`dropRefusal`). */
  def drop: Option[FeatureDrop] = None
  /** Why DROP FEATURE refuses it, when `drop` is None. */
  def dropRefusal: String = "Delta Lake does not let this feature be dropped"
  /** Refuses, before anything is written, a commit that breaks this feature's rules; called on every commit. */
  def checkCommit(c: PendingCommit): Unit = ()
  /** The metadata a commit leaves, with what this feature keeps in it (names it gives); called once per commit, first. */
  def preparedMetadata(p: Protocol, m: Metadata): Metadata = m
  /**
   * The attempt as this feature writes it: what depends on the version or on the commits that won before it
   * (a timestamp, fresh row ids); called at each attempt, in [[TableFeatures.all]]'s order.
   */
  def atAttempt(a: CommitAttempt): CommitAttempt = a

  final def isReaderWriter: Boolean = kind == FeatureKind.ReaderWriter
}
