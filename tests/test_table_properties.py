"""Every table property Delta Lake declares is in one class: honoured (declared once in features.TableProperties,
with its default, values and meaning), no effect, or not implemented (delta-table-properties.tsv: accepted at
Delta Lake's default, refused otherwise, and a table another engine gave another value refused by the statements
that value changes). A `delta.*` property Delta Lake does not have is refused as a misspelling."""
import json
import os

import pytest

from conftest import CANON_PY, python_env
from silt.errors import InvalidTableOperationException, UnsupportedOptionException, translate
from test_writes import commits, raises_silt


def registry(spark):
    return spark._jvm.io.silt.features.TableProperties


def declared(spark):
    """{key: (treatment, Delta's default or None)} of the properties Silt does not implement."""
    keys = registry(spark).declared()
    out = {}
    for i in range(keys.size()):
        k = keys.apply(i)
        out[k.key()] = (k.treatment().name(), k.deltaDefault().get() if k.deltaDefault().isDefined() else None)
    return out


def honoured(spark):
    props = registry(spark).all()
    return {props.apply(i).key(): props.apply(i).defaultText() for i in range(props.size())}


PROTOCOL_KEYS = {"delta.minReaderVersion", "delta.minWriterVersion"}


@pytest.mark.reference
@pytest.mark.full  # second tier: the reference's registry, read in a JVM of its own
def test_the_registry_classes_every_property_the_reference_declares(spark):
    from reference_delta import DELTA_PACKAGE, call
    if DELTA_PACKAGE is None:
        pytest.skip("no reference Delta Lake release is built for this Spark minor")
    [res] = call([{"op": "table_properties"}], CANON_PY, 600, env=python_env())
    assert res["ok"], res.get("error")
    reference = res["properties"]
    ours, theirs = declared(spark), honoured(spark)
    assert not set(ours) & set(theirs)
    # every property the reference declares is classed; and, Delta Lake 4.4's, no class names one it lacks
    # (Delta Lake 3.3, Spark 3.5's reference, declares fewer)
    assert set(reference) <= set(ours) | set(theirs) | PROTOCOL_KEYS
    if not spark.version.startswith("3."):
        assert set(reference) == set(ours) | set(theirs) | PROTOCOL_KEYS
    for key, (treatment, default) in ((k, v) for k, v in ours.items() if k in reference):
        expected = reference[key]["default"]
        # a flag Delta Lake leaves unset is off: Silt accepts `false` for it (a table that turned UniForm off says so)
        assert default == expected or (expected is None and default in (None, "false")), key
    for key, default in ((k, v) for k, v in theirs.items() if k in reference):
        expected = reference[key]["default"]
        # a flag Delta Lake leaves unset (the icebergCompat versions) is off: `false` says so; an empty list is none
        assert default == expected or (expected is None and default in ("(unset)", "false")) or \
            (expected == "" and default == "(unset)"), key


