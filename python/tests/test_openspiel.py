"""dab against OpenSpiel's dots_and_boxes: the same rules on random games, the same exact
values as OpenSpiel's own exhaustive search, and the bot's moves legal."""

import random

import pyspiel
import pytest
from open_spiel.python.algorithms import minimax

import dab
import dab.openspiel as dos

# Games of each board in the random playouts: 1,000 in all.
GAMES = {(2, 2): 300, (3, 3): 300, (4, 4): 250, (5, 5): 150}


def game(rows, cols, margin=True):
    return pyspiel.load_game(f"dots_and_boxes(num_rows={rows},num_cols={cols},utility_margin={str(margin).lower()})")


def random_state(g, drawn, rng):
    s = g.new_initial_state()
    for _ in range(drawn):
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def check_game(g, rng):
    """One random game played on OpenSpiel and replayed by dab: the same legal lines before
    every move, the same names for them, the same player to move (a box completed keeps the
    turn), the same boxes taken, and the same final score."""
    board = dos.board_of(g)
    s = g.new_initial_state()
    seen = []
    while not s.is_terminal():
        legal = s.legal_actions()
        assert [i for i, c in enumerate(dos.lines_of(s)) if c == "0"] == legal
        action = rng.choice(legal)
        seen.append((sorted(legal), s.current_player(), s.action_to_string(s.current_player(), action), dos.boxes_of(s)))
        s.apply_action(action)
    replay = dab.replay(board, [m for m in s.history()])
    assert len(replay["moves"]) == len(seen)
    for move, (legal, player, name, score) in zip(replay["moves"], seen):
        assert move["legal"] == legal
        assert move["player"] == "AB"[player]
        # OpenSpiel's "P1(h,1,0)" is dab's "h(1,0)".
        orientation, row, col = name[name.index("(") + 1 : -1].split(",")
        assert move["line"] == f"{orientation}({row},{col})"
        assert tuple(move["score"]) == score
    a, b = replay["score"]
    assert (a, b) == dos.boxes_of(s)
    assert s.returns() == [a - b, b - a]
    assert replay["end"] == "1" * len(replay["end"])


@pytest.mark.parametrize("rows,cols", sorted(GAMES))
def test_random_playouts_agree_on_moves_turns_and_scores(rows, cols):
    rng = random.Random(rows * 100 + cols)
    g = game(rows, cols)
    for _ in range(GAMES[(rows, cols)]):
        check_game(g, rng)


def test_a_non_square_board_keeps_rows_and_columns():
    rng = random.Random(7)
    for rows, cols in [(2, 3), (3, 2), (1, 4), (4, 1)]:
        g = game(rows, cols)
        assert dos.board_of(g) == f"{rows}x{cols}"
        for _ in range(20):
            check_game(g, rng)


def exhaustive(state):
    """OpenSpiel's own alpha-beta to the end of the game, player 0 maximising the returns
    (utility_margin: player 0's boxes less player 1's)."""
    value, _ = minimax.alpha_beta_search(state.get_game(), state, maximizing_player_id=0)
    return value


def test_exact_value_of_the_empty_2x2_board_is_openspiels():
    s = game(2, 2).new_initial_state()
    assert dos.exact_value(s) == exhaustive(s) == 2


@pytest.mark.parametrize(
    "rows,cols,drawn",
    # OpenSpiel's search has no transposition table: a 2x3 position takes it seconds from
    # about 11 undrawn lines.
    [(2, 2, d) for d in (2, 3, 5, 8, 11)] + [(2, 3, d) for d in (7, 8, 10, 13, 16)],
)
def test_exact_value_equals_openspiels_exhaustive_search(rows, cols, drawn):
    g = game(rows, cols)
    rng = random.Random(rows * 1000 + cols * 100 + drawn)
    for _ in range(4):
        s = random_state(g, drawn, rng)
        assert dos.exact_value(s) == exhaustive(s), s


def test_exact_value_counts_the_boxes_taken_and_the_player_to_move():
    g = game(2, 3)
    rng = random.Random(3)
    checked = 0
    while checked < 20:
        s = random_state(g, rng.randrange(10, 17), rng)
        mine, theirs = dos.boxes_of(s)
        if mine + theirs == 0 and not s.is_terminal():
            continue
        assert dos.exact_value(s) == exhaustive(s)
        checked += 1


def test_exact_value_of_a_finished_game_is_its_margin():
    g = game(2, 2)
    s = random_state(g, 12, random.Random(5))
    assert s.is_terminal()
    assert dos.exact_value(s) == s.returns()[0]


def test_the_bot_plays_legal_best_moves_to_the_end():
    g = game(2, 3, margin=False)
    bot = dos.DabBot(g, seconds=0.2)
    assert isinstance(bot, pyspiel.Bot)
    s = g.new_initial_state()
    while not s.is_terminal():
        if s.current_player() == 0:
            action = bot.step(s)
            # On 2x3 every hint is exact: the move keeps the position's value.
            assert dos.exact_value(s.child(action)) == dos.exact_value(s)
        else:
            action = random.Random(len(s.history())).choice(s.legal_actions())
        assert action in s.legal_actions()
        bot.inform_action(s, s.current_player(), action)
        s.apply_action(action)
    bot.restart()


def test_the_bot_beats_a_random_player_on_3x3():
    # Plays both seats through OpenSpiel's own game loop.
    g = game(3, 3, margin=False)
    bots = [dos.DabBot(g, seconds=0.1), pyspiel.make_uniform_random_bot(1, 11)]
    returns = pyspiel.evaluate_bots(g.new_initial_state(), bots, 1)
    assert returns[0] == 1.0


def test_other_games_are_refused():
    with pytest.raises(dab.DabError, match="dots_and_boxes"):
        dos.DabBot(pyspiel.load_game("tic_tac_toe"))
