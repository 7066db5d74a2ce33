package io.silt.vacuum

import scala.collection.mutable

import io.silt.actions.TablePaths
import io.silt.state.StateReconstruction
import io.silt.dv.{DeletionVectorDescriptor, DvStorage}
import io.silt.log.{Snapshot, TableLog}
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.apache.spark.util.SerializableConfiguration

/**
 * VACUUM's sets as Spark jobs, for a table whose file list is not on the driver
 * ([[Snapshot.fileListOffDriver]]): the files the table needs are the rows of a Spark replay of its
 * checkpoint and commits, the table's folder is listed by tasks (one per top-level folder), and
 * the candidates are what an anti-join of the two leaves. Only the candidates reach the driver.
 * Files are keyed, as [[Vacuum]] keys them, by their URI's path.
 */
private[vacuum] object DistributedVacuum {
  private val ListingSchema = StructType(Seq(StructField("key", StringType), StructField("path", StringType),
    StructField("length", LongType), StructField("modificationTime", LongType)))

  /** The keys of the files the snapshot needs: live files, their DVs, tombstones removed after `cutoff` and theirs; None when Spark cannot replay it. */
  def referenced(spark: SparkSession, log: TableLog, snapshot: Snapshot, cutoff: Long): Option[DataFrame] =
    StateReconstruction.of(log, snapshot).flatMap(_.rows(spark, cutoff)).map { rows =>
      val root = log.tablePath.toString
      val fileKey = udf((p: String) => if (p == null) null else TablePaths.absolute(new Path(root), p).toUri.getPath)
      val dvKey = udf { (storage: String, pathOrInline: String) =>
        if (storage == null || storage == DvStorage.Inline.code) null
        else DeletionVectorDescriptor(DvStorage.fromCode(storage), pathOrInline, None, 0, 0L, None)
          .filePath(new Path(root)).toUri.getPath
      }
      def keys(action: String): Seq[Column] = Seq(fileKey(col(s"$action.path")),
        dvKey(col(s"$action.deletionVector.storageType"), col(s"$action.deletionVector.pathOrInlineDv")))
      rows.select(explode(array((keys("add") ++ keys("remove")): _*)).as("key")).where(col("key").isNotNull)
    }

  /**
   * The table's files VACUUM may consider (outside `_delta_log` and hidden folders), listed by a
   * task per top-level folder (and one for the root's own files), as rows of key, path, length and
   * modification time.
   */
  def listing(spark: SparkSession, log: TableLog, kept: Set[String]): DataFrame = {
    val fs = log.tablePath.getFileSystem(log.hadoopConf)
    val root = fs.makeQualified(log.tablePath)
    val rootPath = root.toUri.getPath.stripSuffix("/") + "/"
    // the driver keeps the top-level folders only; a table's millions of files are listed by tasks
    val folders = mutable.ArrayBuffer.empty[String]
    val it = fs.listStatusIterator(root)
    while (it.hasNext) {
      val st = it.next()
      if (st.isDirectory && Vacuum.wanted(relative(st, rootPath), isDir = true, kept)) folders += st.getPath.toString
    }
    val conf = new SerializableConfiguration(log.hadoopConf)
    val rootString = root.toString
    val tasks = (rootString -> false) +: folders.toSeq.map(_ -> true)
    val listed = spark.sparkContext.parallelize(tasks, math.max(1, tasks.size)).mapPartitions { part =>
      part.flatMap { case (dir, recursive) =>
        val fs = new Path(dir).getFileSystem(conf.value)
        filesUnder(fs, new Path(dir), recursive, rootPath, kept).map { st =>
          Row(st.getPath.toUri.getPath, st.getPath.toString, st.getLen, st.getModificationTime)
        }
      }
    }
    spark.createDataFrame(listed, ListingSchema)
  }

  /** An inventory's files under the table root that VACUUM may consider, as [[listing]]'s rows. */
  def inventoried(spark: SparkSession, inventory: DataFrame, root: Path, kept: Set[String]): DataFrame = {
    val prefix = root.toString.stripSuffix("/") + "/"
    val wanted = udf((p: String) => Vacuum.wanted(p.substring(prefix.length).split('/'), isDir = false, kept))
    val key = udf((p: String) => new Path(p).toUri.getPath)
    Inventory.checked(inventory).where(col("path").startsWith(lit(prefix)) && !col("isDir") && wanted(col("path")))
      .select(key(col("path")).as("key"), col("path"), col("length"), col("modificationTime"))
  }

  /** The files of `files` (rows as [[listing]]'s) modified before `cutoff` whose keys `referenced` lacks. */
  def candidates(files: DataFrame, referenced: DataFrame, cutoff: Long): Seq[VacuumCandidate] =
    files.where(col("modificationTime") < cutoff).join(referenced.distinct(), Seq("key"), "left_anti")
      .select("path", "length").collect().toSeq.map { r =>
        val p = new Path(r.getString(0))
        VacuumCandidate(p, r.getLong(1), p.getName.startsWith("deletion_vector_"))
      }

  /** Which of `keys` the table needs (by `referenced`): for VACUUM LITE's few candidates. */
  def needed(spark: SparkSession, keys: Seq[String], referenced: DataFrame): Set[String] = {
    import spark.implicits._
    keys.toDF("key").join(referenced, Seq("key"), "left_semi").as[String].collect().toSet
  }

  private def relative(st: FileStatus, rootPath: String): Array[String] =
    st.getPath.toUri.getPath.stripPrefix(rootPath).split('/')

  /** The wanted files under `dir`: its own only, or (`recursive`) those of its wanted subfolders too, folder by folder. */
  private def filesUnder(fs: FileSystem, dir: Path, recursive: Boolean, rootPath: String,
      kept: Set[String]): Iterator[FileStatus] = {
    val folders = mutable.Queue(dir)
    Iterator.continually(folders).takeWhile(_.nonEmpty).flatMap { q =>
      val it = fs.listStatusIterator(q.dequeue())
      Iterator.continually(it).takeWhile(_.hasNext).map(_.next()).filter { st =>
        if (st.isDirectory) {
          if (recursive && Vacuum.wanted(relative(st, rootPath), isDir = true, kept)) folders.enqueue(st.getPath)
          false
        } else Vacuum.wanted(relative(st, rootPath), isDir = false, kept)
      }
    }
  }
}
