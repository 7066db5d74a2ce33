package io.silt.config

import io.silt.errors.UnsupportedSparkVersionException
import org.scalatest.funsuite.AnyFunSuite

class SiltVersionSpec extends AnyFunSuite {
  test("the jar knows the Spark release it was built for") {
    assert(SiltVersion.SparkBuiltFor.matches("""4\.\d+\.\d+"""))
  }

  test("any patch release of the built-for minor runs; another minor is refused by name") {
    val minor = SiltVersion.minorOf(SiltVersion.SparkBuiltFor)
    SiltVersion.checkRunningSpark(s"$minor.0")
    SiltVersion.checkRunningSpark(s"$minor.9")
    val e = intercept[UnsupportedSparkVersionException](SiltVersion.checkRunningSpark("3.5.3"))
    assert(e.getMessage.contains("3.5.3") && e.getMessage.contains(SiltVersion.SparkBuiltFor) &&
      e.getMessage.contains("silt-spark_3.5_2.13"))
  }
}
