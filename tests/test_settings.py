"""Silt's spark.silt.* settings are typed: a bad value or an unknown key is refused by name, and nothing is committed."""
import pytest

import silt
from test_writes import commits, raises_silt


@pytest.fixture
def table(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.range(10).write.format("silt").save(path)
    return path


def test_a_bad_value_names_the_setting_and_what_it_accepts(spark, table, setting):
    setting("spark.silt.commit.maxAttempts", "many")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.range(5).write.format("silt").mode("append").save(table))
    assert "spark.silt.commit.maxAttempts" in msg and "'many'" in msg and "integer >= 1" in msg
    assert commits(table) == ["00000000000000000000.json"]


def test_a_value_out_of_range_is_refused(spark, table, setting):
    setting("spark.silt.optimize.maxDeletedRowsRatio", "1.5")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.sql(f"OPTIMIZE '{table}'").collect())
    assert "spark.silt.optimize.maxDeletedRowsRatio" in msg and "from 0 to 1" in msg


def test_a_misspelt_setting_is_refused_on_read(spark, table, setting):
    setting("spark.silt.stats.skiping.enabled", "false")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "unknown setting spark.silt.stats.skiping.enabled" in msg and "spark.silt.stats.skipping.enabled" in msg


def test_a_setting_in_another_case_is_refused_not_ignored(spark, table, setting):
    setting("spark.silt.Stats.Skipping.Enabled", "false")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "is spelt spark.silt.stats.skipping.enabled" in msg


def test_settings_parse_as_documented(spark, table, setting):
    setting("spark.silt.optimize.maxFileSize", "128m")
    setting("spark.silt.checkpoint.v2.format", "JSON")
    assert spark.read.format("silt").load(table).count() == 10
    spark.sql(f"OPTIMIZE '{table}'").collect()
