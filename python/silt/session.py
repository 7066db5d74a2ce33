"""Adds Silt (and what a storage needs) to a SparkSession builder, beside the user's own settings."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, TypeVar

from silt.expressions import CONNECT_PLUGIN, CONNECT_PLUGIN_KEY, NO_CONNECT_PLUGIN

EXTENSION = "io.silt.SiltSparkSessionExtension"
CATALOG = "io.silt.catalog.SiltCatalog"
CATALOG_KEY = "spark.sql.catalog.spark_catalog"

# The AWS SDK v2 release each hadoop-aws release was built with (hadoop-project's aws-java-sdk-v2.version).
# Conditional create (If-None-Match), which S3 commits need, is in hadoop-aws 3.4.2 and later.
AWS_SDK_FOR_HADOOP = {"3.4.2": "2.29.52", "3.5.0": "2.35.4"}
# The SDK modules S3A uses, instead of the 686 MB bundle that hadoop-aws depends on.
AWS_SDK_MODULES = ["s3", "s3-transfer-manager", "sts"]
STORAGES = ("s3",)

B = TypeVar("B")


# The Spark minors a jar is bundled for (silt-spark_<minor>_<Scala>-<version>.jar each), and the Scala
# each minor's pyspark is built for where it is not 2.13.
SPARK_MINORS = ("3.5", "4.0", "4.1", "4.2", "4.3")
SCALA_OF_MINOR = {"3.5": "2.12"}


def jar_name(minor: str) -> str:
    """The name of the engine jar for Spark ``minor`` without its version: silt-spark_3.5_2.12."""
    return f"silt-spark_{minor}_{SCALA_OF_MINOR.get(minor, '2.13')}"


def spark_minor(version: Optional[str] = None) -> str:
    """"4.2" for pyspark 4.2.1: the installed pyspark's major.minor, or that of ``version``."""
    if version is None:
        import pyspark
        version = pyspark.__version__
    m = re.match(r"(\d+)\.(\d+)", version)
    if not m:
        raise ValueError(f"not a Spark version: {version!r}")
    return f"{m.group(1)}.{m.group(2)}"


def jar_path(spark_version: Optional[str] = None) -> Path:
    """The engine jar for the installed pyspark (or for Spark ``spark_version``), e.g. for ``spark-submit --jars``.

    Raises UnsupportedSparkVersionException for a Spark minor Silt has no jar for."""
    from silt.errors import UnsupportedSparkVersionException

    minor = spark_minor(spark_version)
    shown = spark_version or _pyspark_version()
    if minor not in SPARK_MINORS:
        raise UnsupportedSparkVersionException(
            f"Silt supports Spark {', '.join(SPARK_MINORS)}, not {shown}: install a supported pyspark "
            f"(pip install 'pyspark>={SPARK_MINORS[0]},<{_next_minor(SPARK_MINORS[-1])}')")
    jars = sorted((Path(__file__).parent / "jars").glob(f"{jar_name(minor)}-*.jar"))
    if not jars:
        raise UnsupportedSparkVersionException(
            f"the Silt engine jar for Spark {minor} ({jar_name(minor)}) is missing from the silt package "
            f"(running {shown}); build it with `make jars`")
    return jars[-1]


def _pyspark_version() -> str:
    import pyspark
    return f"pyspark {pyspark.__version__}"


def _next_minor(minor: str) -> str:
    major, m = minor.split(".")
    return f"{major}.{int(m) + 1}"


