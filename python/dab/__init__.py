"""dab from Python: every command that answers a Dots-and-Boxes position, as a function that
returns the object the command's ``--json`` prints, as a dict.

- ``solve(board, lines=None, ...)``: the value of a position and of every move (``dab solve``).
- ``hint(board, lines=None, seconds=1.0, ...)``: the best move within a time budget (``dab hint``).
- ``nimstring(board, lines=None, ...)``: the Nimstring value and every move's (``dab nimstring``).
- ``query(store, board, lines=None, ...)``: values read from a store's solve (``dab query``).
- ``review(board, moves, ...)``: a game's moves valued against best play (``dab review``).
- ``replay(board, moves, lines=None)``: a game's record by dab's rules alone (each move's
  player, boxes, the score and the legal lines), without values.

A board is ``"MxN"`` (M rows, N columns of boxes); a position is a line string, one ``0``/``1``
per line: the horizontal lines row by row, then the vertical ones (OpenSpiel's order). Bad
input raises :class:`DabError`, a ``ValueError``. ``dab.openspiel`` plays and values
OpenSpiel's ``dots_and_boxes`` states (it needs the ``open-spiel`` package).
"""

from ._dab import DabError, hint, nimstring, query, replay, review, solve

__all__ = ["DabError", "hint", "nimstring", "openspiel", "query", "replay", "review", "solve"]


def __getattr__(name):
    # dab.openspiel imports pyspiel, which only its users install: loaded when first named.
    if name == "openspiel":
        import importlib

        return importlib.import_module(".openspiel", __name__)
    raise AttributeError(f"module 'dab' has no attribute {name!r}")
