package io.silt.spark

import org.antlr.v4.runtime.{CharStream, CodePointCharStream, IntStream}
import org.antlr.v4.runtime.misc.Interval

/**
 * The statement as the lexer matches it: upper-cased, while tokens keep their text as written. Silt's grammar
 * says `caseInsensitive`, which ANTLR 4.9 (the runtime Spark 3.5 ships) does not know; with this stream
 * its keywords match in any case on every runtime (and so do Spark 3.5's own lexer's).
 */
final class UpperCaseCharStream(wrapped: CodePointCharStream) extends CharStream {
  override def consume(): Unit = wrapped.consume()
  override def getSourceName: String = wrapped.getSourceName
  override def index(): Int = wrapped.index()
  override def mark(): Int = wrapped.mark()
  override def release(marker: Int): Unit = wrapped.release(marker)
  override def seek(where: Int): Unit = wrapped.seek(where)
  override def size(): Int = wrapped.size()
  override def getText(interval: Interval): String = wrapped.getText(interval)

  override def LA(i: Int): Int = {
    val c = wrapped.LA(i)
    if (c == 0 || c == IntStream.EOF) c else Character.toUpperCase(c)
  }
}
