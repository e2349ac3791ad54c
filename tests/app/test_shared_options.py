"""One set of flags: every command's parser spells each shared idea the same way, with the same default,
type and help (declared once in humanlike.measures.options); where a command differs, the reason is declared
here or in ``RESAMPLES_DEFAULT_EXCEPTIONS``. And ``benchmark``/``demo`` pass every resampling option on to
their decision-margin-consistency rows."""

from __future__ import annotations

import argparse

import pandas as pd
import pytest

from humanlike.app.cli import build_parser, main
from humanlike.measures.options import RESAMPLES_DEFAULT_EXCEPTIONS

SHARED = ("--resamples", "--level", "--seed", "--interval", "--observer-level", "--exclusions", "--memory-budget",
          "--workers", "--out", "--format", "--json", "--quiet")

# (command, flag) -> why it differs from the shared definition (a different idea, so it must say so)
DIFFERENT_ON_PURPOSE = {
    ("demo", "--out"): "the demo always writes: default folder humanlike-out",
    ("report", "--out"): "one HTML file, not a folder",
    ("sequences", "--out"): "required: the sequence folder to write",
    ("evaluate", "--out"): "required: the evaluation folder to write (merged if present)",
    ("evaluate", "--workers"): "local Dask workers of the model evaluation (torch extra), not engine threads",
    ("export", "--out"): "one table file (the study's trial or judgement table), not a folder",
    ("serve", "--workers"): "uvicorn worker processes of the experiment server, not engine threads",
    ("serve run", "--workers"): "uvicorn worker processes of the experiment server, not engine threads",
    ("plan design", "--resamples"): "the bootstrap of each simulated study (default 200)",
    ("plan compare", "--resamples"): "the bootstrap of each of hundreds of simulated data sets (default 400)",
}
# commands that resample trials of the model-vs-human benchmark take --exclusions; these do not, because
NO_EXCLUSIONS = {
    "ood": "the spectrum needs every condition: the exclusion table drops the undistorted reference conditions",
    "demo": "simulated data, no model-vs-human conditions",
    "plan compare": "simulated data sets, no model-vs-human conditions",
    "plan design": "simulated studies, no model-vs-human conditions",
    "shapebias": "cue-conflict trials only, which the exclusion table does not touch",
    "psychometrics": "accuracy and entropy at every condition, as model-vs-human's psychometric figures show them",
    "psychfit": "a psychometric function needs every stimulus level the experiment tested",
    "dvc represent": "representation files, not trials",
    "mlds": "judgement files, not trials",
    "psychscore": "judgement files, not trials",
}


def _commands(parser=None, name=""):
    parser = parser or build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield name, parser
    for action in subs:
        for sub_name, sub in action.choices.items():
            yield from _commands(sub, f"{name} {sub_name}".strip())


def _spec(action):
    kind = getattr(action.type, "__name__", None) if action.type is not None else None
    return (action.default, kind, tuple(action.choices) if action.choices else None, action.help,
            type(action).__name__, action.metavar)


def test_every_shared_flag_is_spelled_with_one_default_type_and_help():
    seen: dict[str, dict] = {flag: {} for flag in SHARED}
    commands = dict(_commands())
    assert {"ec", "benchmark", "dmc", "ood", "dvc choices", "mlds", "psychscore", "report", "demo"} <= set(commands)
    for name, parser in commands.items():
        actions = {o: a for a in parser._actions for o in a.option_strings}
        for flag in SHARED:
            if flag in actions and (name.split()[-1], flag) not in DIFFERENT_ON_PURPOSE \
                    and (name, flag) not in DIFFERENT_ON_PURPOSE:
                spec = _spec(actions[flag])
                if flag == "--resamples" and name in RESAMPLES_DEFAULT_EXCEPTIONS:
                    assert spec[0] == RESAMPLES_DEFAULT_EXCEPTIONS[name][0]
                    spec = (None, *spec[1:])
                elif flag == "--resamples":
                    spec = (None, *spec[1:])
                    assert actions[flag].default == 10_000, name
                seen[flag].setdefault(spec[:1] + spec[3:5], []).append(name)
    for flag, variants in seen.items():
        assert len(variants) <= 1, f"{flag} differs between commands: {variants}"
    # the older spellings are gone
    for name, parser in commands.items():
        options = {o for a in parser._actions for o in a.option_strings}
        assert not options & {"--bootstrap", "--table"}, name


def test_exclusions_are_offered_on_by_default_wherever_trials_of_the_benchmark_are_resampled():
    for name, parser in _commands():
        actions = {o: a for a in parser._actions for o in a.option_strings}
        if "--resamples" not in actions or name in NO_EXCLUSIONS:
            continue
        assert "--exclusions" in actions and "--no-exclusions" in actions, name
        assert actions["--exclusions"].default is True, name


def test_mlds_says_resamples_and_out(tmp_path, capsys):
    args = build_parser().parse_args(["mlds", "kk1.csv", "--resamples", "20", "--out", str(tmp_path)])
    assert args.resamples == 20 and args.out == tmp_path
    with pytest.raises(SystemExit):
        build_parser().parse_args(["mlds", "kk1.csv", "--bootstrap", "20"])
    capsys.readouterr()


@pytest.fixture(scope="module")
def margin_trials(tmp_path_factory, demo_trials):
    path = tmp_path_factory.mktemp("bench") / "trials.csv"
    trials = demo_trials[demo_trials["experiment"].isin(["sim-blur"])]
    assert trials["decision_margin"].notna().any()
    trials.to_csv(path, index=False)
    return path


def _dmc_rows(folder):
    rows = pd.read_csv(folder / "benchmark.csv")
    return rows[rows["metric"] == "decision_margin_consistency"].reset_index(drop=True)


@pytest.mark.parametrize("option", [["--observer-level", "none"], ["--interval", "bca"]])
def test_benchmark_dmc_rows_follow_the_users_resampling_options(margin_trials, tmp_path, option, capsys):
    base = ["benchmark", str(margin_trials), "--resamples", "60", "--seed", "2", "--quiet"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert main([*base, *option, "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    a, b = _dmc_rows(tmp_path / "a"), _dmc_rows(tmp_path / "b")
    assert len(a) > 0 and (a["estimate"] == b["estimate"]).all()
    assert not (a[["ci_low", "ci_high"]].to_numpy() == b[["ci_low", "ci_high"]].to_numpy()).all(), option


@pytest.mark.parametrize("command", ["benchmark", "demo"])
def test_memory_budget_and_workers_reach_the_dmc_rows(command, margin_trials, tmp_path, monkeypatch, capsys):
    import humanlike.measures.dmc.analysis as dmc_analysis

    seen = []
    real = dmc_analysis.decision_margin_consistency

    def spy(*args, **kwargs):
        seen.append(kwargs["settings"])
        return real(*args, **kwargs)

    monkeypatch.setattr(dmc_analysis, "decision_margin_consistency", spy)
    # the demo's latent-correlation section takes items only, so its observer level stays DMC's own (jackknife)
    data, level = ([str(margin_trials)], ["--observer-level", "bootstrap"]) if command == "benchmark" else ([], [])
    assert main([command, *data, "--resamples", "20", "--quiet", "--workers", "1", "--memory-budget", "1.5", *level,
                 "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    wanted = "bootstrap" if level else "jackknife"
    assert seen and all(s.workers == 1 and s.memory_budget == int(1.5 * 1024**3) and s.observer_level == wanted
                        for s in seen)
