"""DabBot against OpenSpiel's MCTSBot on dots_and_boxes: games won, margins and move times.

    python python/bench/mcts.py [--boards 5x5,7x7,9x9] [--games 50] [--seconds 0.5]
                                [--simulations 10000] [--threads N] [--seed 1000] [--csv FILE]

dab takes ``--seconds`` a move (its hint's budget); MCTS is OpenSpiel's C++ MCTSBot with random
rollouts (one per leaf), UCT constant 2 and ``--simulations`` simulations a move. dab moves
first in the even games and second in the odd ones. A benchmark, not a test: it takes about
half a minute a game on 5x5, a few on 9x9 (MCTS's time grows with the board).
"""

import argparse
import csv
import statistics
import sys
import time

import pyspiel

import dab.openspiel as dos


class Timed(pyspiel.Bot):
    """A bot with the seconds of each of its moves recorded, and the positions where it took
    over twice its budget (``slow``: (seconds, line string))."""

    def __init__(self, bot, budget=None):
        pyspiel.Bot.__init__(self)
        self.bot, self.budget, self.times, self.slow = bot, budget, [], []

    def step(self, state):
        start = time.perf_counter()
        action = self.bot.step(state)
        seconds = time.perf_counter() - start
        self.times.append(seconds)
        if self.budget is not None and seconds > 2 * self.budget:
            self.slow.append((seconds, dos.lines_of(state)))
        return action

    def restart_at(self, state):
        self.bot.restart_at(state)

    def inform_action(self, state, player_id, action):
        self.bot.inform_action(state, player_id, action)


def mcts(game, simulations, seed):
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 1000, False, seed, False)


def play(game, seconds, simulations, threads, seed, dab_first):
    """One game: dab's margin (its boxes less MCTS's), its move times and MCTS's."""
    ours = Timed(dos.DabBot(game, seconds=seconds, threads=threads), seconds)
    theirs = Timed(mcts(game, simulations, seed))
    bots = [ours, theirs] if dab_first else [theirs, ours]
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].step(state)
        for b in bots:
            if b is not bots[player]:
                b.inform_action(state, player, action)
        state.apply_action(action)
    margin = state.returns()[0 if dab_first else 1]
    for seconds_taken, lines in ours.slow:
        print(f"  dab took {seconds_taken:.2f} s at {lines}", flush=True)
    return margin, ours.times, theirs.times


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--boards", default="5x5,7x7,9x9")
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--seconds", type=float, default=0.5)
    p.add_argument("--simulations", type=int, default=10000)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--seed", type=int, default=1000, help="MCTS's seed in the first game (one more each game)")
    p.add_argument("--csv", default=None, help="also write one row a game here")
    args = p.parse_args()
    rows = []
    for board in args.boards.split(","):
        r, c = board.split("x")
        game = pyspiel.load_game(f"dots_and_boxes(num_rows={r},num_cols={c},utility_margin=true)")
        wins, margins, ours, theirs = 0, [], [], []
        for g in range(args.games):
            margin, t_ours, t_theirs = play(game, args.seconds, args.simulations, args.threads, args.seed + g, g % 2 == 0)
            wins += margin > 0
            margins.append(margin)
            ours += t_ours
            theirs += t_theirs
            rows.append([board, g, "dab" if g % 2 == 0 else "mcts", margin, max(t_ours), statistics.mean(t_theirs)])
            print(
                f"{board} game {g + 1}: dab {'first' if g % 2 == 0 else 'second'}, margin {margin:+.0f}, "
                f"dab's longest move {max(t_ours):.2f} s, MCTS {statistics.mean(t_theirs):.2f} s a move",
                flush=True,
            )
        print(
            f"{board}: dab won {wins} of {args.games} ({100 * wins / args.games:.0f} %), "
            f"median margin {statistics.median(margins):+.0f}, dab {statistics.mean(ours):.2f} s a move "
            f"(longest {max(ours):.2f}), MCTS {statistics.mean(theirs):.2f} s a move",
            flush=True,
        )
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["board", "game", "first", "dab_margin", "dab_longest_move_s", "mcts_mean_move_s"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
