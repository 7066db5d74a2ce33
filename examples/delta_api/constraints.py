"""Delta Lake's constraints from SQL: NOT NULL columns (and dropping one), CHECK constraints added,
checked against the rows already there, listed among the table's properties and dropped. A write
that breaks one is refused and writes nothing. Changes for Silt are marked `silt:`."""
from pyspark.sql import SparkSession

import silt  # silt: the session gets Silt's jar, extension and catalog

spark = silt.configure(SparkSession.builder.appName("constraints")).getOrCreate()  # silt: instead of Delta's settings
spark.sql("DROP TABLE IF EXISTS default.people10m")


def refused(statement):
    """Whether the statement fails; the table must then be as it was."""
    before = spark.table("default.people10m").count()
    try:
        spark.sql(statement)
    except Exception:
        assert spark.table("default.people10m").count() == before
        return True
    return False


# NOT NULL
spark.sql("""CREATE TABLE default.people10m (
               id INT NOT NULL, firstName STRING, middleName STRING NOT NULL, lastName STRING,
               gender STRING, birthDate TIMESTAMP, ssn STRING, salary INT) USING DELTA""")
spark.sql("INSERT INTO default.people10m VALUES (1, 'Ann', 'B', 'Lee', 'F', TIMESTAMP'1980-01-01', '1', 100)")
assert refused("INSERT INTO default.people10m VALUES (2, 'Bob', NULL, 'Ray', 'M', TIMESTAMP'1981-01-01', '2', 200)")
spark.sql("ALTER TABLE default.people10m CHANGE COLUMN middleName DROP NOT NULL")
spark.sql("INSERT INTO default.people10m VALUES (2, 'Bob', NULL, 'Ray', 'M', TIMESTAMP'1981-01-01', '2', 200)")
assert refused("INSERT INTO default.people10m VALUES (NULL, 'Cy', 'C', 'Doe', 'M', TIMESTAMP'1982-01-01', '3', 300)")

# CHECK: added after the rows already there pass it; a row breaking it is refused
spark.sql("ALTER TABLE default.people10m ADD CONSTRAINT dateWithinRange CHECK (birthDate > '1900-01-01')")
assert refused("INSERT INTO default.people10m VALUES (3, 'Cy', 'C', 'Doe', 'M', TIMESTAMP'1850-01-01', '3', 300)")
assert refused("UPDATE default.people10m SET birthDate = TIMESTAMP'1850-01-01' WHERE id = 1")
# a constraint the rows there already break is not added
assert refused("ALTER TABLE default.people10m ADD CONSTRAINT richOnly CHECK (salary > 150)")
spark.sql("ALTER TABLE default.people10m DROP CONSTRAINT dateWithinRange")
spark.sql("INSERT INTO default.people10m VALUES (3, 'Cy', 'C', 'Doe', 'M', TIMESTAMP'1850-01-01', '3', 300)")

# CHECK constraints are table properties in DESCRIBE DETAIL and SHOW TBLPROPERTIES
spark.sql("ALTER TABLE default.people10m ADD CONSTRAINT validIds CHECK (id > 0 and id < 99999999)")
detail = spark.sql("DESCRIBE DETAIL default.people10m").first()
assert detail.properties["delta.constraints.validids"] == "id > 0 and id < 99999999", detail.properties
properties = {r.key: r.value for r in spark.sql("SHOW TBLPROPERTIES default.people10m").collect()}
assert properties["delta.constraints.validids"] == "id > 0 and id < 99999999"
assert "delta.constraints.datewithinrange" not in properties
assert refused("INSERT INTO default.people10m VALUES (0, 'Dee', 'D', 'Fox', 'F', TIMESTAMP'1990-01-01', '4', 400)")
assert spark.table("default.people10m").count() == 3
spark.sql("DROP TABLE default.people10m")
