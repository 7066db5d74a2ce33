package io.silt.log

import io.silt.actions._
import io.silt.logstore._
import java.util.concurrent.{Callable, ExecutionException, Executors}

import com.fasterxml.jackson.databind.JsonNode
import io.silt.errors.CorruptLogException
import org.apache.hadoop.fs.Path
import org.apache.parquet.filter2.predicate.FilterPredicate
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import scala.jdk.CollectionConverters._

/**
 * Reads the actions of a checkpoint: classic and multi-part Parquet checkpoints, and V2
 * checkpoints (JSON or Parquet) with their add and remove actions inline or in sidecar files.
 * Parquet rows become the same single-action JSON objects as commit lines, so one codec reads both.
 */
object CheckpointReader {

  def read(store: LogStore, logPath: Path, cp: CheckpointInstance): Seq[Action] = {
    val top = topLevel(store, cp)
    val sidecars = top.collect { case UnknownAction("sidecar", node) => sidecarPath(logPath, node) }
    val inline = top.filter {
      case UnknownAction("sidecar" | "checkpointMetadata", _) => false
      case _ => true
    }
    inline ++ (if (sidecars.isEmpty) Nil else parquet(store, sidecars))
  }

  /**
   * The protocol and metaData actions of a checkpoint, without its file actions: for classic and
   * multi-part checkpoints, the two columns alone; for V2, the top-level file (sidecars unread).
   */
  def readProtocolAndMetadata(store: LogStore, logPath: Path, cp: CheckpointInstance): Seq[Action] = {
    val head = cp.kind match {
      case CheckpointKind.V2("json") => cp.files.flatMap(f => jsonLines(store, f.getPath))
      case _ => parquet(store, cp.files.map(_.getPath), only = Set("protocol", "metaData"), ProtocolOrMetadata.forFile)
    }
    head.filter(a => a.isInstanceOf[Protocol] || a.isInstanceOf[Metadata])
  }

  /** The txn and domainMetadata actions of a checkpoint (never in sidecars), without reading its file actions. */
  def readTransactionsAndDomains(store: LogStore, logPath: Path, cp: CheckpointInstance): Seq[Action] = {
    val top = cp.kind match {
      case CheckpointKind.V2("json") => cp.files.flatMap(f => jsonLines(store, f.getPath))
      case _ => parquet(store, cp.files.map(_.getPath), only = Set("txn", "domainMetadata"), TransactionOrDomain.forFile)
    }
    top.filter(a => a.isInstanceOf[SetTransaction] || a.isInstanceOf[DomainMetadata])
  }

  /** The sidecar files a checkpoint refers to (none for V1 checkpoints). */
  def sidecarsOf(store: LogStore, logPath: Path, cp: CheckpointInstance): Seq[Path] = {
    // of a Parquet checkpoint, the sidecar column alone: the file actions may be millions
    val top = cp.kind match {
      case CheckpointKind.V2("json") => cp.files.flatMap(f => jsonLines(store, f.getPath))
      case _ => parquet(store, cp.files.map(_.getPath), only = Set("sidecar"), Sidecar.forFile)
    }
    top.collect { case UnknownAction("sidecar", node) => sidecarPath(logPath, node) }
  }

  /**
   * Where a checkpoint's adds are: the footers of its Parquet files (sidecars included), read once
   * for every scan of it, and a JSON V2 checkpoint's own adds.
   */
  final class Layout(val footers: Seq[ParquetActionRows.Footer], val inline: Seq[AddFile])

  def layout(store: LogStore, logPath: Path, cp: CheckpointInstance): Layout = {
    val (paths, inline) = parquetFiles(store, logPath, cp)
    val threads = Runtime.getRuntime.availableProcessors()
    new Layout(inParallel(paths, threads)(p => named(p)(ParquetActionRows.footer(p, store.hadoopConf))), inline)
  }

  /**
   * The add actions of a checkpoint that a `keep` accepts (each thread makes its own), read only
   * from the row groups of its Parquet files (sidecars included) that `filter` cannot rule out, and
   * of those only the rows it accepts, on as many threads as there are cores.
   */
  def scanAdds(store: LogStore, layout: Layout, filter: Option[RowGroupFilter])(keep: () => AddFile => Boolean): Seq[AddFile] = {
    val conf = store.hadoopConf
    val threads = Runtime.getRuntime.availableProcessors()
    val pieces = layout.footers.flatMap(f => named(f.path)(ParquetActionRows.pieces(f, threads,
      schema => filter.flatMap(_.forFile(schema)))))
    val keeps = new ThreadLocal[AddFile => Boolean] { override def initialValue(): AddFile => Boolean = keep() }
    layout.inline.filter(keep()) ++ inParallel(pieces, threads) { piece =>
      val accept = keeps.get()
      named(piece.path, once = true)(ParquetActionRows.read(piece, conf, Set("add"), filter.flatMap(_.forFile(piece.fileSchema))) {
        case a: AddFile => accept(a)
        case _ => false
      }).collect { case a: AddFile => a }
    }.flatten
  }

  /**
   * What a checkpoint's footers say of it: its rows, its adds (None when a row group has no null
   * count of `add.path`) and an upper bound of the bytes of the files they add.
   */
  final case class FooterSummary(rows: Long, adds: Option[Long], sizeBound: Long)

