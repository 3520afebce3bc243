"""Train the fallback evaluator's networks (``door/games/backgammon/pubeval_weights.json``).

    PYTHONPATH=$PWD nice -n 10 python3 tools/fit_fallback_net.py          # train, write
    PYTHONPATH=$PWD nice -n 10 python3 tools/fit_fallback_net.py --check  # train, compare

Inputs, all fixed by the arguments (defaults are what the shipped file was made with):

1. Positions: ``--games`` cubeless money games of bgsage self-play, dice from
   ``random.Random(--seed)``. On each turn every legal play (door's ``movegen``) is
   evaluated by bgsage's network (bgsage's "1ply", its static evaluation; post-move, from
   the mover's view). The play made is the best by cubeless equity after a Gaussian error
   of the game's noise (game ``g`` uses ``--noises[g % len]``) or, with probability
   ``--explore``, a random legal one, so the games also reach the positions bad play
   leads to. Every evaluated candidate, not just the one played, is a labelled position,
   de-duplicated by board. Games whose number is a multiple of ``--holdout`` are kept out
   of the training and grade it (below).
2. Labels: bgsage's five probabilities, turned into the five conditional outputs of
   ``pubeval.HEADS`` (win; gammon given a win; ...), each weighted by the probability of
   its condition (a gammon-given-a-win output counts as much as wins are likely) and left
   out where the rules rule it out (``pubeval.probabilities`` zeroes those anyway).
3. Training: for each network (contact positions, races: ``pubeval.is_race``), one
   hidden layer of ``--hidden`` sigmoid units on ``pubeval.features`` and five sigmoid
   outputs, minimising the weighted cross-entropy with Adam (``--epochs`` passes in
   mini-batches of ``--batch``, the step size falling linearly from ``--lr`` to a tenth
   of it), weights started from ``numpy.random.default_rng(--seed)``.

The weights are rounded to 5 significant digits and written as JSON with the arguments
used; the script prints the file's SHA-256 (``tests/games/backgammon/test_pubeval_weights.py``
records it) and, on the held-out games, how much equity (bgsage's) the play chosen by the
fallback costs per choice against bgsage's own choice, for the new weights and for the
file in the repository (lower is stronger).

Needs bgsage and numpy (used here only: door itself evaluates in pure Python). The fit is
deterministic on one machine: bgsage's evaluations are, and numpy runs single-threaded
here. About four minutes of one idle core at the defaults (1.37 million positions).
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
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from door.games.backgammon import movegen, pubeval  # noqa: E402
from door.games.backgammon.position import start_side  # noqa: E402

WEIGHTS_FILE = Path(__file__).resolve().parent.parent / "door/games/backgammon/pubeval_weights.json"
HEADS = pubeval.HEADS

Board = tuple[int, ...]
Probs = tuple[float, float, float, float, float]
Turn = list[tuple[Board, Probs]]


# --- 1. positions: bgsage self-play ------------------------------------------------------


class Labeller:
    """bgsage's static post-move evaluation, with its networks loaded once."""

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
    label: Labeller, game: int, seed: int, explore: float, noise: float
) -> tuple[dict[Board, Probs], list[Turn]]:
    """One game: every evaluated (board, probabilities), and per turn with a choice the
    candidates in order (for grading)."""
    rng = random.Random(seed * 100_003 + game)
    me, opp = start_side(), start_side()
    labelled: dict[Board, Probs] = {}
    turns: list[Turn] = []
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
                eqs = [pubeval.cubeless_equity(p) + rng.gauss(0.0, noise) for p in probs]
                pick = max(range(len(plays)), key=eqs.__getitem__)
            _steps, me, opp = plays[pick]
            if sum(me) == 0:
                return labelled, turns
        me, opp = opp, me


# --- 2. labels and inputs ----------------------------------------------------------------


def heads_of(board: Board, p: Probs) -> tuple[list[float], list[float]]:
    """The five conditional targets and their weights (0 where an output does not apply)."""
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
    """The dense input matrix (one row per board), float32."""
    x = np.zeros((len(boards), pubeval.N_FEATURES), dtype=np.float32)
    for row, board in enumerate(boards):
        for idx, value in pubeval.features(board):
            x[row, idx] = value
    return x


# --- 3. training -------------------------------------------------------------------------


