"""dab's functions: the objects the commands' --json prints, the commands' errors as
DabError, and long work that lets other threads run and stops on Ctrl-C."""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import threading
import time

import pytest

import dab

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The command line built by cargo, where there is one: its JSON is the functions' JSON.
CLI = shutil.which("dab") or next(
    (str(p) for p in (ROOT / "target/release/dab", ROOT / "target/debug/dab") if p.exists()), None
)
needs_cli = pytest.mark.skipif(CLI is None and os.environ.get("CI") != "true", reason="no dab binary built")

# What differs from one run to the next: times, rates, memory, and the machine's threads.
VARYING = {"seconds", "positions_per_second", "peak_rss_bytes", "gigabytes_per_second", "threads", "next_loony_left_out"}


def steady(obj):
    if isinstance(obj, dict):
        return {k: steady(v) for k, v in obj.items() if k not in VARYING}
    if isinstance(obj, list):
        return [steady(v) for v in obj]
    return obj


def cli(*args):
    assert CLI is not None, "CI=true: the dab binary must be built (cargo build --release)"
    out = subprocess.run([CLI, "-q", *args], capture_output=True, text=True, timeout=120)
    return out


def cli_json(*args):
    out = cli(*args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# A 3x3 position of 14 undrawn lines, with boxes to take.
LINES_3X3 = "110110011" "000" + "1010" "0110" "0000"


@needs_cli
@pytest.mark.parametrize(
    "call,args",
    [
        # One thread: on more, the peak of values held at once depends on which job ends first.
        (lambda: dab.solve("2x2", threads=1), ["solve", "2x2", "--threads", "1"]),
        (lambda: dab.solve("3x3", LINES_3X3, threads=1), ["solve", "3x3", "--lines", LINES_3X3, "--threads", "1"]),
        # One thread: a parallel search's count of positions varies from run to run.
        (
            lambda: dab.solve("3x3", LINES_3X3, engine="search", threads=1),
            ["solve", "3x3", "--lines", LINES_3X3, "--engine", "search", "--threads", "1"],
        ),
        (lambda: dab.solve("2x3", penalty=2, threads=1), ["solve", "2x3", "--penalty", "2", "--threads", "1"]),
        (lambda: dab.hint("3x3", LINES_3X3), ["hint", "3x3", "--lines", LINES_3X3, "--seconds", "1"]),
        (lambda: dab.hint("2x2", penalty=1), ["hint", "2x2", "--penalty", "1", "--seconds", "1"]),
        (lambda: dab.nimstring("3x3", LINES_3X3), ["nimstring", "3x3", "--lines", LINES_3X3]),
        (lambda: dab.review("2x2", "h(0,0) v(0,0) h(1,0) v(0,1)"), ["review", "2x2", "--moves", "h(0,0) v(0,0) h(1,0) v(0,1)", "--seconds", "1"]),
    ],
)
def test_the_dicts_are_the_commands_json(call, args):
    assert steady(call()) == steady(cli_json(*args))


def test_a_solve_values_every_move():
    a = dab.solve("2x2")
    assert a["value"] == 2 and len(a["moves"]) == 12
    assert set(a["best"]) == {m["line"] for m in a["moves"] if m["value"] == 2}


def test_a_query_reads_the_store_a_solve_wrote(tmp_path):
    dab.solve("2x3", store=tmp_path / "store")
    lines = "1" * 5 + "0" * 12
    q = dab.query(tmp_path / "store", "2x3", lines)
    assert q["source"] == "store"
    assert steady(q)["moves"] == steady(dab.solve("2x3", lines))["moves"]


def test_a_review_takes_line_numbers_and_a_replay_the_same_game():
    moves = [0, 6, 2, 7, 1, 3, 8, 4, 5, 9, 10, 11]
    r = dab.review("2x2", moves)
    p = dab.replay("2x2", moves)
    assert [m["index"] for m in r["moves"]] == moves
    assert [m["player"] for m in r["moves"]] == [m["player"] for m in p["moves"]]
    assert r["score"] == p["score"] and sum(p["score"]) == 4
    assert p["moves"][0]["legal"] == list(range(12))


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: dab.solve("0x3"), "board"),
        (lambda: dab.solve("2x2", "01"), "has 2 characters"),
        (lambda: dab.solve("2x2", "0000000000x0"), None),
        (lambda: dab.solve("2x2", penalty=-1), "penalty: "),
        (lambda: dab.solve("2x2", engine="magic"), "engine: 'magic' is not"),
        (lambda: dab.solve("2x2", threads=0), "threads must be at least 1"),
        (lambda: dab.solve("2x2", engine="search", penalty=1), "penalty: the search engine values the plain game only"),
        (lambda: dab.solve("2x2", value_only=True), "value_only works only with engine='search'"),
        (lambda: dab.solve("6x6"), "solving in memory handles at most 32"),
        (lambda: dab.hint("2x2", seconds=0), "seconds=0"),
        (lambda: dab.hint("2x2", seconds=float("nan")), "not a number of seconds"),
        (lambda: dab.hint("2x2", engine="partition", penalty=300), "penalty: "),
        (lambda: dab.hint("2x2", store="/nonexistent/store"), "/nonexistent/store"),
        (lambda: dab.query("/nonexistent/store", "2x2", None), "/nonexistent/store"),
        (lambda: dab.review("2x2", "h(0,0) h(0,0)"), "moves: "),
        (lambda: dab.review("2x2", [0, 99]), "moves: "),
        (lambda: dab.review("2x2", 3.5), "a list of line numbers"),
        (lambda: dab.replay("2x2", ""), "moves: "),
        (lambda: dab.nimstring("2x2", "1" * 13), "13 characters"),
    ],
)
def test_bad_input_raises_dab_error_with_the_commands_message(call, words):
    with pytest.raises(dab.DabError) as e:
        call()
    assert isinstance(e.value, ValueError)
    if words:
        assert words in str(e.value)


