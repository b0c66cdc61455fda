"""Why a conversion is refused: :class:`ConversionError` names the construct that has no exact
counterpart in the target language, why, and where it stands in the input."""
from __future__ import annotations


class ConversionError(ValueError):
    """A construct of the input has no exact form in the target language.

    ``construct`` is its name as the user wrote or knows it (``skip_till_next_match``,
    ``alternation |``, ``PERMUTE``); ``target`` the language it has no form in; ``where``
    the place (a variable, a clause) when the construct alone does not say it."""

    def __init__(self, construct: str, target: str, why: str, where: str | None = None,
                 hint: str | None = None):
        self.construct, self.target, self.why, self.where, self.hint = construct, target, why, where, hint
        text = f"{construct} has no {target} form"
        if where:
            text += f" ({where})"
        text += f": {why}"
        if hint:
            text += f"; {hint}"
        super().__init__(text)


def at_span(span: tuple[int, int, int] | None) -> str | None:
    """``line L, column C`` of a DSL span, or None."""
    return f"line {span[0]}, column {span[1]}" if span else None


def at_offset(source: str, offset: int) -> str:
    """``line L, column C`` of a character offset in ``source``."""
    line = source.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - (source.rfind(chr(10), 0, offset) + 1) + 1}"


def placed(err: ConversionError, place: str | None) -> ConversionError:
    """``err`` with ``place`` (a line and column) added to where it stands."""
    if not place or (err.where and place in err.where):
        return err
    return ConversionError(err.construct, err.target, err.why, f"{err.where}, {place}" if err.where else place,
                           err.hint)


def refuse(construct: str, target: str, why: str, where: str | None = None, hint: str | None = None) -> ConversionError:
    """The error to raise (``raise refuse(...)``)."""
    return ConversionError(construct, target, why, where, hint)


MATCH_RECOGNIZE = "MATCH_RECOGNIZE"
STUDIO = "studio pattern"
FLINK_SQL = "Flink SQL"
FLINK_JAVA = "FlinkCEP Pattern API"
