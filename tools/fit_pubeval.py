"""Fit the fallback evaluator's weights (``door/games/backgammon/pubeval_weights.json``).

    PYTHONPATH=$PWD python3 tools/fit_pubeval.py            # fit and write the file
    PYTHONPATH=$PWD python3 tools/fit_pubeval.py --check    # fit and compare, write nothing

Inputs, all fixed by the arguments (defaults are what the shipped file was made with):

1. Positions: ``--games`` cubeless money games of bgsage self-play, dice from
   ``random.Random(--seed)``. On each turn every legal play (door's ``movegen``) is
   evaluated by bgsage at 1-ply (post-move, from the mover's view); the best by
   cubeless equity is played, or with probability ``--explore`` a random legal one so the
   games leave the beaten track. Every evaluated candidate, not just the one played, is a
   labelled position (so one turn yields a dozen or more), de-duplicated by board. Games
   whose number is a multiple of ``--holdout`` are kept out of the fit and used to grade
   it (below).
2. Labels: bgsage's five probabilities for each position, turned into pubeval's five
   conditional heads: win; gammon given a win; backgammon given a gammon win; gammon
   given a loss; backgammon given a gammon loss.
3. Fit: for each weight set (contact positions, races: ``pubeval.is_race``) and each head,
   an L2-regularised logistic regression (``--ridge``) of the head onto
   ``pubeval.features``, each position weighted by the probability of the head's
   condition (a gammon head counts as much as wins are likely); a head is left out where
   the rules rule it out (no gammon for a side once the other has borne a checker off,
   which ``pubeval.probabilities`` zeroes anyway). Newton's method (iteratively
   reweighted least squares), started at zero, until it settles.

The weights are rounded to 5 significant digits and written as JSON with the arguments
used; the script prints the file's SHA-256 (``tests/games/backgammon/test_pubeval.py``
records it) and, on the held-out games, how much equity the play chosen by the fallback
costs per move against bgsage's own choice, for the new weights and for the file in the
repository (lower is stronger).

Needs bgsage (and numpy, which it brings). The fit is deterministic: bgsage's evaluations
are, and numpy runs single-threaded here. About two minutes of one core at the defaults.
"""

from __future__ import annotations

import os

# Before numpy loads: one BLAS thread, so sums are made in one order (same file each run).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.backgammon import movegen, pubeval  # noqa: E402
from door.games.backgammon.position import start_side  # noqa: E402

WEIGHTS_FILE = (
    Path(__file__).resolve().parent.parent / "door/games/backgammon/pubeval_weights.json"
)
HEADS = pubeval.HEADS

Board = tuple[int, ...]
Probs = tuple[float, float, float, float, float]


# --- 1. positions: bgsage self-play ------------------------------------------------------


class Labeller:
    """bgsage's 1-ply post-move evaluation, with its networks loaded once.

    The calls ``bgsage.batch_post_move_evaluate(..., eval_level="1ply", jacoby=False)``
    makes, without building the strategy again on every call (which costs more than the
    evaluations of a turn)."""

    def __init__(self) -> None:
        import bgbot_cpp  # bgsage's compiled core, in the same wheel
        from bgsage.analyzer import resolve_owner
        from bgsage.weights import default_weights

        w = default_weights()
        self._cpp = bgbot_cpp
        self._strategy = bgbot_cpp.create_strategy(
            w.strategy_type, w.weight_paths_list, w.hidden_sizes_list
        )
        self._centred = resolve_owner("centered")

    def __call__(self, boards: list[list[int]]) -> list[Probs]:
        found = self._cpp.batch_evaluate_post_move(
            [(b, self._centred) for b in boards], self._strategy, 1, jacoby=False
        )
        out: list[Probs] = []
        for r in found:
            win, gw, bgw, gl, bgl = (float(v) for v in r["probs"])
            out.append((win, gw, bgw, gl, bgl))
        return out


def self_play(
    label: Labeller, game: int, seed: int, explore: float
) -> tuple[dict[Board, Probs], list[list[tuple[Board, Probs]]]]:
    """One game: every evaluated (board, probabilities), and per turn with a choice the
    candidates in order (for grading)."""
    rng = random.Random(seed * 100_003 + game)
    me, opp = start_side(), start_side()
    labelled: dict[Board, Probs] = {}
    turns: list[list[tuple[Board, Probs]]] = []
    while True:
        plays = movegen.legal_plays(me, opp, rng.randint(1, 6), rng.randint(1, 6))
        if plays:
            boards = [pubeval.engine_board(m, o) for _, m, o in plays]
            probs = label(boards)
            candidates = [(tuple(b), p) for b, p in zip(boards, probs, strict=True)]
            for board, p in candidates:
                if sum(n for n in board[1:25] if n > 0) + board[25]:  # not a finished game
                    labelled[board] = p
            if len(candidates) > 1:
                turns.append(candidates)
            if rng.random() < explore:
                pick = rng.randrange(len(plays))
            else:
                eqs = [pubeval.cubeless_equity(p) for p in probs]
                pick = max(range(len(plays)), key=eqs.__getitem__)
            _steps, me, opp = plays[pick]
            if sum(me) == 0:
                return labelled, turns
        me, opp = opp, me


# --- 2. labels and features --------------------------------------------------------------


