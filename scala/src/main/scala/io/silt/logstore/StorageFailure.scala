package io.silt.logstore

import java.io.{EOFException, FileNotFoundException, IOException}

import org.apache.hadoop.fs.ChecksumException
import org.apache.spark.internal.Logging

/**
 * Tells a storage failure (a timeout, a throttled, refused or reset request: the store did not
 * answer) from a file that was read and is not what it should be (missing, truncated, not
 * decodable). A fallback that reads something else instead (an older checkpoint, the whole file
 * list) may cure the second; after the first it would only guess, or turn a passing fault into a
 * driver-memory failure, so the statement fails with the store's error and can be retried.
 */
object StorageFailure extends Logging {
  /** How many times a log read is tried on a storage failure, and the wait before the second. */
  val ReadAttempts = 4
  val FirstBackoffMs = 100L

  private def chain(e: Throwable): Iterator[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20)

  /** The storage failure in `e`'s causes, if any. */
  def of(e: Throwable): Option[IOException] = chain(e).collectFirst {
    case io: IOException if !isContent(io) => io
  }

  // What a file's bytes, not the store, caused: it is gone, ends early, fails its checksum, or does
  // not decode (Parquet's footer reader reports a Thrift error as an IOException).
  private def isContent(io: IOException): Boolean = io match {
    case _: FileNotFoundException | _: EOFException | _: ChecksumException => true
    case _ => Option(io.getCause).exists(c => chain(c).exists { x =>
      val name = x.getClass.getName
      name.contains(".thrift.") || name.endsWith("ParquetDecodingException")
    })
  }

  /**
   * `read`, tried again (at most [[ReadAttempts]] times in all, waiting twice as long each time) while
   * it fails with a storage failure: a log file read is idempotent, and a store's client may give up
   * after one reset connection (S3A's analytics stream does). Other failures are thrown at once.
   */
  def retrying[T](what: => String)(read: => T): T = {
    var attempt = 1
    var wait = FirstBackoffMs
    while (true) {
      try return read catch {
        case e: Exception if attempt < ReadAttempts && of(e).isDefined =>
          logWarning(s"Silt: reading $what failed (${of(e).get}); trying again in $wait ms " +
            s"(attempt ${attempt + 1} of $ReadAttempts)")
          Thread.sleep(wait)
          attempt += 1
          wait *= 2
      }
    }
    throw new IllegalStateException("unreachable")
  }
}
