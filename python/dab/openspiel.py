"""dab on OpenSpiel's ``dots_and_boxes``: a state as dab's line string, a bot that plays by
dab's hints, and the exact final margin of a state with best play.

OpenSpiel numbers the lines of a ``num_rows`` x ``num_cols`` board as dab numbers those of
board ``"{num_rows}x{num_cols}"``: the horizontal lines row by row, top to bottom and left to
right, then the vertical lines row by row (OpenSpiel's ``Move::ActionId``; the tests play
random games on both and compare every legal move, extra turn and score). An action id is
therefore dab's line index, and ``state.dbn_string()`` is dab's line string.
"""

import numpy as np
import pyspiel

from . import DabError, hint, solve

GAME = "dots_and_boxes"


def _check(game):
    name = game.get_type().short_name
    if name != GAME:
        raise DabError(f"dab plays OpenSpiel's {GAME}, not {name}")


def board_of(game):
    """The dab board of an OpenSpiel ``dots_and_boxes`` game: ``"MxN"``."""
    _check(game)
    params = game.get_parameters()
    return f"{params['num_rows']}x{params['num_cols']}"


def lines_of(state):
    """The state's drawn lines as dab's line string (OpenSpiel's action ids are dab's line
    indices)."""
    _check(state.get_game())
    return state.dbn_string()


def boxes_of(state):
    """Boxes each player has taken so far: ``(player 0's, player 1's)``, read from the
    observation tensor (cell states x cells x (h, v, box); a box's state is its owner)."""
    game = state.get_game()
    _check(game)
    shape = game.observation_tensor_shape()
    t = np.asarray(state.observation_tensor(0)).reshape(shape)
    return int(t[1, :, 2].sum()), int(t[2, :, 2].sum())


def exact_value(state, threads=None):
    """The final margin with best play from ``state`` on, as OpenSpiel's ``utility_margin``
    counts it: player 0's boxes minus player 1's at the end of the game (the boxes taken
    so far included). Exact, however long it takes: dab's retrograde solver in memory up to
    32 undrawn lines, its search engine beyond (minutes past about 40)."""
    mine, theirs = boxes_of(state)
    if state.is_terminal():
        return mine - theirs
    board, lines = board_of(state.get_game()), lines_of(state)
    undrawn = lines.count("0")
    if undrawn <= 32:
        value = solve(board, lines, threads=threads)["value"]
    else:
        value = solve(board, lines, engine="search", value_only=True, threads=threads)["value"]
    future = value if state.current_player() == 0 else -value
    return mine - theirs + future


def best_line(answer):
    """The line index of the move a ``dab.hint`` answer recommends (the first of the best
    where several are equally good)."""
    if "index" in answer:
        return answer["index"]
    best = set(answer["best"])
    return next(m["index"] for m in answer["moves"] if m["line"] in best)


class DabBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` that plays dab's hint within ``seconds`` a move: exact where dab
    proves the answer within the budget (its opening books, the endgame theorems, the
    retrograde or the search), by dab's rules otherwise. It keeps no state between moves."""

    def __init__(self, game, seconds=1.0, threads=None):
        pyspiel.Bot.__init__(self)
        self.board = board_of(game)
        self.seconds = seconds
        self.threads = threads

    def step(self, state):
        answer = hint(self.board, lines_of(state), self.seconds, threads=self.threads)
        return best_line(answer)

    def restart(self):
        pass

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass

    def provides_policy(self):
        return False
