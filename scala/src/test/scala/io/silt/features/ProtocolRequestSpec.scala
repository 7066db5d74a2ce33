package io.silt.features

import io.silt.actions._

import io.silt.errors.{UnsupportedOptionException, UnsupportedTableFeatureException}
import org.scalatest.funsuite.AnyFunSuite

/** The protocol properties, upgraded as delta-spark 4.4 upgrades them (checked by running it). */
class ProtocolRequestSpec extends AnyFunSuite {
  private def upgrade(current: Protocol, props: (String, String)*): Protocol =
    TableFeatures.merge(Some(current), ProtocolRequest.parse("/t", props.toMap)._1.protocol)

  test("protocol properties are split from the others, feature names matched case-insensitively") {
    val (req, rest) = ProtocolRequest.parse("/t", Map("delta.minWriterVersion" -> "4", "DELTA.FEATURE.deletionvectors" ->
      "Supported", "delta.appendOnly" -> "true", "foo" -> "bar"))
    assert(req == ProtocolRequest(None, Some(4), Set("deletionVectors")))
    assert(rest == Map("delta.appendOnly" -> "true", "foo" -> "bar"))
  }

  test("a bad version, a status other than supported, or a feature Silt does not write is refused by name") {
    val v = intercept[UnsupportedOptionException](ProtocolRequest.parse("/t", Map("delta.minWriterVersion" -> "9")))
    assert(v.option == "delta.minWriterVersion" && v.getMessage.contains("'9'"))
    val s = intercept[UnsupportedOptionException](ProtocolRequest.parse("/t", Map("delta.feature.appendOnly" -> "off")))
    assert(s.getMessage.contains("'off'"))
    val f = intercept[UnsupportedTableFeatureException](ProtocolRequest.parse("/t", Map("delta.feature.icebergCompatV3" -> "supported")))
    assert(f.getMessage.contains("icebergCompatV3"))
  }

  test("versions only go up") {
    assert(upgrade(Protocol(1, 2), "delta.minWriterVersion" -> "3") == Protocol(1, 3))
    assert(upgrade(Protocol(1, 3), "delta.minWriterVersion" -> "2", "delta.minReaderVersion" -> "1") == Protocol(1, 3))
  }

  test("a feature a legacy version implies changes nothing; another moves to table features, keeping the implied ones") {
    assert(upgrade(Protocol(1, 3), "delta.feature.appendOnly" -> "enabled") == Protocol(1, 3))
    assert(upgrade(Protocol(1, 3), "delta.feature.deletionVectors" -> "supported") == Protocol(3, 7,
      Some(Set("deletionVectors")), Some(Set("deletionVectors", "appendOnly", "invariants", "checkConstraints"))))
    assert(upgrade(Protocol(1, 2), "delta.feature.clustering" -> "supported") ==
      Protocol(1, 7, None, Some(Set("clustering", "domainMetadata", "appendOnly", "invariants"))))
  }

  test("reader version 2's column mapping is named when moving to reader features") {
    val p = upgrade(Protocol(2, 5), "delta.feature.v2Checkpoint" -> "supported")
    assert(p.minReaderVersion == 3 && p.readerFeatures.contains(Set("columnMapping", "v2Checkpoint")))
    assert(p.writerFeatures.get.contains("columnMapping") && p.writerFeatures.get.contains("changeDataFeed"))
  }

  test("a feature the table has already changes nothing") {
    val p = Protocol(3, 7, Some(Set("deletionVectors")), Some(Set("deletionVectors")))
    assert(upgrade(p, "delta.feature.deletionVectors" -> "supported") eq p)
  }
}
