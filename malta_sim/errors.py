"""Error types.  Every error a user can cause is a :class:`MaltaSimError`; the
command line prints it as one line and exits with status 2 (no traceback)."""

from __future__ import annotations


class MaltaSimError(Exception):
    """Base class of errors caused by bad input (data files, options, arguments)."""


class OptionError(MaltaSimError, ValueError):
    """A bad argument or option; the message names the option and what was expected."""


class NoEffectWarning(UserWarning):
    """A bot preset or parameter that the game's optional rules leave without
    effect (e.g. the ``solitaire`` preset without ``--option solitaire``): the
    games are played, but the choice changes nothing.  The batch runner says
    it once per run, before the first game."""


class DataError(MaltaSimError, ValueError):
    """A problem in a data file, naming the file, the line and the field.

    Parameters
    ----------
    file : str
        Path (or packaged name) of the data file.
    line : int or None
        1-based line number in the file (the header is line 1), if known.
    field : str or None
        Column / key name, if the problem is in one field.
    message : str
        What is wrong and what was expected.
    """

    def __init__(self, file: str, line: int | None, field: str | None, message: str):
        self.file = str(file)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(self.format())

    def __reduce__(self):  # picklable across worker processes
        return (type(self), (self.file, self.line, self.field, self.message))

    def format(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": field '{self.field}'"
        return f"{where}: {self.message}"


class DataErrors(MaltaSimError):
    """Several :class:`DataError` found in one validation pass."""

    def __init__(self, errors: list[DataError]):
        self.errors = list(errors)
        super().__init__("\n".join(e.format() for e in self.errors))

    def __reduce__(self):
        return (type(self), (self.errors,))
