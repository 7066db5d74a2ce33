package io.silt.expressions

/**
 * A space-filling curve over `values.length` coordinates of `bits` bits each: the position of a
 * point on it as a long (values.length * bits <= 63 bits). Both curves visit the quadtree cell by
 * cell, so the top `values.length * l` bits of a position are the cell of level `l` that holds it
 * (what OPTIMIZE plans its files by). Hilbert order visits the cells of a
 * parent in an order where each next cell touches the last: a run of cells on it is a compact
 * region, where a run on Z-order may jump across the space.
 */
sealed abstract class Curve(val name: String) extends Serializable {
  def index(values: Array[Int], bits: Int): Long
  /** The JVM object and method that compute `index` (generated code calls them). */
  private[expressions] def method: (String, String)
}

object Curve {
  case object ZOrder extends Curve("zorder") {
    def index(values: Array[Int], bits: Int): Long = InterleaveBits.interleaveToLong(values, bits)
    private[expressions] def method = (InterleaveBits.getClass.getName.stripSuffix("$"), "interleaveToLong")
  }

  case object Hilbert extends Curve("hilbert") {
    def index(values: Array[Int], bits: Int): Long = HilbertCurve.index(values, bits)
    private[expressions] def method = (HilbertCurve.getClass.getName.stripSuffix("$"), "index")
  }

  val all: Seq[Curve] = Seq(ZOrder, Hilbert)
}

/** The Hilbert curve in any number of dimensions (J. Skilling, "Programming the Hilbert curve", 2004). */
object HilbertCurve {
  /**
   * The position on the Hilbert curve of the point whose coordinates are the low `bits` bits of
   * `values`: Skilling's transform of the coordinates to their "transposed" index, then that
   * index's bits interleaved, the first coordinate's most significant.
   */
  def index(values: Array[Int], bits: Int): Long = {
    val n = values.length
    val mask = if (bits >= 32) -1 else (1 << bits) - 1
    val x = Array.tabulate(n)(i => values(i) & mask)
    if (bits > 0) {
      val m = 1 << (bits - 1)
      // Inverse undo: from the top bit down, reflect or exchange the lower bits.
      var q = m
      while (q > 1) {
        val p = q - 1
        var i = 0
        while (i < n) {
          if ((x(i) & q) != 0) x(0) ^= p
          else {
            val t = (x(0) ^ x(i)) & p
            x(0) ^= t
            x(i) ^= t
          }
          i += 1
        }
        q >>>= 1
      }
      // Gray encode.
      var i = 1
      while (i < n) { x(i) ^= x(i - 1); i += 1 }
      var t = 0
      q = m
      while (q > 1) {
        if ((x(n - 1) & q) != 0) t ^= q - 1
        q >>>= 1
      }
      i = 0
      while (i < n) { x(i) ^= t; i += 1 }
    }
    InterleaveBits.interleaveToLong(x, bits)
  }
}
