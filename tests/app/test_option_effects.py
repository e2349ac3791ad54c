"""Every command's shared options change what they claim to change (issue 22: a command line that ignored
``--level`` or ``--seed`` passed the suite).

For each command and each shared option it has (``--seed``, ``--resamples``, ``--level``, ``--interval``,
``--observer-level``, ``--exclusions``/``--no-exclusions``), the command runs on small simulated data with two
values of the option, and the output must change as the option claims: the interval options move the intervals
and leave the estimates alone, a lower ``--level`` narrows the intervals, the exclusion options move the
estimates. The same seed twice gives the same bytes. Settings echoed back in the output (``"level": 0.5``) are
ignored: only the numbers computed count. Commands are found from the parser, so a new command or option
without a case here fails ``test_every_command_with_shared_options_is_covered``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from humanlike.app import cli

SHARED = ("--seed", "--resamples", "--level", "--interval", "--observer-level", "--exclusions", "--no-exclusions")
# Output keys that echo the settings back rather than compute something.
ECHO = {"settings", "level", "seed", "n_resamples", "resamples", "interval", "observer_level", "interval_method",
        "memory_budget", "progress", "exclusions", "created", "command", "argv", "n_sim", "method", "record"}
INTERVAL_KEY = re.compile(r"^(.*_)?(low|high)$")
ESTIMATE_KEYS = {"estimate", "mean", "scale", "sigma", "ood_score", "raw_r"}


# --- the commands and their data ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    from humanlike.trials.representations import Representation, save_representation
    from humanlike.trials.simulate import simulate_benchmark
    from humanlike.measures.dvc.simulate import planted_representations
    from humanlike.measures.mlds.simulate import simulate_judgements
    from humanlike.measures.shapebias.simulate import simulate_cue_conflict

    folder = tmp_path_factory.mktemp("options")
    trials = simulate_benchmark(seed=0, n_humans=3, n_items=16)
    # Two experiments named as the benchmark's, so its exclusion table (and OOD's default reference) applies.
    trials["experiment"] = trials["experiment"].replace({"sim-noise": "uniform-noise", "sim-rotation": "rotation"})
    trials.to_csv(folder / "trials.csv", index=False)
    simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, seed=1).to_csv(folder / "mlds.csv", index=False)
    simulate_psychscore_demo(n_classes=4, sequences_per_pair=2, n_humans=3, seed=0).to_csv(
        folder / "judgements.csv", index=False)
    fa, fb, labels = planted_representations(0.6, n_classes=3, n_per_class=40, n_units=30, seed=2)
    items = np.array([f"img{k:03d}" for k in range(labels.size)])
    save_representation(Representation(fa, items, labels, name="net-a"), folder / "a.npz")
    save_representation(Representation(fb, items, labels, name="net-b"), folder / "b.npz")
    simulate_cue_conflict(seed=3, n_images_per_class=3).to_csv(folder / "cue-conflict.csv", index=False)
    return {"folder": folder, "trials": folder / "trials.csv", "mlds": folder / "mlds.csv",
            "judgements": folder / "judgements.csv", "a": folder / "a.npz", "b": folder / "b.npz",
            "cue_conflict": folder / "cue-conflict.csv"}


def base_argv(command: str, inputs: dict[str, Path]) -> list[str]:
    """The command on the small data, with every shared option at an explicit first value."""
    trials, out = str(inputs["trials"]), str(inputs["folder"] / f"out-{command.replace(' ', '-')}")
    runs = {
        "demo": ["demo", "--resamples", "20", "--out", out],
        "ec": ["ec", trials, "--resamples", "30", "--out", out],
        "benchmark": ["benchmark", trials, "--resamples", "30", "--out", out],
        "dmc": ["dmc", trials, "--resamples", "30", "--out", out],
        "ood": ["ood", trials, "--resamples", "30", "--out", out],
        "dvc choices": ["dvc", "choices", trials, "--resamples", "30", "--out", out],
        "dvc represent": ["dvc", "represent", str(inputs["a"]), str(inputs["b"]), "--pcs", "4", "--splits", "2",
                          "--resamples", "30", "--out", out],
        "mlds": ["mlds", str(inputs["mlds"]), "--resamples", "30"],
        "psychscore": ["psychscore", str(inputs["judgements"]), "--resamples", "30", "--out", out],
        "plan ec": ["plan", "ec", "--trials", "50", "200", "--method", "simulation"],
        "plan dmc": ["plan", "dmc", "--sims", "20", "--observers", "1", "2"],
        "compare": ["compare", trials, "--measure", "ec", "--resamples", "30"],
        "plan compare": ["plan", "compare", "--delta", "0.2", "--trials", "50", "100", "--sets", "20",
                         "--resamples", "50", "--no-exact"],
        "plan design": ["plan", "design", "--task", "classify", "--items", "8", "--participants", "4,6",
                        "--repeats", "1", "--resamples", "30"],
        "shapebias": ["shapebias", str(inputs["cue_conflict"]), "--resamples", "30"],
        "psychometrics": ["psychometrics", trials, "--resamples", "30"],
        "psychfit": ["psychfit", trials, "--resamples", "30", "--experiment", "sim-contrast"],
        "report": ["report", trials, "--resamples", "20", "--analyses", "ec,dmc,dvc",
                   "--out", str(inputs["folder"] / "report.html")],
    }
    argv = runs[command] + ["--seed", "1"]
    argv += [flag for flag in ("--json", "--quiet") if flag in ALL_OPTIONS[command]]
    return argv


# option -> (first value, second value, claim); None values are flags.
OPTION_VALUES = {
    "--seed": (["--seed", "1"], ["--seed", "2"], "intervals"),
    "--resamples": (None, None, "intervals"),      # set per command below (30 vs 60)
    "--level": (["--level", "0.95"], ["--level", "0.5"], "narrower"),
    "--interval": (["--interval", "percentile"], ["--interval", "bca"], "intervals"),
    "--observer-level": (["--observer-level", "none"], ["--observer-level", "bootstrap"], "intervals"),
    "--exclusions": (["--no-exclusions"], ["--exclusions"], "estimates"),   # on by default: undo it first
    "--no-exclusions": ([], ["--no-exclusions"], "estimates"),
}
# Where a command's option claims something else than the default claim above.
CLAIMS = {
    ("demo", "--seed"): "anything",          # the demo simulates its data from the seed too
    ("plan ec", "--seed"): "anything",       # simulated widths
    ("plan dmc", "--seed"): "anything",      # simulated correlations with the truth
    ("plan ec", "--level"): "narrower",
    ("dvc represent", "--seed"): "anything",   # the seed also draws the split halves of the estimate itself
    ("psychscore", "--seed"): "intervals, estimates may move",   # and the random-baseline observer's answers
    # Commands that resample one level only offer the option and refuse any other value, saying so.
    ("dvc represent", "--observer-level"): "refused",
    ("dvc choices", "--observer-level"): "refused",
    ("psychscore", "--observer-level"): "refused",
    ("plan compare", "--seed"): "anything",        # simulated powers
    ("plan compare", "--resamples"): "anything",   # the bootstrap test's power
    ("plan design", "--seed"): "anything",         # simulated studies
    ("plan design", "--resamples"): "anything",    # the interval widths of simulated studies
}


def command_options(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """{command: its options} for every (sub)command of the parser."""
    found: dict[str, list[str]] = {}

    def walk(p, prefix):
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, prefix + [name])
                return
        found[" ".join(prefix)] = [o for a in p._actions for o in a.option_strings]

    walk(parser, [])
    return found


ALL_OPTIONS = command_options(cli.build_parser())
COMMANDS = {c: [o for o in options if o in SHARED] for c, options in ALL_OPTIONS.items()
            if any(o in SHARED for o in options)}
CASES = [(command, option) for command, options in COMMANDS.items() for option in options]


def test_every_command_with_shared_options_is_covered(inputs):
    assert set(COMMANDS) >= {"ec", "benchmark", "dmc", "ood", "dvc choices", "report", "demo", "plan ec"}
    for command in COMMANDS:
        base_argv(command, inputs)   # a KeyError here: a new command needs its small run above


# --- running and reading the outputs --------------------------------------------------------------------------

_runs: dict[tuple[str, ...], bytes] = {}


def run(argv: list[str], fresh: bool = False) -> bytes:
    """The command's output bytes (JSON on stdout; the HTML page for the report), exit code 0 required."""
    key = tuple(argv)
    if key in _runs and not fresh:
        return _runs[key]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = cli.main(list(argv))
    assert code == 0, f"{' '.join(argv)} failed"
    if argv[0] == "report":
        page = Path(argv[argv.index("--out") + 1]).read_text(encoding="utf-8")
        # the creation time and the run time are the only parts of the page that may differ between runs
        output = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC|in \d+\.\d s", "", page).encode()
    else:
        output = stdout.getvalue().encode()
    _runs[key] = output
    return output


