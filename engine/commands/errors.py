"""How ``cep run`` turns what goes wrong into ``CommandError`` (``cep: message`` on stderr and the
exit status), in one place for every run path:

- **preparing** a run (reading the data, checking the pattern against it, choosing the
  engine): a problem of the input, exit 2 — ``DATA: message`` for the data, the message alone
  for the pattern and the engine's refusal;
- **running** it: a run the guard or an engine stopped (state explosion, memory or time limit,
  Stop, an engine refusing its input) is ``stopped: message`` with what was written so far,
  exit 1; a data problem met while reading on is still the data's (exit 2), and so is a value
  no exact number can hold (an infinite or NaN aggregate input).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from engine.commands.arguments import CommandError

__all__ = ["preparing", "running"]


def _nothing() -> str:
    return ""


@contextmanager
def preparing(data: str) -> Iterator[None]:
    """Input problems while a run is prepared: exit 2, named after ``data`` for the data's."""
    from engine.events import DataError
    from engine.match import EngineUnsupported
    from engine.model import PatternError

    try:
        yield
    except DataError as err:
        raise CommandError(f"{data}: {err}") from None
    except (PatternError, EngineUnsupported) as err:
        raise CommandError(str(err)) from None


@contextmanager
def running(data: str, written: Callable[[], str] = _nothing, stopped: tuple[type[BaseException], ...] = ()
            ) -> Iterator[None]:
    """A run: stopped (exit 1, with ``written()``: what was written before) or, for the data
    read on and values no exact number holds, an input problem (exit 2). ``stopped`` adds
    the exceptions of a path that also mean a stopped run (Spark's ``PipelineError``)."""
    from engine.events import DataError
    from engine.match import StateExplosion
    from engine.memory import RunStopped

    try:
        yield
    except CommandError:
        raise
    except DataError as err:  # e.g. Unsorted, a ragged line, found while reading on
        raise CommandError(f"{data}: {err}{written()}") from None
    except (StateExplosion, RunStopped, ValueError, *stopped) as err:  # EngineUnsupported is a ValueError
        from engine.engines.aseq.values import NonFiniteValue  # imported when something went wrong only

        if isinstance(err, NonFiniteValue):
            raise CommandError(str(err)) from None
        raise CommandError(f"stopped: {err}{written()}", status=1) from None
