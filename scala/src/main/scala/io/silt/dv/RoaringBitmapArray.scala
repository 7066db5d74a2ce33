package io.silt.dv

import java.nio.{ByteBuffer, ByteOrder}

import scala.collection.mutable

import org.roaringbitmap.RoaringBitmap

/**
 * A set of 64-bit row indexes as Delta stores it: one 32-bit Roaring bitmap per value of the
 * high 32 bits. Serialized little-endian: the magic 1681511377, then the portable 64-bit
 * Roaring layout (bucket count, then per bucket its key and a standard 32-bit Roaring bitmap).
 */
final class RoaringBitmapArray private (private val buckets: mutable.TreeMap[Int, RoaringBitmap]) {
  def this() = this(mutable.TreeMap.empty[Int, RoaringBitmap])

  def add(row: Long): Unit = {
    require(row >= 0, s"row index $row is negative")
    buckets.getOrElseUpdate((row >>> 32).toInt, new RoaringBitmap()).add(row.toInt)
  }

  def addAll(rows: Iterable[Long]): Unit = rows.foreach(add)

  /** The 32-bit bitmap holding every row, when all rows are below 2^32 (the usual case). */
  def lowRows: Option[RoaringBitmap] =
    if (buckets.keySet.forall(_ == 0)) Some(buckets.getOrElse(0, new RoaringBitmap())) else None

  def contains(row: Long): Boolean =
    row >= 0 && buckets.get((row >>> 32).toInt).exists(_.contains(row.toInt))

  def cardinality: Long = buckets.valuesIterator.map(_.getLongCardinality).sum

  def isEmpty: Boolean = cardinality == 0

  /** The largest row index, if any. */
  def last: Option[Long] = buckets.lastOption.filterNot(_._2.isEmpty).map { case (k, b) =>
    (k.toLong << 32) | (b.last() & 0xffffffffL)
  }

  /** A new bitmap with the rows of both. */
  def union(other: RoaringBitmapArray): RoaringBitmapArray = {
    val merged = mutable.TreeMap.empty[Int, RoaringBitmap]
    (buckets.keySet ++ other.buckets.keySet).foreach { k =>
      merged(k) = RoaringBitmap.or(buckets.getOrElse(k, new RoaringBitmap()), other.buckets.getOrElse(k, new RoaringBitmap()))
    }
    new RoaringBitmapArray(merged)
  }

  /** A new bitmap with the rows of this one that `other` lacks. */
  def andNot(other: RoaringBitmapArray): RoaringBitmapArray = combine(other, RoaringBitmap.andNot)

  /** A new bitmap with the rows in both. */
  def intersect(other: RoaringBitmapArray): RoaringBitmapArray = combine(other, RoaringBitmap.and)

  /** Whether every row of `other` is in this one. */
  def containsAll(other: RoaringBitmapArray): Boolean = other.andNot(this).isEmpty

  private def combine(other: RoaringBitmapArray, op: (RoaringBitmap, RoaringBitmap) => RoaringBitmap) = {
    val out = mutable.TreeMap.empty[Int, RoaringBitmap]
    buckets.foreach { case (k, b) => out(k) = op(b, other.buckets.getOrElse(k, new RoaringBitmap())) }
    new RoaringBitmapArray(out)
  }

  def toArray: Array[Long] =
    buckets.iterator.flatMap { case (k, b) => b.toArray.iterator.map(v => (k.toLong << 32) | (v & 0xffffffffL)) }.toArray

  def serialize(): Array[Byte] = {
    buckets.valuesIterator.foreach(_.runOptimize())
    val live = buckets.filterNot(_._2.isEmpty)
    val size = 4 + 8 + live.valuesIterator.map(b => 4 + b.serializedSizeInBytes()).sum
    val bb = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN)
    bb.putInt(RoaringBitmapArray.Magic)
    bb.putLong(live.size.toLong)
    live.foreach { case (k, b) =>
      bb.putInt(k)
      b.serialize(bb)
    }
    bb.array()
  }

  override def equals(o: Any): Boolean = o match {
    case r: RoaringBitmapArray => toArray.sameElements(r.toArray)
    case _ => false
  }
  override def hashCode(): Int = java.util.Arrays.hashCode(toArray)
}

object RoaringBitmapArray {
  /** The magic number of the portable serialization (little-endian bytes D1 D3 39 64). */
  val Magic: Int = 1681511377

  def of(rows: Long*): RoaringBitmapArray = {
    val b = new RoaringBitmapArray()
    b.addAll(rows)
    b
  }

  /** The rows 0 until `n`: every row of a file of `n` rows. */
  def allBelow(n: Long): RoaringBitmapArray = {
    val buckets = mutable.TreeMap.empty[Int, RoaringBitmap]
    var start = 0L
    while (start < n) {
      val end = math.min(n, ((start >>> 32) + 1) << 32)
      val b = new RoaringBitmap()
      b.add(start & 0xffffffffL, if ((end & 0xffffffffL) == 0) 0x100000000L else end & 0xffffffffL)
      buckets((start >>> 32).toInt) = b
      start = end
    }
    new RoaringBitmapArray(buckets)
  }

  /** Parses the bytes of a bitmap; a wrong magic or a truncated body is an IllegalArgumentException. */
  def deserialize(bytes: Array[Byte]): RoaringBitmapArray = {
    val bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
    if (bytes.length < 12) throw new IllegalArgumentException(s"a deletion vector bitmap has at least 12 bytes, not ${bytes.length}")
    val magic = bb.getInt
    if (magic != Magic) {
      throw new IllegalArgumentException(f"wrong bitmap magic number $magic (0x$magic%08x); expected $Magic (portable RoaringBitmapArray)")
    }
    val n = bb.getLong
    if (n < 0 || n > (bytes.length - 12) / 4) throw new IllegalArgumentException(s"bitmap claims $n buckets in ${bytes.length} bytes")
    val buckets = mutable.TreeMap.empty[Int, RoaringBitmap]
    var last = Long.MinValue
    // a body shorter than its bucket count or bitmap headers claim (found by fuzzing)
    try { (0L until n).foreach { _ =>
      val key = bb.getInt
      if ((key & 0xffffffffL) <= last) throw new IllegalArgumentException("bitmap buckets are not in ascending order")
      last = key & 0xffffffffL
      val b = new RoaringBitmap()
      try b.deserialize(bb.slice().order(ByteOrder.LITTLE_ENDIAN)) catch {
        case e: Exception => throw new IllegalArgumentException(s"bucket $key of the bitmap is corrupt: ${e.getMessage}", e)
      }
      bb.position(bb.position() + b.serializedSizeInBytes())
      buckets(key) = b
    } } catch {
      case e @ (_: java.nio.BufferUnderflowException | _: IndexOutOfBoundsException) =>
        throw new IllegalArgumentException(s"the bitmap is truncated: its ${bytes.length} bytes end inside bucket ${buckets.size}", e)
    }
    new RoaringBitmapArray(buckets)
  }
}
