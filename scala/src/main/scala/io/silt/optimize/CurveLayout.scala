package io.silt.optimize

import scala.collection.mutable.ArrayBuffer

/**
 * Plans the output files of a Z-order rewrite so that each file is a block of the curve's
 * quadtree (or a run of sibling blocks), never a stretch of the curve that jumps across the
 * space. A file's min/max box is then as small as a file of that size can have, which is what
 * makes a range predicate on any one column skip most files.
 *
 * Cells are the curve prefixes at the finest level (each level takes one bit of every column);
 * `weights` are their (sampled) row counts. A block light enough for one file becomes a file;
 * a heavier block is split into its children; adjacent light blocks with one parent are merged;
 * a single finest cell heavier than a file is spread over several files.
 */
object CurveLayout {

  /** One planned file group: finest-level prefixes [start, end), spread over `files` files. */
  final case class Group(start: Long, end: Long, weight: Double, files: Int)

  /** The groups, in curve order, and the first file index of each. */
  final case class Plan(groups: IndexedSeq[Group]) {
    val starts: Array[Long] = groups.map(_.start).toArray
    val firstFile: Array[Int] = groups.scanLeft(0)(_ + _.files).toArray
    def numFiles: Int = firstFile.last

    /** The file a row with this finest-level prefix (and this non-negative noise) goes to. */
    def fileOf(prefix: Long, noise: => Int): Int = {
      var lo = 0
      var hi = starts.length - 1
      while (lo < hi) { // last group whose start <= prefix (or the first group)
        val mid = (lo + hi + 1) >>> 1
        if (starts(mid) <= prefix) lo = mid else hi = mid - 1
      }
      val g = groups(lo)
      firstFile(lo) + (if (g.files > 1) Math.floorMod(noise, g.files) else 0)
    }
  }

  /** How much heavier than the target a block may be and still become one file. */
  val Slack = 1.25

  /**
   * @param weights   row weight per finest-level prefix
   * @param dims      number of clustered columns (bits per level)
   * @param levels    number of levels of the finest prefix
   * @param numFiles  the wanted number of files
   * @param splitHeavyCells whether a finest cell heavier than a file is spread over several files
   */
  def plan(weights: Map[Long, Double], dims: Int, levels: Int, numFiles: Int, splitHeavyCells: Boolean): Plan = {
    require(dims >= 1 && levels >= 1 && dims * levels <= 62, s"unsupported curve: $dims dims x $levels levels")
    val keys = weights.keys.toArray.sorted
    val prefixSums = keys.scanLeft(0.0)((acc, k) => acc + weights(k))
    val total = prefixSums.last
    if (keys.isEmpty || total <= 0 || numFiles <= 1) {
      return Plan(IndexedSeq(Group(0L, 1L << (dims * levels), total, 1)))
    }
    val target = total / numFiles
    val capacity = target * Slack

    def weightOf(start: Long, end: Long): Double =
      prefixSums(lowerBound(keys, end)) - prefixSums(lowerBound(keys, start))

    def build(level: Int, prefix: Long): Seq[Group] = {
      val shift = dims * (levels - level)
      val start = prefix << shift
      val end = (prefix + 1) << shift
      val w = weightOf(start, end)
      if (w <= 0) Nil
      else if (w <= capacity) Seq(Group(start, end, w, 1))
      else if (level == levels) {
        Seq(Group(start, end, w, if (splitHeavyCells) math.ceil(w / target).toInt else 1))
      } else {
        mergeSiblings((0L until (1L << dims)).flatMap(c => build(level + 1, (prefix << dims) | c)), capacity)
      }
    }
    Plan(build(0, 0L).toIndexedSeq)
  }

  private def mergeSiblings(groups: Seq[Group], capacity: Double): Seq[Group] = {
    val out = ArrayBuffer.empty[Group]
    groups.foreach { g =>
      if (out.nonEmpty && out.last.files == 1 && g.files == 1 && out.last.weight + g.weight <= capacity) {
        val last = out.remove(out.length - 1)
        out += Group(last.start, g.end, last.weight + g.weight, 1)
      } else out += g
    }
    out.toSeq
  }

  private def lowerBound(keys: Array[Long], v: Long): Int = {
    var lo = 0
    var hi = keys.length
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (keys(mid) < v) lo = mid + 1 else hi = mid
    }
    lo
  }
}
