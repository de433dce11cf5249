"""Shared reading and validation of data files (CSV and TOML).

Every table row carries a ``source`` field: the rule that prints the value
(``rule 22.36``, ``rule 10.12 example``) or ``reconstructed`` (optionally with a
reason after a colon or dash, e.g. ``reconstructed: calibrated CRT``).

Problems raise :class:`malta_sim.errors.DataError` naming the file, the 1-based
line (the header is line 1) and the field; :class:`Collector` gathers many
problems for ``malta-sim data check``.

Every data file is read as UTF-8 text, with or without a byte-order mark, with
any line ending (``\n``, ``\r\n`` as a spreadsheet saves it, or ``\r``):
:func:`read_text`.  A file in another encoding (UTF-16, Latin-1 ...) is refused
in one line naming the file and the byte offset of the first byte that is not
UTF-8.  Inside :func:`one_read_per_file` (a whole :func:`malta_sim.loaders.load_iod`
or ``check_iod``) each file is read from disk once: parsing, hashing and
counting its rows share the bytes.

Example
-------
>>> spec = {"hex": Col(str, pattern=r"\\d{4}"), "mp": Col(int, min=0, max=12)}
>>> rows = read_csv(path, spec)               # doctest: +SKIP
>>> rows[0].hex, rows[0].mp, rows[0].line    # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import contextvars
import csv
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import DataError, DataErrors

SOURCE_RE = re.compile(r"^(rule \d+\.\d+[\w .,()/-]*|reconstructed([:;\- ].*)?)$")

_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}


def packaged_data_dir(game: str = "island_of_death") -> Path:
    """Folder of the packaged data of ``game`` (``island_of_death`` or ``invasion_malta``)."""
    return Path(str(resources.files("malta_sim") / "data" / game))


def resolve_data_dir(data_dir: str | Path | None, game: str = "island_of_death") -> Path:
    """``data_dir`` as a Path, or the packaged folder when ``None``.

    Raises
    ------
    DataError
        If the folder does not exist.
    """
    p = packaged_data_dir(game) if data_dir is None else Path(data_dir)
    if not p.is_dir():
        raise DataError(str(p), None, None, "data directory does not exist")
    return p


def did_you_mean(name: str, choices, n: int = 3, quote: bool = False) -> str:
    """``"; did you mean a, b?"`` with the closest of ``choices`` to ``name`` (empty when none is close).

    For "unknown X" messages whose valid choices are too many to list (unit
    ids), so the message still names the valid ones a user most likely meant.
    ``quote``: each choice in quotes (``'a', 'b'``), for names with spaces or
    commas of their own (sweep arms).
    """
    import difflib

    near = difflib.get_close_matches(str(name), list(dict.fromkeys(str(c) for c in choices)), n=n, cutoff=0.5)
    return f"; did you mean {', '.join(repr(c) if quote else c for c in near)}?" if near else ""


_UTF8_BOM = b"\xef\xbb\xbf"

#: absolute path -> bytes of the files read inside :func:`one_read_per_file`
_READ_ONCE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("_READ_ONCE", default=None)


@contextlib.contextmanager
def one_read_per_file():
    """Inside the block each data file is read from disk once: parsing it,
    hashing it (:func:`hash_files`, :func:`hash_dir`) and counting its
    reconstructed rows use the same bytes.  Nested blocks share the outer
    one's bytes; leaving the outermost block forgets them (a later load reads
    the files afresh and sees their changes).
    """
    if _READ_ONCE.get() is not None:
        yield
        return
    token = _READ_ONCE.set({})
    try:
        yield
    finally:
        _READ_ONCE.reset(token)


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a data file, read once per :func:`one_read_per_file` block.

    Raises
    ------
    FileNotFoundError
        The file is missing (nothing is remembered for it).
    """
    cache = _READ_ONCE.get()
    if cache is None:
        return Path(path).read_bytes()
    key = os.path.abspath(path)
    raw = cache.get(key)
    if raw is None:
        raw = cache[key] = Path(path).read_bytes()
    return raw


