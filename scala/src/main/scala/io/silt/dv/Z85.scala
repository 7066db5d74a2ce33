package io.silt.dv

/** Z85 (ZeroMQ base-85): 4 bytes become 5 printable characters, big-endian. */
object Z85 {
  private val Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
  private val Decode: Array[Int] = {
    val t = Array.fill(128)(-1)
    Alphabet.zipWithIndex.foreach { case (c, i) => t(c.toInt) = i }
    t
  }

  /** Encodes bytes whose length is a multiple of 4. */
  def encode(bytes: Array[Byte]): String = {
    require(bytes.length % 4 == 0, s"Z85 encodes multiples of 4 bytes, not ${bytes.length}")
    val sb = new StringBuilder(bytes.length / 4 * 5)
    var i = 0
    while (i < bytes.length) {
      var v = ((bytes(i) & 0xffL) << 24) | ((bytes(i + 1) & 0xffL) << 16) | ((bytes(i + 2) & 0xffL) << 8) | (bytes(i + 3) & 0xffL)
      val chunk = new Array[Char](5)
      var j = 4
      while (j >= 0) { chunk(j) = Alphabet.charAt((v % 85).toInt); v /= 85; j -= 1 }
      sb.appendAll(chunk)
      i += 4
    }
    sb.toString
  }

  /**
   * Decodes a string whose length is a multiple of 5; a character outside the alphabet is an
   * error. A last group that starts with k '#' characters (no full group can: 84 * 85^4 > 2^32)
   * is a tail of 4 - k bytes written by padding-aware encoders such as Rust's z85 crate.
   */
  def decode(s: String): Array[Byte] = {
    if (s.length % 5 != 0) throw new IllegalArgumentException(s"Z85 text length ${s.length} is not a multiple of 5")
    val out = new java.io.ByteArrayOutputStream(s.length / 5 * 4)
    var i = 0
    while (i < s.length) {
      val isLast = i + 5 == s.length
      val missing = if (isLast) s.substring(i, i + 3).takeWhile(_ == '#').length else 0
      var v = 0L
      var j = missing
      while (j < 5) {
        val c = s.charAt(i + j)
        val d = if (c < 128) Decode(c) else -1
        if (d < 0) throw new IllegalArgumentException(s"'$c' at position ${i + j} is not a Z85 character")
        v = v * 85 + d
        j += 1
      }
      val bytes = 4 - missing
      if (v >= (1L << (8 * bytes))) throw new IllegalArgumentException(s"Z85 group at position $i overflows $bytes bytes")
      (bytes - 1 to 0 by -1).foreach(b => out.write((v >>> (8 * b)).toInt & 0xff))
      i += 5
    }
    out.toByteArray
  }

  /** The 16 bytes of a UUID (most significant half first) as 20 characters. */
  def encodeUuid(uuid: java.util.UUID): String = {
    val bb = java.nio.ByteBuffer.allocate(16)
    bb.putLong(uuid.getMostSignificantBits).putLong(uuid.getLeastSignificantBits)
    encode(bb.array())
  }

  def decodeUuid(s: String): java.util.UUID = {
    val bb = java.nio.ByteBuffer.wrap(decode(s))
    new java.util.UUID(bb.getLong, bb.getLong)
  }
}