  def footerSummary(layout: Layout): FooterSummary = {
    def capped(x: Long) = math.min(Long.MaxValue / 2, x)
    val groups = layout.footers.flatMap(_.groups.map { g =>
      def stats(column: String) = g.getColumns.asScala.find(_.getPath.toDotString == column).map(_.getStatistics)
        .filter(_ != null)
      val size = stats("add.size").filter(_.hasNonNullValue).map(_.genericGetMax.asInstanceOf[Number].longValue)
      val adds = stats("add.path").filter(_.isNumNullsSet).map(g.getRowCount - _.getNumNulls)
        .orElse(if (g.getColumns.asScala.exists(_.getPath.toDotString == "add.path")) None else Some(0L))
      FooterSummary(g.getRowCount, adds, size.map(_ * g.getRowCount).getOrElse(Long.MaxValue / 4))
    })
    val inlineAdds = layout.inline
    groups.foldLeft(FooterSummary(inlineAdds.size, Some(inlineAdds.size.toLong), inlineAdds.map(_.size).sum)) { (a, b) =>
      FooterSummary(a.rows + b.rows, for (x <- a.adds; y <- b.adds) yield x + y, capped(a.sizeBound + b.sizeBound))
    }
  }

  /** The Parquet files holding a checkpoint's file actions, and the adds of a JSON V2 checkpoint's own file. */
  private def parquetFiles(store: LogStore, logPath: Path, cp: CheckpointInstance): (Seq[Path], Seq[AddFile]) = cp.kind match {
    case CheckpointKind.V2("json") =>
      val top = cp.files.flatMap(f => jsonLines(store, f.getPath))
      (top.collect { case UnknownAction("sidecar", node) => sidecarPath(logPath, node) }, top.collect { case a: AddFile => a })
    // a classic-named checkpoint may be a V2 one with sidecars too
    case _ => (cp.files.map(_.getPath) ++ sidecarsOf(store, logPath, cp), Nil)
  }

  // A storage failure is read again (a read that hands rows to a caller's function only once:
  // `once`), and stays what it is if it persists: the store did not answer, the file is not corrupt.
  private def named[T](p: Path, once: Boolean = false)(read: => T): T =
    try { if (once) read else StorageFailure.retrying(p.toString)(read) } catch {
      case e: Exception if StorageFailure.of(e).isEmpty =>
        throw new CorruptLogException(p.toString, s"cannot read the checkpoint: ${e.getMessage}", e)
    }

  private def topLevel(store: LogStore, cp: CheckpointInstance): Seq[Action] = cp.kind match {
    case CheckpointKind.V2("json") => cp.files.flatMap(f => jsonLines(store, f.getPath))
    case _ => parquet(store, cp.files.map(_.getPath))
  }

  private def jsonLines(store: LogStore, path: Path): Seq[Action] =
    store.readLines(path).zipWithIndex.map { case (line, i) =>
      try ActionCodec.fromJson(line) catch {
        case e: Exception => throw new CorruptLogException(path.toString, s"line ${i + 1}: ${e.getMessage}", e)
      }
    }

  /**
   * The actions of checkpoint or sidecar Parquet files, read on the driver (a Spark job turning rows
   * into actions costs more than the reading, and the snapshot holds them there): the files, and the
   * row groups of each, are read by as many threads as there are cores, in order.
   */
  private def parquet(store: LogStore, paths: Seq[Path], only: Set[String] = Set.empty,
      filterFor: MessageType => Option[FilterPredicate] = _ => None): Seq[Action] = {
    val conf = store.hadoopConf
    val threads = Runtime.getRuntime.availableProcessors()
    val pieces = inParallel(paths, threads)(p => named(p)(ParquetActionRows.pieces(p, conf, threads, filterFor))).flatten
    inParallel(pieces, threads)(piece => named(piece.path)(ParquetActionRows.read(piece, conf, only,
      filterFor(piece.fileSchema))(_ => true))).flatten
  }

  // The actions other than add and remove are a few rows of a checkpoint of millions: row groups
  // holding none of the kind wanted (by their null counts) are not read for them.
  private val ProtocolOrMetadata = AnyNonNull(
    Seq("protocol", "minReaderVersion") -> PrimitiveTypeName.INT32, Seq("metaData", "id") -> PrimitiveTypeName.BINARY)
  private val Sidecar = AnyNonNull(Seq("sidecar", "path") -> PrimitiveTypeName.BINARY)
  private val TransactionOrDomain = AnyNonNull(
    Seq("txn", "appId") -> PrimitiveTypeName.BINARY, Seq("domainMetadata", "domain") -> PrimitiveTypeName.BINARY)

  /** `f` of each item, on up to `threads` threads, in the items' order. */
  private def inParallel[A, B](items: Seq[A], threads: Int)(f: A => B): Seq[B] = {
    if (items.size <= 1 || threads <= 1) return items.map(f)
    val pool = Executors.newFixedThreadPool(math.min(items.size, threads))
    try {
      val pending = items.map(i => pool.submit(new Callable[B] { def call(): B = f(i) }))
      pending.map { p =>
        try p.get() catch { case e: ExecutionException => throw e.getCause }
      }
    } finally pool.shutdownNow()
  }

  /** A sidecar's path: relative to `_delta_log/_sidecars/`, or absolute. */
  private def sidecarPath(logPath: Path, node: JsonNode): Path = {
    val raw = Option(node.get("path")).map(_.asText).getOrElse(
      throw new CorruptLogException(logPath.toString, "a sidecar action has no path"))
    val p = new Path(new java.net.URI(raw))
    if (p.isAbsolute) p else new Path(new Path(logPath, FileNames.SidecarDir), p)
  }
}