def read_text(path: str | Path) -> str:
    """The text of a data file: UTF-8 with or without a byte-order mark, any line ending.

    Parameters
    ----------
    path : path

    Returns
    -------
    str
        The text without the byte-order mark, every line ending turned into
        ``"\n"``.

    Raises
    ------
    DataError
        The file is missing, or is not UTF-8 text; the message names the file,
        the encoding when its byte-order mark tells it (UTF-16, UTF-32), or the
        byte offset (0-based) and value of the first byte that is not UTF-8.
    """
    path = Path(path)
    try:
        raw = read_bytes(path)
    except FileNotFoundError:
        raise DataError(str(path), None, None, "file not found") from None
    for bom, name in ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                      (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16")):
        if raw.startswith(bom):
            raise DataError(str(path), None, None, f"the file is {name} text; save it as UTF-8 (with or without "
                            "byte-order mark)")
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM):]
        shift = len(_UTF8_BOM)
    else:
        shift = 0
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise DataError(str(path), line, None, f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at byte offset "
                        f"{exc.start + shift} cannot be read as UTF-8; save the file as UTF-8 (with or without "
                        "byte-order mark)") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class Col:
    """Specification of one column.

    Parameters
    ----------
    type : {str, int, float, bool}
        Python type the text is converted to.
    required : bool
        If False, the column may be absent or empty (``default`` is used).
    default : Any
        Value for an empty / absent optional field.
    min, max : number, optional
        Inclusive bounds for numbers.
    choices : iterable of str, optional
        Allowed values (for strings).
    pattern : str, optional
        Regular expression the whole string must match.
    check : callable, optional
        ``check(value) -> str | None``: an error message or None.
    """

    type: type = str
    required: bool = True
    default: Any = None
    min: float | None = None
    max: float | None = None
    choices: Iterable[str] | None = None
    pattern: str | None = None
    check: Callable[[Any], str | None] | None = None


def source_col() -> Col:
    """The mandatory ``source`` column: ``rule N.NN ...`` or ``reconstructed ...``."""
    return Col(str, check=check_source)


def check_source(value: str) -> str | None:
    if not SOURCE_RE.match(value.strip()):
        return f"source must be 'rule N.NN' or 'reconstructed', got {value!r}"
    return None


class Row(dict):
    """A parsed row: a dict with attribute access and ``.line`` (1-based) and ``.file``."""

    line: int = 0
    file: str = ""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def convert(value: str, col: Col, file: str, line: int | None, name: str) -> Any:
    """Convert and check one field; raise DataError on a bad value."""
    text = value.strip() if isinstance(value, str) else value
    if text is None or text == "":
        if col.required and col.type is not bool:
            raise DataError(file, line, name, "is empty; a value is required")
        return col.default
    try:
        if col.type is bool:
            low = str(text).lower()
            if low in _TRUE:
                v: Any = True
            elif low in _FALSE:
                v = False
            else:
                raise ValueError
        elif col.type is int:
            v = int(str(text))
        elif col.type is float:
            v = float(str(text))
        else:
            v = str(text)
    except ValueError:
        raise DataError(file, line, name, f"{text!r} is not a valid {col.type.__name__}") from None
    if col.min is not None and v < col.min:
        raise DataError(file, line, name, f"{v} is below the minimum {col.min}")
    if col.max is not None and v > col.max:
        raise DataError(file, line, name, f"{v} is above the maximum {col.max}")
    if col.choices is not None and v not in set(col.choices):
        raise DataError(file, line, name, f"{v!r} is not one of: {', '.join(sorted(col.choices))}")
    if col.pattern is not None and not re.fullmatch(col.pattern, str(v)):
        raise DataError(file, line, name, f"{v!r} does not match the expected form {col.pattern}")
    if col.check is not None:
        msg = col.check(v)
        if msg:
            raise DataError(file, line, name, msg)
    return v


