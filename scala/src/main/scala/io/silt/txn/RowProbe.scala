package io.silt.txn

import io.silt.actions.AddFile

/**
 * A read's own test of rows: whether any live row of some files (a concurrent commit's new files)
 * is one the read depends on, by the same resolved condition it ran with. What lets a DML whose
 * condition file statistics cannot rule out (`id % 4 = 0`, `status = 'open'`) commit beside a
 * writer that added only other rows. Made by the layer that ran the read (`dml`), which can read files.
 */
trait RowProbe {
  /** The rows it looks for, in words ("where …"), for a conflict's message. */
  def rows: String

  /** The path of one of `files` holding a row the read depends on; None when none holds one. */
  def firstMatching(files: Seq[AddFile]): Option[String]
}