def _sig(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out


def train(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, args: argparse.Namespace, seed: int
) -> dict[str, np.ndarray]:
    """One network fitted to (x, y) with output weights w (see the module docstring)."""
    rng = np.random.default_rng(seed)
    n, d = x.shape
    h = args.hidden
    params = {
        "w1": (rng.standard_normal((d, h)) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((h, 5)) * 0.1).astype(np.float32),
        "b2": np.zeros(5, dtype=np.float32),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    steps_per_epoch = (n + args.batch - 1) // args.batch
    total = steps_per_epoch * args.epochs
    step = 0
    for epoch in range(args.epochs):
        order = rng.permutation(n)
        loss_sum = 0.0
        for s in range(steps_per_epoch):
            idx = order[s * args.batch : (s + 1) * args.batch]
            xb, yb, wb = x[idx], y[idx], w[idx]
            a1 = xb @ params["w1"]
            hid = _sig(a1)
            out = _sig(hid @ params["w2"] + params["b2"])
            loss_sum += float(
                -(wb * (yb * np.log(out + 1e-7) + (1 - yb) * np.log(1 - out + 1e-7))).sum()
            )
            dz2 = wb * (out - yb) / len(idx)
            grads = {
                "w2": hid.T @ dz2,
                "b2": dz2.sum(axis=0),
            }
            dh = (dz2 @ params["w2"].T) * hid * (1.0 - hid)
            grads["w1"] = xb.T @ dh
            step += 1
            lr = args.lr * (1.0 - 0.9 * step / total)
            for k in params:
                m[k] = b1 * m[k] + (1 - b1) * grads[k]
                v[k] = b2 * v[k] + (1 - b2) * grads[k] ** 2
                mhat = m[k] / (1 - b1**step)
                vhat = v[k] / (1 - b2**step)
                params[k] -= (lr * mhat / (np.sqrt(vhat) + eps)).astype(np.float32)
        print(f"  epoch {epoch + 1}: loss {loss_sum / n:.5f}", flush=True)
    return params


def fit(labelled: dict[Board, Probs], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, (name, want_race) in enumerate((("contact", False), ("race", True))):
        boards = sorted(b for b in labelled if pubeval.is_race(b) == want_race)
        print(f"{name}: {len(boards)} positions", flush=True)
        x = design(boards)
        pairs = [heads_of(b, labelled[b]) for b in boards]
        ys = np.array([t for t, _ in pairs], dtype=np.float32)
        ws = np.array([wt for _, wt in pairs], dtype=np.float32)
        params = train(x, ys, ws, args, args.seed + k)

        def rounded(a: np.ndarray) -> list[Any]:
            return [rounded(r) for r in a] if a.ndim > 1 else [float(f"{v:.5g}") for v in a]

        out[name] = {
            "hidden": rounded(params["w1"]),
            "out": rounded(params["w2"].T),
            "out_bias": rounded(params["b2"]),
        }
    return out


# --- grading and the file ----------------------------------------------------------------


def grade(turns: list[Turn], weights: pubeval.Weights) -> float:
    """Mean cubeless equity (bgsage's) lost per choice by playing the fallback's pick."""
    lost = 0.0
    for candidates in turns:
        truth = [pubeval.cubeless_equity(p) for _, p in candidates]
        pick = pubeval.choose_play([b for b, _ in candidates], weights=weights)
        lost += max(truth) - truth[pick]
    return lost / len(turns) if turns else 0.0


FIT_ARGS = ("games", "seed", "explore", "noises", "holdout", "hidden", "epochs", "batch", "lr")


def render(nets: dict[str, Any], args: argparse.Namespace) -> str:
    fit_args = {k: getattr(args, k) for k in FIT_ARGS}
    command = " ".join(
        f"--{k} {' '.join(str(x) for x in v) if isinstance(v, list) else v}"
        for k, v in fit_args.items()
    )
    doc = {
        "about": "networks of door's fallback backgammon evaluator (pubeval.py); "
        "made by tools/fit_fallback_net.py (see its docstring), do not edit by hand",
        "command": "PYTHONPATH=$PWD python3 tools/fit_fallback_net.py " + command,
        "fit": fit_args,
        "heads": list(HEADS),
        "features": pubeval.N_FEATURES,
        "hidden_units": args.hidden,
    }
    # One weight row a line: short enough to read and to diff.
    text = "{\n" + "".join(f" {json.dumps(k)}: {json.dumps(v)},\n" for k, v in doc.items())
    for name in ("contact", "race"):
        net = nets[name]
        parts = []
        for key in ("hidden", "out"):
            rows = ",\n".join("   " + json.dumps(row) for row in net[key])
            parts.append(f'  "{key}": [\n{rows}\n  ]')
        parts.append(f'  "out_bias": {json.dumps(net["out_bias"])}')
        text += f' "{name}": {{\n' + ",\n".join(parts) + "\n }"
        text += ",\n" if name == "contact" else "\n"
    text += "}\n"
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--explore", type=float, default=0.1)
    ap.add_argument("--noises", type=float, nargs="+", default=[0.0, 0.04, 0.12])
    ap.add_argument("--holdout", type=int, default=10, help="every Nth game grades the fit")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    ap.add_argument("--out", type=Path, default=WEIGHTS_FILE)
    args = ap.parse_args()
    label = Labeller()
    started = time.perf_counter()
    train_set: dict[Board, Probs] = {}
    held: list[Turn] = []
    for game in range(args.games):
        noise = args.noises[game % len(args.noises)]
        labelled, turns = self_play(label, game, args.seed, args.explore, noise)
        if game % args.holdout == 0:
            held += turns
        else:
            train_set.update(labelled)
    print(
        f"self-play: {args.games} games, {len(train_set)} distinct training positions, "
        f"{len(held)} held-out choices, {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    nets = fit(train_set, args)
    text = render(nets, args)
    digest = hashlib.sha256(text.encode()).hexdigest()
    new = pubeval.Weights.from_json(text)
    print(f"held-out equity lost per choice: new {grade(held, new):.4f}", end="")
    if args.out.exists():
        try:
            shipped = pubeval.Weights.from_json(args.out.read_text())
            print(f", {args.out.name} {grade(held, shipped):.4f}")
        except ValueError:
            print(f", {args.out.name} is not a file of networks")
    else:
        print()
    print(f"sha256 {digest}, {len(text)} bytes")
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("the file is what this fit makes" if same else "the file differs from this fit")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