def read_csv(
    path: str | Path,
    spec: dict[str, Col],
    *,
    unique: Sequence[str] | None = None,
    allow_extra: bool = True,
    collector: "Collector | None" = None,
) -> list[Row]:
    """Read a CSV file with a header row, converting and checking every field.

    Lines starting with ``#`` and blank lines are ignored (comments for designers).
    The file is read by :func:`read_text` (UTF-8 with or without BOM, any line
    ending).

    Parameters
    ----------
    path : path
        The CSV file.
    spec : dict of column name -> Col
        Expected columns.
    unique : sequence of str, optional
        Columns whose combined value must be unique (duplicate id check).
    allow_extra : bool
        Whether columns not in ``spec`` are allowed (kept as strings).
    collector : Collector, optional
        If given, row problems are added to it and the bad rows skipped instead
        of raising at the first problem.

    Returns
    -------
    list of Row

    Raises
    ------
    DataError
        Missing file or column, bad value, duplicate key (first problem), unless
        ``collector`` is given.
    """
    path = Path(path)
    fname = str(path)
    if not path.is_file():
        raise DataError(fname, None, None, "file not found")
    rows: list[Row] = []
    seen: dict[tuple, int] = {}
    lines = [(i + 1, ln) for i, ln in enumerate(read_text(path).split("\n"))]
    content = [(n, ln) for n, ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not content:
        raise DataError(fname, None, None, "file is empty (a header row is required)")
    header_line, header = content[0]
    reader = csv.reader([header])
    cols = [c.strip() for c in next(reader)]
    missing = [c for c, s in spec.items() if s.required and c not in cols]
    if missing:
        raise DataError(fname, header_line, missing[0], f"missing column (header has: {', '.join(cols)})")
    if not allow_extra:
        extra = [c for c in cols if c not in spec]
        if extra:
            raise DataError(fname, header_line, extra[0], "unexpected column")
    dup_cols = {c for c in cols if cols.count(c) > 1}
    if dup_cols:
        raise DataError(fname, header_line, sorted(dup_cols)[0], "column appears twice in the header")
    for n, ln in content[1:]:
        values = next(csv.reader([ln]))
        try:
            if len(values) != len(cols):
                raise DataError(fname, n, None, f"has {len(values)} fields, the header has {len(cols)}")
            raw = dict(zip(cols, values))
            row = Row()
            for c, s in spec.items():
                row[c] = convert(raw.get(c, ""), s, fname, n, c)
            for c in cols:
                if c not in spec:
                    row[c] = raw[c].strip()
            row.line = n
            row.file = fname
            if unique:
                key = tuple(row[c] for c in unique)
                if key in seen:
                    raise DataError(
                        fname, n, unique[0], f"duplicate {'/'.join(unique)} {key if len(key) > 1 else key[0]!r} "
                        f"(first on line {seen[key]})"
                    )
                seen[key] = n
        except DataError as e:
            if collector is None:
                raise
            collector.add(e)
            continue
        rows.append(row)
    return rows


def read_toml(path: str | Path) -> dict:
    """Read a TOML file (as :func:`read_text`: UTF-8 with or without BOM, any line
    ending); syntax errors become a DataError with the line.

    Raises
    ------
    DataError
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(str(path), None, None, "file not found")
    text = read_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise DataError(str(path), int(m.group(1)) if m else None, None, f"TOML syntax error: {e}") from None


def toml_line(path: str | Path, needle: str) -> int | None:
    """1-based line of the first occurrence of ``needle`` in a text file (for error messages)."""
    try:
        for i, ln in enumerate(read_text(path).split("\n")):
            if needle in ln:
                return i + 1
    except (OSError, DataError):
        return None
    return None


@dataclass
class Collector:
    """Collects :class:`DataError` instead of stopping at the first one."""

    errors: list[DataError] = field(default_factory=list)

    def add(self, err: DataError) -> None:
        self.errors.append(err)

    def run(self, fn: Callable[[], Any]) -> Any:
        """Call ``fn``; record a DataError (or DataErrors) it raises; return its value or None."""
        try:
            return fn()
        except DataErrors as es:
            self.errors.extend(es.errors)
        except DataError as e:
            self.errors.append(e)
        return None

    def raise_if_any(self) -> None:
        if self.errors:
            raise DataErrors(self.errors)


def hash_files(paths: Iterable[str | Path]) -> str:
    """sha256 over the names and bytes of data files (sorted), hex digest (first 16 chars)."""
    h = hashlib.sha256()
    for p in sorted(Path(x) for x in paths):
        h.update(p.name.encode())
        h.update(b"\0")
        h.update(read_bytes(p))
    return h.hexdigest()[:16]


def hash_dir(folder: str | Path) -> str:
    """:func:`hash_files` over every ``.csv``/``.toml`` file under ``folder``."""
    folder = Path(folder)
    files = [p for p in folder.rglob("*") if p.suffix in (".csv", ".toml") and p.is_file()]
    h = hashlib.sha256()
    for p in sorted(files):
        h.update(str(p.relative_to(folder)).encode())
        h.update(b"\0")
        h.update(read_bytes(p))
    return h.hexdigest()[:16]