def heads_of(board: Board, p: Probs) -> tuple[list[float], list[float]]:
    """The five conditional targets and their weights (0 where a head does not apply)."""
    win, gw, bgw, gl, bgl = p
    mine = sum(n for n in board[1:25] if n > 0) + board[25]
    theirs = sum(-n for n in board[1:25] if n < 0) + board[0]

    def ratio(a: float, b: float) -> float:
        return min(1.0, max(0.0, a / b)) if b > 1e-9 else 0.0

    loss = 1.0 - win
    targets = [win, ratio(gw, win), ratio(bgw, gw), ratio(gl, loss), ratio(bgl, gl)]
    can_win_gammon = theirs == 15
    can_lose_gammon = mine == 15
    weights = [
        1.0,
        win if can_win_gammon else 0.0,
        gw if can_win_gammon else 0.0,
        loss if can_lose_gammon else 0.0,
        gl if can_lose_gammon else 0.0,
    ]
    return targets, weights


def design(boards: list[Board]) -> np.ndarray:
    """The dense feature matrix (one row per board)."""
    x = np.zeros((len(boards), pubeval.N_FEATURES))
    for row, board in enumerate(boards):
        for idx, value in pubeval.features(board):
            x[row, idx] += value
    return x


# --- 3. the fit --------------------------------------------------------------------------


def logistic_fit(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, ridge: float, iterations: int = 25
) -> np.ndarray:
    """Weights minimising sum(w * cross-entropy(y, sigmoid(x @ b))) + ridge/2 * |b|^2."""
    beta = np.zeros(x.shape[1])
    keep = w > 0
    x, y, w = x[keep], y[keep], w[keep]
    if not len(y):
        return beta
    eye = ridge * np.eye(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30.0, 30.0)))
        grad = x.T @ (w * (p - y)) + ridge * beta
        hess = (x * (w * p * (1.0 - p))[:, None]).T @ x + eye
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-7:
            break
    return beta


def fit(labelled: dict[Board, Probs], ridge: float) -> dict[str, list[list[float]]]:
    out: dict[str, list[list[float]]] = {}
    for name, want_race in (("contact", False), ("race", True)):
        boards = sorted(b for b in labelled if pubeval.is_race(b) == want_race)
        x = design(boards)
        pairs = [heads_of(b, labelled[b]) for b in boards]
        ys = np.array([t for t, _ in pairs])
        ws = np.array([w for _, w in pairs])
        columns = [logistic_fit(x, ys[:, k], ws[:, k], ridge) for k in range(len(HEADS))]
        table = np.stack(columns, axis=1)
        out[name] = [[float(f"{v:.5g}") for v in row] for row in table]
        print(f"{name}: {len(boards)} positions")
    return out


# --- grading and the file ----------------------------------------------------------------


def grade(turns: list[list[tuple[Board, Probs]]], weights: pubeval.Weights) -> float:
    """Mean cubeless equity (bgsage's) lost per choice by playing the fallback's pick."""
    lost = 0.0
    for candidates in turns:
        truth = [pubeval.cubeless_equity(p) for _, p in candidates]
        pick = pubeval.choose_play([b for b, _ in candidates], weights=weights)
        lost += max(truth) - truth[pick]
    return lost / len(turns) if turns else 0.0


def render(tables: dict[str, list[list[float]]], args: argparse.Namespace) -> str:
    names = ("games", "seed", "explore", "holdout", "ridge")
    fit_args = {k: getattr(args, k) for k in names}
    doc = {
        "about": "pubeval-style weights for door's fallback backgammon evaluator; "
        "made by tools/fit_pubeval.py (see its docstring), do not edit by hand",
        "command": "PYTHONPATH=$PWD python3 tools/fit_pubeval.py "
        + " ".join(f"--{k} {v}" for k, v in fit_args.items()),
        "fit": fit_args,
        "heads": list(HEADS),
        "features": pubeval.N_FEATURES,
    }
    # One weight row a line: short enough to read and to diff.
    head = "".join(f" {json.dumps(k)}: {json.dumps(v)},\n" for k, v in doc.items())
    text = "{\n" + head
    for name in ("contact", "race"):
        rows = ",\n".join("  " + json.dumps(row) for row in tables[name])
        text += f' "{name}": [\n{rows}\n ]' + (",\n" if name == "contact" else "\n")
    text += "}\n"
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--explore", type=float, default=0.1)
    ap.add_argument("--holdout", type=int, default=10, help="every Nth game grades the fit")
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    ap.add_argument("--out", type=Path, default=WEIGHTS_FILE)
    args = ap.parse_args()
    label = Labeller()
    started = time.perf_counter()
    train: dict[Board, Probs] = {}
    held: list[list[tuple[Board, Probs]]] = []
    for game in range(args.games):
        labelled, turns = self_play(label, game, args.seed, args.explore)
        if game % args.holdout == 0:
            held += turns
        else:
            train.update(labelled)
    print(f"self-play: {args.games} games, {len(train)} distinct training positions, "
          f"{len(held)} held-out choices, {time.perf_counter() - started:.0f} s")
    tables = fit(train, args.ridge)
    text = render(tables, args)
    digest = hashlib.sha256(text.encode()).hexdigest()
    new = pubeval.Weights.from_json(text)
    print(f"held-out equity lost per choice: new {grade(held, new):.4f}", end="")
    if args.out.exists():
        shipped = args.out.read_text()
        print(f", {args.out.name} {grade(held, pubeval.Weights.from_json(shipped)):.4f}")
    else:
        print()
    print(f"sha256 {digest}")
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("the file is what this fit makes" if same else "the file differs from this fit")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
