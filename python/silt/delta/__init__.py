"""Delta Lake's Python API on Silt: code written for delta-spark runs on Silt by changing its imports.

    from delta import configure_spark_with_delta_pip   ->  from silt.delta import configure_spark_with_delta_pip
    from delta.tables import DeltaTable                 ->  from silt.delta.tables import DeltaTable
    from delta.exceptions import ConcurrentAppendException  ->  from silt.delta.exceptions import ...

Every method runs on :class:`silt.SiltTable` (one implementation), through SQL, so it works over
Spark Connect too.
"""
from __future__ import annotations

from typing import List, Optional, TypeVar

from silt.session import configure

B = TypeVar("B")


def configure_spark_with_delta_pip(spark_session_builder: B, extra_packages: Optional[List[str]] = None) -> B:
    """delta-spark's builder helper, with Silt's jar, extension and catalog instead of Delta Lake's.

    ``extra_packages`` are added to ``spark.jars.packages`` beside what the builder already has.
    """
    from silt.session import _add

    builder = configure(spark_session_builder)
    if extra_packages:
        _add(builder, "spark.jars.packages", list(extra_packages))
    return builder


__all__ = ["configure_spark_with_delta_pip"]
