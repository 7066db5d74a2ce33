package io.silt.actions

import java.nio.charset.StandardCharsets.UTF_8
import java.time.ZoneOffset

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.JsonNodeFactory
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapred.FileSplit
import org.apache.hadoop.mapreduce.TaskAttemptID
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.parquet.filter2.compat.{FilterCompat, RowGroupFilter => StatisticsRowGroups}
import org.apache.parquet.filter2.predicate.FilterPredicate
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetInputFormat}
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ParquetMetadata}
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.execution.datasources.parquet.{ParquetReadSupport, ParquetToSparkSchemaConverter, VectorizedParquetRecordReader}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types._

/**
 * Reads the actions of a checkpoint (or sidecar) Parquet file on the driver, without a Spark job,
 * through Spark's vectorized Parquet reader (a column at a time: parquet-mr's row assembly cost
 * ten times more at a million files). A row's action is decoded from its fields as a commit line's
 * is ([[ActionFields]]); fields that only repeat the JSON ones in typed form (`stats_parsed`,
 * `partitionValues_parsed`) are not read.
 */
object ParquetActionRows {
  private val json = JsonNodeFactory.instance
  private val Skipped = Set("stats_parsed", "partitionValues_parsed")
  private val BatchRows = 4096

  /** A byte range of a checkpoint file that holds whole row groups, with the file's schema: what one thread reads. */
  final case class Piece(path: Path, start: Long, length: Long, fileSchema: MessageType, rows: Long,
      footer: ParquetMetadata)

  /** What a file's footer says of it that splitting it into pieces needs: kept, a scan of a large checkpoint does not parse it again. */
  final case class Footer(path: Path, length: Long, metadata: ParquetMetadata) {
    def schema: MessageType = metadata.getFileMetaData.getSchema
    val groups: IndexedSeq[BlockMetaData] = metadata.getBlocks.asScala.toIndexedSeq
  }

  def footer(path: Path, conf: Configuration): Footer = {
    val input = HadoopInputFile.fromPath(path, conf)
    val reader = ParquetFileReader.open(input)
    try Footer(path, input.getLength, reader.getFooter) finally reader.close()
  }

  /** The file in up to `count` pieces of whole row groups, in file order (one when it has one row group). */
  def pieces(path: Path, conf: Configuration, count: Int): Seq[Piece] = pieces(footer(path, conf), count, _ => None)

  def pieces(path: Path, conf: Configuration, count: Int, filterFor: MessageType => Option[FilterPredicate]): Seq[Piece] =
    pieces(footer(path, conf), count, filterFor)

  /**
   * The pieces of the file holding the row groups whose statistics `filterFor` (given the file's
   * schema) does not rule out: one per run of consecutive kept row groups, so that no reader is
   * opened for a range the filter rules out whole. Without a filter for the file, up to `count`
   * pieces of all its row groups, in file order.
   */
  def pieces(footer: Footer, count: Int, filterFor: MessageType => Option[FilterPredicate]): Seq[Piece] = {
    val Footer(path, length, metadata) = footer
    val (schema, groups) = (footer.schema, footer.groups)
    // the piece's own footer: of its row groups, so that the reader neither reads the file's again nor reads others
    def piece(first: Int, last: Int, end: Long) = Piece(path, if (first == 0) 0L else groups(first).getStartingPos,
      end - (if (first == 0) 0L else groups(first).getStartingPos), schema, (first to last).map(groups(_).getRowCount).sum,
      new ParquetMetadata(metadata.getFileMetaData, groups.slice(first, last + 1).asJava))
    filterFor(schema) match {
      case None =>
        val k = math.max(1, math.min(count, groups.size))
        val firsts = (0 until k).map(j => j * groups.size / k) :+ groups.size
        // Spark's reader takes the row groups whose middle is in the range: cut at their starts.
        (0 until k).map { j =>
          val end = if (j == k - 1) length else groups(firsts(j + 1)).getStartingPos
          if (groups.isEmpty) Piece(path, 0L, length, schema, 0L, metadata) else piece(firsts(j), firsts(j + 1) - 1, end)
        }
      case Some(f) =>
        val left = StatisticsRowGroups.filterRowGroups(FilterCompat.get(f), groups.asJava, schema).asScala
        val kept = groups.indices.filter(i => left.exists(_ eq groups(i)))
        // runs of consecutive kept row groups, each ending where its last row group does
        val runs = kept.foldLeft(List.empty[List[Int]]) {
          case ((run @ (last :: _)) :: done, i) if i == last + 1 => (i :: run) :: done
          case (done, i) => List(i) :: done
        }.reverse.map(_.reverse)
        runs.map(run => piece(run.head, run.last, groups(run.last).getStartingPos + groups(run.last).getCompressedSize))
    }
  }

