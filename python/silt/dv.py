"""Deletion vectors for Python-side tools: decode any descriptor to a ``pyroaring.BitMap64``.

    >>> bitmap = silt.dv.load(row.deletionVector.asDict(), table_path)   # rows deleted from a file

Silt's engine applies deletion vectors itself; this module lets Python tools and tests look at
them (``SiltTable.deletion_vectors()`` lists them) and cross-check the engine. It reads only the
DV bytes the descriptor points at: the list of files comes from the engine.
"""
from __future__ import annotations

import struct
import uuid
import zlib
from pathlib import Path
from typing import Any, Mapping, Union
from urllib.parse import unquote, urlparse

from pyroaring import BitMap64

from silt.errors import CorruptDeletionVectorException

MAGIC = 1681511377
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_DECODE = {c: i for i, c in enumerate(_ALPHABET)}


def z85_decode(text: str) -> bytes:
    """Z85 to bytes; a last group starting with k '#' holds 4 - k bytes (padded encoders)."""
    if len(text) % 5:
        raise ValueError(f"Z85 text length {len(text)} is not a multiple of 5")
    out = bytearray()
    for start in range(0, len(text), 5):
        group = text[start:start + 5]
        missing = len(group[:3]) - len(group[:3].lstrip("#")) if start + 5 == len(text) else 0
        value = 0
        for ch in group[missing:]:
            if ch not in _DECODE:
                raise ValueError(f"{ch!r} is not a Z85 character")
            value = value * 85 + _DECODE[ch]
        nbytes = 4 - missing
        if value >= 1 << (8 * nbytes):
            raise ValueError(f"Z85 group at {start} overflows {nbytes} bytes")
        out += value.to_bytes(nbytes, "big")
    return bytes(out)


def decode_bitmap(data: bytes) -> BitMap64:
    """The rows of a serialized RoaringBitmapArray (magic, then the portable 64-bit layout)."""
    if len(data) < 12:
        raise ValueError(f"a deletion vector bitmap has at least 12 bytes, not {len(data)}")
    (magic,) = struct.unpack_from("<i", data, 0)
    if magic != MAGIC:
        raise ValueError(f"wrong bitmap magic number {magic}; expected {MAGIC}")
    return BitMap64.deserialize(data[4:])


def file_path(descriptor: Mapping[str, Any], table_path: Union[str, Path]) -> str:
    """The DV file a `u` or `p` descriptor points at."""
    kind, where = descriptor["storageType"], descriptor["pathOrInlineDv"]
    if kind == "u":
        prefix, encoded = where[:-20], where[-20:]
        name = f"deletion_vector_{uuid.UUID(bytes=z85_decode(encoded))}.bin"
        return str(Path(_local(str(table_path))) / prefix / name) if prefix else str(Path(_local(str(table_path))) / name)
    if kind == "p":
        return _local(where)
    raise ValueError(f"deletion vector storage type {kind!r} has no file")


def load(descriptor: Mapping[str, Any], table_path: Union[str, Path], data_file: str = "?") -> BitMap64:
    """The deleted rows a descriptor stands for, with size, checksum and cardinality checked: ``load(d, path)``."""
    def fail(detail: str) -> CorruptDeletionVectorException:
        return CorruptDeletionVectorException(
            f"deletion vector {descriptor['storageType']}:{descriptor['pathOrInlineDv']} of data file {data_file}: {detail}")

    size = int(descriptor["sizeInBytes"])
    try:
        if descriptor["storageType"] == "i":
            data = z85_decode(descriptor["pathOrInlineDv"])[:size]
        else:
            path = file_path(descriptor, table_path)
            offset = descriptor.get("offset") or 1
            with open(path, "rb") as f:
                if f.read(1) != b"\x01":
                    raise fail(f"{path} is not a version 1 deletion vector file")
                f.seek(offset)
                header = f.read(4)
                if len(header) < 4:
                    raise fail(f"offset {offset} is past the end of {path}")
                (stored,) = struct.unpack(">i", header)
                if stored != size:
                    raise fail(f"{path} holds {stored} bytes at offset {offset} but the descriptor says {size}")
                data = f.read(size)
                (crc,) = struct.unpack(">I", f.read(4))
                if zlib.crc32(data) != crc:
                    raise fail(f"checksum mismatch in {path} at offset {offset}")
        bitmap = decode_bitmap(data)
    except FileNotFoundError as e:
        raise fail(f"its file does not exist: {e.filename}") from e
    except (ValueError, struct.error) as e:
        raise fail(str(e)) from e
    if len(bitmap) != int(descriptor["cardinality"]):
        raise fail(f"the bitmap holds {len(bitmap)} rows but the descriptor says {descriptor['cardinality']}")
    return bitmap


def _local(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme in ("file", "") else uri