def leaves(document, path=()):
    """(path, value) of every number in a JSON document, settings echoes left out."""
    if isinstance(document, dict):
        for key, value in document.items():
            if key not in ECHO:
                yield from leaves(value, path + (str(key),))
    elif isinstance(document, list):
        for k, value in enumerate(document):
            yield from leaves(value, path + (k,))
    elif isinstance(document, (int, float)) and not isinstance(document, bool):
        yield path, float(document)


def named(path) -> str:
    return next(p for p in reversed(path) if isinstance(p, str))


def numbers(output: bytes) -> dict:
    return dict(leaves(json.loads(output)))


def differs(a: dict, b: dict, keep) -> bool:
    keys = [k for k in a if keep(named(k)) and k in b]
    assert keys, "no such numbers in the output"
    return any(not (a[k] == b[k] or (math.isnan(a[k]) and math.isnan(b[k]))) for k in keys)


def total_width(values: dict) -> float:
    width = 0.0
    for path, low in values.items():
        name = named(path)
        match = INTERVAL_KEY.match(name)
        if match and match.group(2) == "low":
            twin = tuple(p if p != name else name[:-3] + "high" for p in path)
            high = values.get(twin)
            if high is not None and np.isfinite(low) and np.isfinite(high):
                width += high - low
    return width


