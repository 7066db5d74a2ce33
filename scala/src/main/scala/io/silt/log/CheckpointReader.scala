package io.silt.log

import io.silt.actions._
import io.silt.logstore._
import java.util.concurrent.{Callable, ExecutionException, Executors}

import com.fasterxml.jackson.databind.JsonNode
import io.silt.errors.CorruptLogException
import org.apache.hadoop.fs.Path

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
      case _ => parquet(store, cp.files.map(_.getPath), only = Set("protocol", "metaData"))
    }
    head.filter(a => a.isInstanceOf[Protocol] || a.isInstanceOf[Metadata])
  }

  /** The sidecar files a checkpoint refers to (none for V1 checkpoints). */
  def sidecarsOf(store: LogStore, logPath: Path, cp: CheckpointInstance): Seq[Path] =
    topLevel(store, cp).collect { case UnknownAction("sidecar", node) => sidecarPath(logPath, node) }

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
  private def parquet(store: LogStore, paths: Seq[Path], only: Set[String] = Set.empty): Seq[Action] = {
    val conf = store.hadoopConf
    def named[T](p: Path)(read: => T): T = try read catch {
      case e: Exception => throw new CorruptLogException(p.toString, s"cannot read the checkpoint: ${e.getMessage}", e)
    }
    val threads = Runtime.getRuntime.availableProcessors()
    val pieces = inParallel(paths, threads)(p => named(p)(ParquetActionRows.pieces(p, conf, threads))).flatten
    inParallel(pieces, threads)(piece => named(piece.path)(ParquetActionRows.read(piece, conf, only))).flatten
  }

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