  def read(path: Path, conf: Configuration): Seq[Action] = read(path, conf, Set.empty[String])

  /** The actions of the file; `only`, when not empty: just these top-level actions (`protocol`, …). */
  def read(path: Path, conf: Configuration, only: Set[String]): Seq[Action] =
    pieces(path, conf, 1).flatMap(read(_, conf, only))

  def read(piece: Piece, conf: Configuration): Seq[Action] = read(piece, conf, Set.empty[String])

  /** The actions of one piece of a file, as [[read]]. */
  def read(piece: Piece, conf: Configuration, only: Set[String]): Seq[Action] = read(piece, conf, only, None)(_ => true)

  /**
   * The actions of one piece that `keep` accepts, of the row groups (and pages) whose statistics
   * `filter` cannot rule out: the others are not read.
   */
  def read(piece: Piece, conf: Configuration, only: Set[String], filter: Option[FilterPredicate])(
      keep: Action => Boolean): Seq[Action] = {
    // the typed duplicates the filter names are read too: each row is tested on them before it is decoded
    val named = filter.map(RowLevelFilter.columns).getOrElse(Set.empty)
    val schema = StructType(new ParquetToSparkSchemaConverter(SQLConf.get).convert(piece.fileSchema).fields
      .filter(f => only.isEmpty || only(f.name)).map(f => f.copy(dataType = pruned(f.dataType, Seq(f.name), named))))
    if (schema.isEmpty) return Nil
    val rowFilter = filter.flatMap(RowLevelFilter.compile(_, schema))
    val reader = new VectorizedParquetRecordReader(ZoneOffset.UTC, "CORRECTED", "UTC", "CORRECTED", "UTC", false, BatchRows)
    // sized for every row only when every row is an action kept
    val out = new ArrayBuffer[Action](if (filter.isEmpty && only.isEmpty) math.min(piece.rows, Int.MaxValue / 2).toInt.max(16) else 16)
    val layouts = schema.fields.map(f => Some(f.dataType).collect { case st: StructType => new Layout(st) })
    try {
      val c = readerConf(conf, schema)
      filter.foreach(ParquetInputFormat.setFilterPredicate(c, _))
      c.setBoolean("parquet.filter.columnindex.enabled", false)
      SparkInternals.initializeWithFooter(reader, new FileSplit(piece.path, piece.start, piece.length, Array.empty[String]),
        new TaskAttemptContextImpl(c, new TaskAttemptID()), piece.footer)
      reader.initBatch(new StructType(), InternalRow.empty) // no partition columns
      while (reader.nextBatch()) {
        val batch = reader.resultBatch()
        for (r <- 0 until batch.numRows()) {
          val row = batch.getRow(r)
          if (rowFilter.forall(_(row))) for (c <- schema.indices if !row.isNullAt(c)) {
            val action = layouts(c) match {
              case Some(l) => new RowFields(row.getStruct(c, l.schema.size), l)
              case None => new JsonFields(value(row, c, schema(c).dataType))
            }
            val decoded = ActionCodec.fromFields(schema(c).name, action)
            if (keep(decoded)) out += decoded
          }
        }
      }
    } finally reader.close()
    out.toSeq
  }

