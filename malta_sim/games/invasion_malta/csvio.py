"""Small CSV reader for the Invasion: Malta data files.

Every row is read as a dict of strings; conversions go through :func:`get_int`,
:func:`get_bool` ... which raise :class:`malta_sim.errors.DataError` naming the
file, the 1-based line (header = line 1) and the field.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ...errors import DataError

#: Packaged data folder of the game.
DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "invasion_malta"


def data_path(name: str, data_dir: str | Path | None = None) -> Path:
    """Path of data file ``name`` in ``data_dir`` (default: the packaged folder).

    Raises
    ------
    DataError
        If the file does not exist.
    """
    base = Path(data_dir) if data_dir is not None else DATA_DIR
    p = base / name
    if not p.is_file():
        raise DataError(str(p), None, None, "file not found")
    return p


def read_rows(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict]]:
    """Rows of a CSV file as ``(line, row)``; ``line`` is 1-based (header = 1).

    Lines starting with ``#`` and blank lines are skipped.

    Raises
    ------
    DataError
        If a required column is missing or a row has the wrong number of fields.
    """
    from ...loaders.common import read_text  # UTF-8 with or without BOM, any line ending; else one DataError

    lines = [(i + 1, ln) for i, ln in enumerate(read_text(path).split("\n"))]
    body = [(n, ln) for n, ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not body:
        raise DataError(str(path), None, None, "empty file (no header)")
    hdr_line, hdr = body[0]
    header = next(csv.reader([hdr]))
    for col in required:
        if col not in header:
            raise DataError(str(path), hdr_line, col, f"missing column; expected {', '.join(required)}")
    out = []
    for n, ln in body[1:]:
        vals = next(csv.reader([ln]))
        if len(vals) != len(header):
            raise DataError(str(path), n, None, f"{len(vals)} fields, header has {len(header)}")
        out.append((n, dict(zip(header, (v.strip() for v in vals)))))
    return out


def get_int(path, line, row, field, lo=None, hi=None, default=None) -> int:
    """Integer field with optional inclusive bounds (empty -> ``default`` if given)."""
    v = row.get(field, "")
    if v == "" and default is not None:
        return default
    try:
        x = int(v)
    except ValueError:
        raise DataError(str(path), line, field, f"expected an integer, got {v!r}") from None
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise DataError(str(path), line, field, f"{x} is outside {lo}..{hi}")
    return x


def get_float(path, line, row, field, lo=None) -> float:
    """Float field (must be >= ``lo`` when given)."""
    v = row.get(field, "")
    try:
        x = float(v)
    except ValueError:
        raise DataError(str(path), line, field, f"expected a number, got {v!r}") from None
    if lo is not None and x < lo:
        raise DataError(str(path), line, field, f"{x} is below {lo}")
    return x


def get_bool(path, line, row, field) -> bool:
    """Boolean field written ``0``/``1`` (empty = 0)."""
    v = row.get(field, "")
    if v in ("", "0"):
        return False
    if v == "1":
        return True
    raise DataError(str(path), line, field, f"expected 0 or 1, got {v!r}")


def get_choice(path, line, row, field, choices) -> str:
    """Field that must be one of ``choices``."""
    v = row.get(field, "")
    if v not in choices:
        raise DataError(str(path), line, field, f"{v!r} is not one of {', '.join(map(str, choices))}")
    return v


def get_source(path, line, row) -> str:
    """The mandatory ``source`` field: ``rule X.Y...`` or ``reconstructed...``."""
    v = row.get("source", "")
    if not (v.startswith("rule ") or v.startswith("reconstructed")):
        raise DataError(str(path), line, "source", f"must start with 'rule ' or 'reconstructed', got {v!r}")
    return v