def with_option(argv: list[str], option_argv: list[str]) -> list[str]:
    """argv with the option set (a later value of an option wins in argparse)."""
    return [*argv, *option_argv]


def option_values(command: str, option: str):
    if (command, option) == ("plan compare", "--resamples"):   # it takes at least 50
        return ["--resamples", "50"], ["--resamples", "100"], CLAIMS[(command, option)]
    if option == "--resamples":
        return ["--resamples", "30"], ["--resamples", "60"], CLAIMS.get((command, option), "intervals")
    first, second, claim = OPTION_VALUES[option]
    return first, second, CLAIMS.get((command, option), claim)


# --- the tests -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_same_seed_gives_the_same_bytes(command, inputs):
    argv = base_argv(command, inputs)
    assert run(argv) == run(argv, fresh=True)


@pytest.mark.parametrize("command,option", CASES, ids=[f"{c}:{o}" for c, o in CASES])
def test_each_option_changes_what_it_claims(command, option, inputs):
    first, second, claim = option_values(command, option)
    argv = base_argv(command, inputs)
    if claim == "refused":
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            assert cli.main(with_option(argv, second)) == 2
        assert "error:" in stderr.getvalue() and "observer" in stderr.getvalue().replace("-", "_")
        run(with_option(argv, first))   # the value it takes works
        return
    a, b = run(with_option(argv, first)), run(with_option(argv, second))
    assert a != b, f"{command} {' '.join(second)} changed nothing"
    if command == "report":
        return   # an HTML page: that it changed is what can be checked generically
    x, y = numbers(a), numbers(b)
    if claim == "anything":
        assert differs(x, y, lambda name: True)
    elif claim == "estimates":
        assert differs(x, y, lambda name: name in ESTIMATE_KEYS), f"{option} left every estimate as it was"
    else:
        if claim == "narrower":
            if command == "plan ec":
                assert sum(v for k, v in y.items() if named(k) == "width") < sum(
                    v for k, v in x.items() if named(k) == "width")
                return
            assert total_width(y) < total_width(x), f"{command}: --level 0.5 did not narrow the intervals"
        else:
            assert differs(x, y, lambda name: bool(INTERVAL_KEY.match(name))), f"{option} left the intervals"
        if claim == "intervals, estimates may move":
            return
        same = [k for k in x if named(k) in ESTIMATE_KEYS and k in y]
        moved = [k for k in same if not (x[k] == y[k] or (np.isnan(x[k]) and np.isnan(y[k])))]
        assert not moved, f"{command} {' '.join(second)} moved estimates: {moved[:3]}"


def test_level_narrows_the_single_pair_profile_intervals_on_the_command_line(inputs):
    """One condition: each pair's EC is one 2x2 table with a profile-likelihood interval, which --level sets."""
    argv = ["ec", str(inputs["trials"]), "--experiment", "uniform-noise", "--condition", "0.10", "--resamples", "20",
            "--seed", "1", "--json", "--quiet"]
    wide, narrow = (json.loads(run([*argv, "--level", level]))["pairs"] for level in ("0.95", "0.5"))
    profile = [(w, n) for w, n in zip(wide, narrow) if w["interval_method"] == "profile-likelihood"
               and w["ci_low"] is not None and n["ci_low"] is not None]
    assert len(profile) >= 10
    for w, n in profile:
        assert w["error_consistency"] == n["error_consistency"]
        assert w["ci_low"] <= n["ci_low"] <= n["ci_high"] <= w["ci_high"]
    assert sum(w["ci_high"] - w["ci_low"] for w, _ in profile) > sum(n["ci_high"] - n["ci_low"] for _, n in profile)


@pytest.mark.parametrize("table", [(40, 5, 3, 2), (90, 4, 4, 2), (12, 6, 7, 15)])
def test_the_single_pair_profile_interval_follows_its_level(table):
    from humanlike.measures.ec.interval import ec_profile_contains, ec_profile_interval

    intervals = [ec_profile_interval(*table, level=level) for level in (0.5, 0.8, 0.95, 0.99)]
    lows = [float(i.low) for i in intervals]
    highs = [float(i.high) for i in intervals]
    assert all(i.level == level for i, level in zip(intervals, (0.5, 0.8, 0.95, 0.99)))
    assert lows == sorted(lows, reverse=True) and highs == sorted(highs) and lows[0] > lows[-1] and highs[0] < highs[-1]
    # the endpoints at each level are where the likelihood-ratio test at that level starts to reject
    for interval in intervals:
        inside = float(interval.low + 1e-3 * (interval.high - interval.low))
        assert bool(ec_profile_contains(*table, inside, level=interval.level))
        if interval.low > -1 + 1e-3:
            assert not bool(ec_profile_contains(*table, float(interval.low) - 1e-3, level=interval.level))