  /**
   * The reader's configuration: the columns to read, and the Parquet settings Spark's reader looks
   * up, as this session has them (a Spark scan sets the same from its session).
   */
  private def readerConf(conf: Configuration, schema: StructType): Configuration = {
    val c = new Configuration(conf)
    val sql = SQLConf.get
    SparkInternals.parquetSettings(sql).foreach { case (k, v) => c.set(k, v) }
    c.set(SQLConf.CASE_SENSITIVE.key, sql.caseSensitiveAnalysis.toString)
    c.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, sql.sessionLocalTimeZone)
    c.set(ParquetInputFormat.READ_SUPPORT_CLASS, classOf[ParquetReadSupport].getName)
    c.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, schema.json)
    c
  }

  /** A struct type with its fields' positions by name, and those of its struct fields (made as rows ask for them). */
  private final class Layout(val schema: StructType) {
    private val index = new java.util.HashMap[String, Integer]()
    schema.fieldNames.zipWithIndex.foreach { case (n, i) => index.put(n, i) }
    private val nested = new Array[Layout](schema.size)
    def indexOf(name: String): Int = {
      val i = index.get(name)
      if (i == null) -1 else i
    }
    def child(i: Int, st: StructType): Layout = {
      if (nested(i) == null) nested(i) = new Layout(st)
      nested(i)
    }
  }

  /** The fields of a struct of a checkpoint row: the types a checkpoint has read directly, any other through JSON. */
  private final class RowFields(row: InternalRow, layout: Layout) extends ActionFields {
    private val schema = layout.schema
    private def at(name: String): Int = {
      val i = layout.indexOf(name)
      if (i >= 0 && row.isNullAt(i)) -1 else i
    }
    private def fallback(i: Int): JsonNode = value(row, i, schema(i).dataType)

    def text(name: String): Option[String] = at(name) match {
      case -1 => None
      case i => Some(schema(i).dataType match {
        case _: StringType => row.getUTF8String(i).toString
        case _ => fallback(i).asText
      })
    }
    def long(name: String): Option[Long] = at(name) match {
      case -1 => None
      case i => Some(schema(i).dataType match {
        case LongType => row.getLong(i)
        case IntegerType => row.getInt(i).toLong
        case _ => fallback(i).asLong
      })
    }
    def bool(name: String): Option[Boolean] = at(name) match {
      case -1 => None
      case i => Some(schema(i).dataType match {
        case BooleanType => row.getBoolean(i)
        case _ => fallback(i).asBoolean
      })
    }
    def strings(name: String): Map[String, String] = at(name) match {
      case -1 => Map.empty
      case i => schema(i).dataType match {
        case MapType(_: StringType, _: StringType, _) =>
          val map = row.getMap(i)
          val (keys, values) = (map.keyArray(), map.valueArray())
          (0 until map.numElements()).iterator.map { j =>
            keys.getUTF8String(j).toString -> (if (values.isNullAt(j)) null else values.getUTF8String(j).toString)
          }.toMap
        case _ =>
          val holder = ParquetActionRows.json.objectNode()
          holder.set[JsonNode](name, fallback(i))
          new JsonFields(holder).strings(name)
      }
    }
    def struct(name: String): Option[ActionFields] = at(name) match {
      case -1 => None
      case i => schema(i).dataType match {
        case st: StructType => Some(new RowFields(row.getStruct(i, st.size), layout.child(i, st)))
        case _ => Some(new JsonFields(fallback(i)))
      }
    }
    def json: JsonNode = {
      val o = ParquetActionRows.json.objectNode()
      for (j <- schema.fields.indices if !row.isNullAt(j)) o.set[JsonNode](schema(j).name, value(row, j, schema(j).dataType))
      o
    }
  }

  /**
   * The type (at `path`) without the typed duplicates, at any depth, so that their columns are not
   * even decoded: but for the columns in `named` and the structs on their way.
   */
  private def pruned(t: DataType, path: Seq[String], named: Set[Seq[String]]): DataType = t match {
    case s: StructType => StructType(s.fields.toSeq.flatMap { f =>
      val at = path :+ f.name
      if (!Skipped(f.name)) Some(f.copy(dataType = pruned(f.dataType, at, named)))
      else if (named.exists(_.startsWith(at))) Some(f.copy(dataType = onlyNamed(f.dataType, at, named)))
      else None
    })
    case other => other
  }

  /** Of a typed duplicate, the fields on the way to the columns in `named`. */
  private def onlyNamed(t: DataType, path: Seq[String], named: Set[Seq[String]]): DataType = t match {
    case s: StructType => StructType(s.fields.toSeq.filter(f => named.exists(_.startsWith(path :+ f.name)))
      .map(f => f.copy(dataType = onlyNamed(f.dataType, path :+ f.name, named))))
    case other => other
  }

  /** Field `i` of `g` (not null) as JSON: null struct fields are left out, as a commit line leaves them out. */
  private def value(g: SpecializedGetters, i: Int, t: DataType): JsonNode = t match {
    case s: StructType => new RowFields(g.getStruct(i, s.size), new Layout(s)).json
    case m: MapType =>
      val map = g.getMap(i)
      val (keys, values) = (map.keyArray(), map.valueArray())
      val o = json.objectNode()
      for (j <- 0 until map.numElements()) {
        val k = value(keys, j, m.keyType).asText
        if (values.isNullAt(j)) o.putNull(k) else o.set[JsonNode](k, value(values, j, m.valueType))
      }
      o
    case a: ArrayType =>
      val array = g.getArray(i)
      val o = json.arrayNode()
      for (j <- 0 until array.numElements()) if (array.isNullAt(j)) o.addNull() else o.add(value(array, j, a.elementType))
      o
    case _: StringType => json.textNode(g.getUTF8String(i).toString)
    case BinaryType => json.textNode(new String(g.getBinary(i), UTF_8))
    case LongType => json.numberNode(g.getLong(i))
    case IntegerType => json.numberNode(g.getInt(i))
    case ShortType => json.numberNode(g.getShort(i))
    case ByteType => json.numberNode(g.getByte(i))
    case BooleanType => json.booleanNode(g.getBoolean(i))
    case DoubleType => json.numberNode(g.getDouble(i))
    case FloatType => json.numberNode(g.getFloat(i))
    case _ => json.nullNode() // no action field is a timestamp, date or decimal
  }
}
