package io.silt.optimize

/**
 * Groups items into bins of at most `maxBinSize` total size, taking them smallest first, so
 * that many small files become few large ones. An item larger than a bin gets a bin of its own.
 */
object BinPacking {
  def pack[A](items: Seq[A], maxBinSize: Long)(size: A => Long): Seq[Seq[A]] = {
    val bins = Seq.newBuilder[Seq[A]]
    val current = Seq.newBuilder[A]
    var currentSize = 0L
    var currentCount = 0
    items.sortBy(size).foreach { item =>
      val s = size(item)
      if (currentCount > 0 && currentSize + s > maxBinSize) {
        bins += current.result()
        current.clear()
        currentSize = 0L
        currentCount = 0
      }
      current += item
      currentSize += s
      currentCount += 1
    }
    if (currentCount > 0) bins += current.result()
    bins.result()
  }
}