def test_a_property_silt_does_not_implement_is_accepted_at_delta_lakes_default_only(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (id INT) USING delta TBLPROPERTIES "
              "('delta.randomizeFilePrefixes' = 'false', 'delta.checkpointRetentionDuration' = '2 days', "
              "'delta.sampleRetentionDuration' = 'interval 3 days')")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES (1)")
    before = commits(path)
    message = raises_silt(UnsupportedOptionException, lambda: spark.sql(
        f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.randomizeFilePrefixes' = 'true')"))
    assert "delta.randomizeFilePrefixes = 'true'" in message and "Delta Lake's default ('false')" in message
    message = raises_silt(UnsupportedOptionException, lambda: spark.range(1).write.format("delta").mode("append")
                          .option("delta.enableIcebergCompatV3", "true").save(str(tmp_path / "u")))
    assert "delta.enableIcebergCompatV3" in message
    assert commits(path) == before
    assert spark.read.format("delta").load(path).count() == 1


def test_a_misspelt_table_property_is_refused_naming_the_closest(spark, tmp_path):
    path = str(tmp_path / "t")
    with pytest.raises(Exception) as info:
        spark.sql(f"CREATE TABLE delta.`{path}` (id INT) USING delta TBLPROPERTIES ('delta.enableDeletionVector' = 'true')")
    error = translate(info.value)
    assert isinstance(error, UnsupportedOptionException) and error.getCondition() == "DELTA_UNKNOWN_CONFIGURATION"
    assert "the closest is delta.enableDeletionVectors" in str(error)
    assert not os.path.exists(os.path.join(path, "_delta_log"))


def test_a_table_another_engine_gave_an_unimplemented_property_is_refused_where_it_matters(spark, tmp_path):
    """A table whose log says `delta.randomizeFilePrefixes = true` (as an engine implementing it writes): reads
    work, writes are refused naming it (Silt would not randomize), and UNSET lets Silt write again."""
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (id INT) USING delta")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES (1), (2)")
    log = os.path.join(path, "_delta_log")
    first = [json.loads(l) for l in open(os.path.join(log, "00000000000000000000.json"))]
    metadata = next(a for a in first if "metaData" in a)
    metadata["metaData"]["configuration"]["delta.randomizeFilePrefixes"] = "true"
    with open(os.path.join(log, "00000000000000000002.json"), "w") as f:
        f.write(json.dumps({"commitInfo": {"timestamp": 1, "operation": "SET TBLPROPERTIES"}}) + "\n")
        f.write(json.dumps(metadata) + "\n")
    assert sorted(r.id for r in spark.read.format("delta").load(path).collect()) == [1, 2]
    for statement in (f"INSERT INTO delta.`{path}` VALUES (3)", f"DELETE FROM delta.`{path}` WHERE id = 1",
                      f"OPTIMIZE delta.`{path}`"):
        message = raises_silt(UnsupportedOptionException, lambda: spark.sql(statement).collect())
        assert "delta.randomizeFilePrefixes = 'true'" in message and "UNSET TBLPROPERTIES" in message
    assert len(commits(path)) == 3
    spark.sql(f"ALTER TABLE delta.`{path}` UNSET TBLPROPERTIES ('delta.randomizeFilePrefixes')")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES (3)")
    assert sorted(r.id for r in spark.read.format("delta").load(path).collect()) == [1, 2, 3]


def test_a_bad_value_of_an_honoured_property_names_it_and_what_it_must_be(spark, tmp_path):
    path = str(tmp_path / "t")
    message = raises_silt(InvalidTableOperationException, lambda: spark.sql(
        f"CREATE TABLE delta.`{path}` (id INT) USING delta TBLPROPERTIES ('delta.checkpointInterval' = '0')"))
    assert "delta.checkpointInterval must be a positive integer, not '0'" in message
    message = raises_silt(InvalidTableOperationException, lambda: spark.sql(
        f"CREATE TABLE delta.`{path}` (id INT) USING delta TBLPROPERTIES ('delta.logRetentionDuration' = 'soon')"))
    assert "delta.logRetentionDuration must be a duration such as 'interval 30 days', not 'soon'" in message


# An application writes version 5 twice (the second skipped), then again once its table's retention of
# application versions is 0 seconds (expired: it runs), then once more with 30 days: the rows after each.
EXPIRY = """
def write():
    spark.range(1).write.format("delta").mode("append").option("txnAppId", "app").option("txnVersion", "5").save(path)
counts = []
for retention in (None, None, "0 seconds", "30 days"):
    if retention:
        spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.setTransactionRetentionDuration' = '{retention}')")
    write()
    counts.append(spark.read.format("delta").load(path).count())
result = counts
"""


def test_an_idempotent_writes_version_expires_after_the_tables_retention(spark, tmp_path):
    """delta.setTransactionRetentionDuration: an application's recorded version older than it no longer skips
    a write of that version."""
    scope = {"spark": spark, "path": str(tmp_path / "t")}
    exec(EXPIRY, scope)
    assert scope["result"] == [1, 1, 2, 2]


@pytest.mark.full  # second tier: the reference's process
@pytest.mark.reference
def test_the_reference_expires_the_same_versions(tmp_path):
    from test_interop import run_reference
    [res] = run_reference([{"op": "api", "code": f"path = {str(tmp_path / 't')!r}\n" + EXPIRY}])
    assert res["ok"], res.get("error")
    assert res["result"] == repr([1, 1, 2, 2])