def configure(builder: B, storage: Optional[str] = None, catalog: bool = True) -> B:
    """Adds the Silt jar, SQL extension and catalog to a SparkSession builder.

    Lists the user already set (``spark.jars``, ``spark.jars.packages``, ``spark.jars.excludes``,
    ``spark.sql.extensions``, on the builder or in ``spark-defaults.conf``) are added to, never
    replaced. ``storage="s3"`` adds the Hadoop S3A connector and the AWS SDK modules it needs
    (fetched by Spark from Maven Central). ``catalog=False`` leaves ``spark_catalog`` alone (tables
    are then used by path: ``silt.`/path```).

    >>> spark = silt.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    """
    if storage is not None and storage not in STORAGES:
        raise ValueError(f"storage={storage!r} is not one Silt configures; it knows {', '.join(STORAGES)}")
    _add(builder, "spark.jars", [str(jar_path())])
    _add(builder, "spark.sql.extensions", [EXTENSION])
    # Read only by a Spark Connect server (Column expressions from Silt's Python API over Connect).
    if spark_minor() not in NO_CONNECT_PLUGIN:
        _add(builder, CONNECT_PLUGIN_KEY, [CONNECT_PLUGIN])
    if catalog:
        current = _current(builder, CATALOG_KEY)
        if current not in (None, CATALOG):
            raise ValueError(
                f"{CATALOG_KEY} is already {current}; Silt's catalog ({CATALOG}) is needed there for tables "
                "USING silt. Remove that setting, or call configure(builder, catalog=False) to keep it and use "
                "Silt tables by path")
        builder.config(CATALOG_KEY, CATALOG)  # type: ignore[attr-defined]
    if storage == "s3":
        hadoop = hadoop_version()
        sdk = AWS_SDK_FOR_HADOOP.get(hadoop or "")
        if sdk is None:
            raise ValueError(
                f"storage='s3' needs hadoop-aws 3.4.2 or later (conditional create); this pyspark has Hadoop "
                f"{hadoop or 'unknown (no jars: a Spark Connect client? configure the server)'}; "
                f"Silt knows the AWS SDK for Hadoop {', '.join(AWS_SDK_FOR_HADOOP)}")
        _add(builder, "spark.jars.packages", s3_packages(hadoop or "", sdk))
        _add(builder, "spark.jars.excludes", ["software.amazon.awssdk:bundle"])
    return builder


def s3_packages(hadoop: str, sdk: str) -> List[str]:
    """The Maven coordinates S3A needs with Hadoop `hadoop`: hadoop-aws and the SDK modules of release `sdk`."""
    return [f"org.apache.hadoop:hadoop-aws:{hadoop}"] + [f"software.amazon.awssdk:{m}:{sdk}" for m in AWS_SDK_MODULES]


def hadoop_version() -> Optional[str]:
    """The Hadoop release inside the installed pyspark (its hadoop-client-api jar), if it has jars."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    for jar in sorted(jars.glob("hadoop-client-api-*.jar")):
        m = re.match(r"hadoop-client-api-(\d+\.\d+\.\d+)\.jar$", jar.name)
        if m:
            return m.group(1)
    return None


def _current(builder: Any, key: str) -> Optional[str]:
    options: Dict[str, Any] = getattr(builder, "_options", {})
    if key in options:
        return str(options[key])
    return _spark_defaults().get(key)


def _add(builder: Any, key: str, values: List[str]) -> None:
    current = [v.strip() for v in (_current(builder, key) or "").split(",") if v.strip()]
    builder.config(key, ",".join(current + [v for v in values if v not in current]))


def _spark_defaults() -> Dict[str, str]:
    """spark-defaults.conf, which a value set on the builder would replace rather than add to."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if os.environ.get("SPARK_HOME") else None)
    path = Path(conf_dir, "spark-defaults.conf") if conf_dir else None
    if path is None or not path.is_file():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            parts = line.split(None, 1)
            if len(parts) == 2:
                out[parts[0]] = parts[1].strip()
    return out


def session_settings(spark: Any) -> Any:
    """The session's ``spark.silt.*`` and Delta Lake settings as a DataFrame (key, value, treatment, meaning).

    ``treatment`` says what Silt does with each: ``honoured``, ``no effect`` (it tunes Delta Lake's own
    implementation), ``not implemented`` (Silt behaves as Delta Lake's default and refuses a statement the
    value would change) or ``refused`` (not a Delta Lake setting). Through SQL, so it works over Spark Connect:
    ``SELECT * FROM silt_settings()``."""
    return spark.sql("SELECT * FROM silt_settings()")
