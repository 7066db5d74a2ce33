"""delta-spark's checks of its Python API's arguments, with its exception types and messages, so that
code which catches them (or tests that a wrong call fails) runs the same on Silt."""
from __future__ import annotations

from typing import Any, Iterable, NoReturn


def verify_str(value: Any, name: str) -> None:
    if not isinstance(value, str) or value is None:
        raise ValueError("%s needs to be a string but got '%s'." % (name, type(value)))


def verify_int(value: Any, name: str) -> None:
    if not isinstance(value, int) or value is None:
        raise ValueError("%s needs to be an int but got '%s'." % (name, type(value)))


def verify_bool(value: Any, name: str) -> None:
    if not isinstance(value, bool) or value is None:
        raise ValueError("%s needs to be a boolean but got '%s'." % (name, type(value)))


def verify_dict(value: Any, name: str) -> None:
    if not isinstance(value, dict):
        raise ValueError("%s needs to be a dict but got '%s'." % (name, type(value)))


def verify_clone(target: Any, isShallow: Any, replace: Any, properties: Any,
                 timestamp: Any = "", version: int = 0) -> None:
    """The arguments of clone, cloneAtVersion and cloneAtTimestamp."""
    verify_str(timestamp, "timestamp")
    verify_int(version, "version")
    verify_str(target, "target")
    verify_bool(isShallow, "isShallow")
    verify_bool(replace, "replace")
    if properties is not None:
        verify_dict(properties, "properties")
        for k, v in properties.items():
            verify_str(k, "All property keys including %s" % k)
            verify_str(v, "All property values including %s" % v)


def type_error(msg: str, objs: Iterable[Any]) -> NoReturn:
    """The builders' TypeError: the message, then each offending value with its type."""
    for obj in objs:
        msg += " Found %s with type %s" % (str(obj), str(type(obj)))
    raise TypeError(msg)


def verify_columns(cols: Iterable[Any], what: str) -> None:
    for c in cols:
        if type(c) is not str:
            type_error(f"{what} column must be str.", [c])
