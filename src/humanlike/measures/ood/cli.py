"""The ``ood`` command: the human-centred OOD spectrum with error alignment per regime (Xu et al.)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ...files import RunOutputs
from ..options import add_data_options
from ..options import (
    add_output_options, add_resampling_options, emit_json, int_at_least, load_data, positive_count,
    probability, resampling_settings, run_outputs,
)
from ...resampling.settings import ResamplingSettings


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - no planning command for this family
    """Register this module's command (``ood``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (unused: nothing to plan).
    name : str
        The command's name: the registered entry's (``humanlike <name>``, ``humanlike plan <name>``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub, "ood")
    >>> sorted(sub.choices)
    ['ood', 'plan']
    """
    ood = sub.add_parser(
        name, help="human-centred OOD spectrum: OOD scores, regimes, error alignment per regime",
        description="OOD score of every condition (Glass's delta of human logit accuracies against the "
                    "reference conditions), Gaussian-mixture regimes, tests, and the error alignment "
                    "(EC, MA, CLED) of every model with the humans per condition and regime.")
    ood.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_data_options(ood)
    add_resampling_options(ood)
    ood.add_argument("--preset", choices=("default", "paper"), default="default",
                     help="'paper': Xu et al.'s choices (tested family of 65/66 graded conditions, alpha 0.01, plain "
                          "logit, undefined MA = 1, pooled CLED with ln, 'na' as a class, paper regime names); "
                          "options given explicitly still win")
    add_output_options(ood, out_default=None)
    ood.add_argument("--figures", type=Path, help="folder for the figures (PNG)")
    ood.add_argument("--reference", nargs="+", metavar="EXP=COND",
                     help="reference (undistorted) conditions; default: model-vs-human's contrast=c100, "
                          "rotation=0, high-pass=inf, low-pass=0, phase-scrambling=0, "
                          "power-equalisation=0, colour=bw")
    ood.add_argument("--regimes", default="bic", type=_regimes_arg,
                     help="number of regimes: 'bic' (default), 'aicc' or a fixed number")
    ood.add_argument("--max-regimes", type=positive_count, default=4, help="largest number of regimes tried (default 4)")
    ood.add_argument("--alpha", type=probability, default=None, help="level for BH and the chance flags (default 0.05; paper 0.01)")
    ood.add_argument("--mw-variant", choices=("asymptotic", "asymptotic-no-continuity", "exact"),
                     default="asymptotic",
                     help="Mann-Whitney U (two-sided): normal approximation with continuity and tie "
                          "correction (default), without continuity correction, or exact")
    ood.add_argument("--logit-correction", choices=("half", "clip"), default=None,
                     help="logit of accuracies 0/1: 'half' = ln((k+.5)/(n-k+.5)) (default), 'clip' = clip to "
                          "[1/2n, 1-1/2n]")
    ood.add_argument("--families", help="model families: JSON ({model: family} or {family: [models]}) or a "
                                        "JSON file; default: swag-vit, swag-regnety, resnet")
    ood.add_argument("--ma-undefined", choices=("nan", "one"), default=None,
                     help="MA without joint errors: NaN (default) or 1 as in the reference code")
    ood.add_argument("--cled-mixture", choices=("average", "pooled"), default=None,
                     help="CLED mixture: (P+Q)/2 with log2 (default) or the published code's pooled counts, ln")
    ood.add_argument("--observer-resamples", type=int_at_least(0, 20_000), default=500,
                     help="resamples of the human observers for regime stability (default 500)")
    ood.add_argument("--permutations", type=int_at_least(1, 1_000_000), default=9999,
                     help="permutations per test (default 9999; at most 1,000,000, p-values to 1e-6)")
    ood.set_defaults(handler=run_ood_command)


def _regimes_arg(text: str):
    text = str(text).strip().lower()
    if text in ("bic", "aicc"):
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--regimes must be 'bic', 'aicc' or a number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("--regimes must be at least 1")
    return value


def parse_reference(items) -> dict[str, list[str]] | None:
    """``['contrast=c100', 'rotation=0']`` -> ``{'contrast': ['c100'], 'rotation': ['0']}``.

    Parameters
    ----------
    items : list of str or None
        The ``--reference EXPERIMENT=CONDITION`` values (an experiment may be given several times).

    Returns
    -------
    dict or None
        ``{experiment: [conditions]}``; None when no reference was given (the analysis' default).

    Raises
    ------
    ValueError
        For an item without ``=`` or with an empty side.

    Examples
    --------
    >>> parse_reference(["contrast=c100", "rotation=0", "contrast=c50"])
    {'contrast': ['c100', 'c50'], 'rotation': ['0']}
    >>> parse_reference(None) is None
    True
    """
    if not items:
        return None
    out: dict[str, list[str]] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--reference expects EXPERIMENT=CONDITION, got {item!r}")
        exp, cond = item.split("=", 1)
        if not exp or not cond:
            raise ValueError(f"--reference expects EXPERIMENT=CONDITION, got {item!r}")
        out.setdefault(exp.strip(), []).append(cond.strip())
    return out


def parse_families(text: str | None) -> dict[str, str] | None:
    """Families from JSON text or a JSON file: ``{model: family}`` or ``{family: [models]}``.

    Parameters
    ----------
    text : str or None
        The ``--families`` value: a path to a JSON file, or JSON text.

    Returns
    -------
    dict or None
        ``{model: family}``; None when the option was not given.

    Raises
    ------
    ValueError
        When the text is neither a JSON file nor JSON text, or not a JSON object.

    Examples
    --------
    >>> parse_families('{"resnet": ["resnet50", "bagnet33"], "vit-b16": "vit"}')
    {'resnet50': 'resnet', 'bagnet33': 'resnet', 'vit-b16': 'vit'}
    """
    if text is None:
        return None
    path = Path(text)
    raw = path.read_text() if path.is_file() else text
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise ValueError(f"--families is neither a JSON file nor JSON text: {err}") from None
    if not isinstance(data, dict):
        raise ValueError("--families must be a JSON object")
    out: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, list):
            for model in value:
                out[str(model)] = str(key)
        else:
            out[str(key)] = str(value)
    return out


def run_ood_command(args) -> int:
    """Handle ``humanlike ood`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (:func:`humanlike.app.cli.build_parser`).

    Returns
    -------
    int
        The exit code, 0 on success; errors are raised and :func:`humanlike.app.cli.main` turns them
        into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(['ood', 'raw-data/']).handler is run_ood_command
    True
    """
    from .analysis import ood_analysis

    if args.alpha is not None and not 0 < args.alpha < 1:
        raise ValueError(f"--alpha must lie in (0, 1), got {args.alpha}")
    run = run_outputs(args, resampling_settings(args))
    trials = load_data(args.data, args, run, getattr(args, "format", "csv"))
    result = ood_analysis(
        trials, parse_reference(args.reference), settings=resampling_settings(args), preset=args.preset,
        families=parse_families(args.families), regimes=args.regimes, max_regimes=args.max_regimes,
        alpha=args.alpha, mw_variant=args.mw_variant, logit_correction=args.logit_correction,
        n_observer_resamples=args.observer_resamples, n_permutations=args.permutations,
        ma_undefined=args.ma_undefined, cled_mixture=args.cled_mixture,
        validate=False)   # load_data gives a validated table
    doc = result.to_json_dict()
    if args.out is not None:
        write_outputs(result, run, args.format)
        run.json(doc, args.out / "ood.json")
    if args.figures is not None:
        write_figures(result, args.figures, run)
    run.finish()
    if args.json:
        emit_json(doc)
    else:
        print(format_result(result))
    return 0


def write_outputs(result, run, fmt: str) -> list[Path]:
    """The tidy tables of an OOD analysis, written through ``run`` (so they enter its manifest).

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.
    run : RunOutputs or pathlib.Path
        The run's writer, or an output folder (a writer is then made for it).
    fmt : {"csv", "parquet", "json"}
        Table format.

    Returns
    -------
    list of pathlib.Path
        The nine tables written (conditions, observers, normality, regimes, alignment groups and pairs,
        representatives, regime ranking, resampled values).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, demo_reference(trials), settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0,
    ...                       n_permutations=9, regimes=2, n_init=2)
    >>> [p.name for p in write_outputs(result, Path(tempfile.mkdtemp()), "csv")][:3]
    ['ood_conditions.csv', 'ood_observers.csv', 'ood_normality.csv']
    """
    run = run if isinstance(run, RunOutputs) else RunOutputs(run)
    return [
        run.add_table(result.spectrum.conditions, "ood_conditions", fmt),
        run.add_table(result.spectrum.observers, "ood_observers", fmt),
        run.add_table(result.spectrum.normality, "ood_normality", fmt),
        run.add_table(result.spectrum.regime_table(), "ood_regimes", fmt),
        run.add_table(result.alignment.groups, "ood_alignment", fmt),
        run.add_table(result.alignment.pairs, "ood_alignment_pairs", fmt),
        run.add_table(result.alignment.representatives, "ood_representatives", fmt),
        run.add_table(result.alignment.regime_ratios, "ood_regime_ranking", fmt),
        run.add_table(result.resampled.to_frame(), "ood_resampled", fmt),
    ]


def write_figures(result, folder: Path, run: RunOutputs | None = None) -> list[Path]:
    """Spectrum, one alignment figure per distortion type, radar profiles and the CLED embedding.

    Written through ``run`` when given, so they enter its manifest.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.
    folder : pathlib.Path
        Where the PNGs go.
    run : RunOutputs, optional
        The run's writer.

    Returns
    -------
    list of pathlib.Path
        ``ood_spectrum.png``, ``ood_levels_<type>.png`` per distortion type with several levels,
        ``ood_radar.png``, ``ood_cled_mds.png``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, demo_reference(trials), settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0,
    ...                       n_permutations=9, regimes=2, n_init=2)
    >>> [p.name for p in write_figures(result, Path(tempfile.mkdtemp()))][:2]
    ['ood_spectrum.png', 'ood_levels_sim-blur.png']
    """
    from .plot import cled_embedding_figure, distortion_figure, distortion_types, radar_figure, spectrum_figure

    run = RunOutputs(None) if run is None else run
    folder = Path(folder)
    files = [run.figure(_closing(spectrum_figure(result)), folder / "ood_spectrum.png")]
    for experiment in distortion_types(result):   # one figure open at a time: 17 types on the real data
        files.append(run.figure(_closing(distortion_figure(result, experiment)),
                                folder / f"ood_levels_{_safe(experiment)}.png"))
    files.append(run.figure(_closing(radar_figure(result)), folder / "ood_radar.png"))
    files.append(run.figure(_closing(cled_embedding_figure(result)), folder / "ood_cled_mds.png"))
    return files


class _closing:
    """Pass a figure to save_figure and close it afterwards (many figures in one run)."""

    def __init__(self, fig):
        self.fig = fig

    def savefig(self, *a, **kw):
        import matplotlib.pyplot as plt

        try:
            self.fig.savefig(*a, **kw)
        finally:
            plt.close(self.fig)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)


def _f(x, digits=2) -> str:
    return "   nan" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _p(x) -> str:
    if x is None or not np.isfinite(x):
        return "nan"
    if x == 0:
        return "<1e-300"
    return f"{x:.3f}" if x >= 0.001 else f"{x:.0e}"


def format_result(result) -> str:
    """A readable report: reference, regimes, the per-condition table, rankings per regime, tests.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Returns
    -------
    str
        The plain-text report ``humanlike ood`` prints.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, demo_reference(trials), settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0,
    ...                       n_permutations=9, regimes=2, n_init=2)
    >>> print(format_result(result).splitlines()[0])
    reference: sim-blur=0, sim-contrast=100, sim-noise=0.00, sim-rotation=0 (16 observer values; logit mean 1.62, SD 0.36)
    """
    sp = result.spectrum
    fit = sp.regimes
    c = sp.conditions
    level = int(round(result.settings.get("level", 0.95) * 100))
    ref = ", ".join(f"{e}={'/'.join(cs)}" for e, cs in sp.reference.items())
    lines = [f"reference: {ref} ({int(c.loc[c['is_reference'], 'n_humans'].sum())} observer values; "
             f"logit mean {sp.reference_mean:.2f}, SD {sp.reference_sd:.2f})"]
    norm = sp.normality.set_index(["scale", "test"])["p_value"]
    lines.append("normality of the reference (p): accuracy " + ", ".join(
        f"{t} {_p(norm.get(('accuracy', t)))}" for t in ("shapiro", "dagostino", "lilliefors"))
        + "; logit " + ", ".join(f"{t} {_p(norm.get(('logit', t)))}" for t in ("shapiro", "dagostino", "lilliefors")))
    crit = fit.criterion if fit.criterion != "fixed" else "fixed by the user"
    lines.append(f"regimes ({fit.n_components}, {crit}): " + "; ".join(
        f"{n} mean {m:.2f} (SD {s:.2f}, {int((c['regime_label'] == i).sum())} conditions)"
        for i, (n, m, s) in enumerate(zip(fit.names, fit.means, fit.sds))))
    lines.append("")
    head = (f"{'experiment':<19}{'condition':<11}{'acc':>6}{'OOD score':>10} {level}% CI{'':<9}{'regime':<12}"
            f"{'stab.':>6}{'boot':>6}{'MW p_adj':>10}{'binom p_adj':>12}  chance")
    lines.append(head)
    for r in c.itertuples():
        ci = f"[{_f(r.ood_score_low, 1)}, {_f(r.ood_score_high, 1)}]"
        mark = "*" if r.is_reference else " "
        lines.append(f"{r.experiment:<19}{(r.condition + mark):<11}{r.human_accuracy:>6.3f}{_f(r.ood_score):>10} "
                     f"{ci:<16}{r.regime:<12}{_f(r.init_stability):>6}{_f(r.bootstrap_stability):>6}"
                     f"{_p(r.mannwhitney_p_adjusted):>10}{_p(r.binomial_p_adjusted):>12}  "
                     f"{'AT CHANCE' if r.at_chance else ''}")
    lines.append("(* reference condition; stab. = share of mixture initialisations, boot = share of observer "
                 "resamples keeping the regime)")
    rr = result.alignment.regime_ratios
    reps = result.alignment.representatives
    for name in fit.names:
        sub = rr[rr["regime"] == name]
        if sub.empty:
            continue
        rs = reps[reps["regime"] == name]
        lines.append("")
        lines.append(f"{name}: alignment ratio = (EC+MA with humans) / (EC+MA among humans), mean over "
                     f"{len(rs)} representative conditions: "
                     + ", ".join(f"{e} {cc}" for e, cc in zip(rs["experiment"], rs["condition"])))
        base, n_ch = sub["human_baseline"].iloc[0], int(sub["n_at_chance"].iloc[0])
        lines.append(f"  human baseline ½(EC+MA) {_f(base, 3)}" + (
            f"; {n_ch} of {len(rs)} representatives at chance: humans share little error structure there, "
            "so the ratio is unstable" if n_ch else ""))
        lines.append(f"  {'rank':<12}{'model':<26}{'family':<14}{'ratio':>7}  {level}% CI{'':<10}{'P(best)':>8}")
        for r in sub.itertuples():
            rank = f"{r.rank:.0f} [{_f(r.rank_low, 0)}-{_f(r.rank_high, 0)}]"
            lines.append(f"  {rank:<12}{r.model:<26}{r.family:<14}{_f(r.ratio):>7}  "
                         f"[{_f(r.ratio_low)}, {_f(r.ratio_high)}]{'':<4}{_f(r.probability_best):>8}")
    ft, rt = result.family_test, result.regime_test
    lines.append("")
    lines.append(f"alignment profiles closer within model families: between - within distance "
                 f"{_f(ft.statistic, 3)}, permutation p {_p(ft.p_value)}" + (f" ({ft.reason})" if ft.reason else ""))
    lines.append(f"human error structure (CLED between conditions) tighter within regimes than random groupings: "
                 f"Cohen's d {_f(rt.observed, 3)} (within distortion type minus within regime), "
                 f"{_f(rt.statistic, 3)} above its permutation-null mean (> 0: tighter within regimes than "
                 f"regime labels shuffled over conditions), permutation p {_p(rt.p_value)}"
                 + (f" ({rt.reason})" if rt.reason else ""))
    n_tests = sp.settings.get("n_tests")
    lines.append(f"tests: {n_tests} conditions in the family (reference conditions are not tested); "
                 f"preset {result.settings.get('preset', 'default')}; resampling {result.settings.get('resampling')}")
    return "\n".join(lines)


# --- demo -------------------------------------------------------------------------------------------

def demo_reference(trials) -> dict[str, list[str]]:
    """Reference conditions for simulated data: each experiment's least distorted level.

    For the built-in simulated experiments that is the level with the largest d' multiplier (1.0); for
    other experiments the level where the humans are most accurate.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table with human observers.

    Returns
    -------
    dict
        ``{experiment: [condition]}``, the reference for :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> demo_reference(trials)
    {'sim-blur': ['0'], 'sim-contrast': ['100'], 'sim-noise': ['0.00'], 'sim-rotation': ['0']}
    """
    from ...trials.simulate import DEFAULT_EXPERIMENTS

    out = {}
    humans = trials[trials["observer_kind"] == "human"]
    for experiment, rows in humans.groupby("experiment"):
        levels = DEFAULT_EXPERIMENTS.get(experiment)
        present = set(rows["condition"].unique())
        if levels and set(levels) >= present:
            out[experiment] = [max((c for c in present), key=lambda c: levels[c])]
        else:
            out[experiment] = [str(rows.groupby("condition")["correct"].mean().idxmax())]
    return out