@needs_cli
@pytest.mark.parametrize(
    "call,args",
    [
        (lambda: dab.solve("2x2", "01"), ["solve", "2x2", "--lines", "01"]),
        (lambda: dab.solve("6x6"), ["solve", "6x6"]),
        (lambda: dab.solve("2x2", engine="search", penalty=1), ["solve", "2x2", "--engine", "search", "--penalty", "1"]),
        (lambda: dab.review("2x2", "h(0,0) h(0,0)"), ["review", "2x2", "--moves", "h(0,0) h(0,0)"]),
    ],
)
def test_the_message_is_the_commands_with_keywords_for_flags(call, args):
    with pytest.raises(dab.DabError) as e:
        call()
    err = cli(*args).stderr.strip()
    assert err.startswith("error: ")
    flagged = err[len("error: ") :].replace("--penalty: ", "penalty: ").replace("--moves: ", "moves: ")
    assert str(e.value) == flagged


# The empty 5x5 board by the search engine: many minutes, far past the test.
LONG = dict(board="5x5", engine="search", value_only=True, threads=1, tt_size=64 << 20)


def test_long_work_lets_other_threads_run():
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.01)

    t = threading.Thread(target=tick)
    t.start()
    try:
        # The empty 5x5 board's Nimstring value is past a second's reach: a second's work.
        with pytest.raises(dab.DabError, match="not found within 1 s"):
            dab.nimstring("5x5", seconds=1.0)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 20


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_stops_a_long_solve():
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dab.solve(**LONG)
    assert time.monotonic() - start < 5
    # The interpreter and the extension go on.
    assert dab.solve("2x2")["value"] == 2


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_stops_a_review_between_positions():
    # 60 positions of up to a second each: a minute, were it not stopped.
    moves = list(range(60))
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dab.review("5x5", moves, seconds=1.0, threads=1)
    assert time.monotonic() - start < 5
