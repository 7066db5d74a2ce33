"""PySpark's conversion of engine errors, taught Silt's: a Silt error raised by any call (``spark.sql``,
``df.write``, a streaming query) arrives as the Silt exception of the same name, as delta-spark's
errors arrive as its own, so that ``except ConcurrentAppendException`` written for Delta Lake catches
it. Installed when ``silt`` is imported, for classic sessions and Spark Connect clients alike."""
from __future__ import annotations

from typing import Any, Callable, Optional

from silt.errors import SiltException, translate

_ENGINE_PACKAGE = "io.silt.errors."
_installed = False


def _from_java(error: Any) -> Optional[SiltException]:
    """The Silt exception for a JVM exception whose cause chain holds a Silt error, else None."""
    node, depth = error, 0
    while node is not None and depth < 20:
        if str(node.getClass().getName()).startswith(_ENGINE_PACKAGE):
            return translate(Exception(str(node.getMessage())))
        node, depth = node.getCause(), depth + 1
    return None


def _classic(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def convert(error: Any) -> Any:
        return _from_java(error) or original(error)
    return convert


def _connect(original: Callable[..., Any]) -> Callable[..., Any]:
    def convert(info: Any, truncated_message: str, *args: Any, **kwargs: Any) -> Any:
        import json
        classes = json.loads(info.metadata.get("classes") or "[]")
        if any(str(c).startswith(_ENGINE_PACKAGE) for c in classes):
            error = translate(Exception(truncated_message))
            if error is not None:
                return error
        return original(info, truncated_message, *args, **kwargs)
    return convert


def install() -> None:
    """Wraps PySpark's converters once (each only where that part of PySpark is installed)."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from pyspark.errors.exceptions import captured
        captured.convert_exception = _classic(captured.convert_exception)  # type: ignore[assignment]
    except ImportError:  # pyspark-client: no classic sessions
        pass
    try:
        from pyspark.sql.connect.client import core
        core.convert_exception = _connect(core.convert_exception)  # type: ignore[assignment]
    except ImportError:  # no Spark Connect client (grpc) installed
        pass
    except SystemExit:
        # pyspark-client alone, under `python -c`: PySpark takes that for a doctest run, looks for a
        # Spark home and exits. `import silt` must not end the program; a script or a shell is unaffected.
        pass
