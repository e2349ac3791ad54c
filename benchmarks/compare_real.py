"""Which differences between models are resolved on the real benchmark (docs/compare_results.md).

EC: model-vs-human raw data (9 models); DMC: its humans with the decision-margin fork's 15 models. Both with
the benchmark's exclusion table (the convention Brain-Score's Geirhos et al. benchmarks use too), seed 0.
Writes docs/compare_results.md and the figures docs/figures/compare_ec.png, compare_dmc.png.

    PYTHONPATH=src python benchmarks/compare_real.py [--ec-resamples 10000] [--dmc-resamples 5000]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

from humanlike.measures.compare.adapters import compare
from humanlike.measures.dmc.analysis import decision_margin_consistency
from humanlike.measures.ec.analysis import DEFAULT_SETTINGS as EC_DEFAULT_SETTINGS, error_consistency
from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS
from humanlike.trials.loaders import load_trials
from humanlike.measures.compare.plot import comparison_figure
from humanlike.resampling.settings import ResamplingSettings

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data"))


def _f(v, digits=3):
    return "n/a" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def pairs_table(comparison) -> list[str]:
    pairs = comparison.pairs
    boot = pairs[pairs["test"].str.startswith("paired bootstrap")]
    lines = ["| model A | model B | A - B | interval | p | p (Holm) | resolved |", "|---|---|---:|---|---:|---:|:---:|"]
    for r in boot.itertuples(index=False):
        lines.append(f"| {r.model_a} | {r.model_b} | {r.difference:+.3f} | [{r.ci_low:+.3f}, {r.ci_high:+.3f}] | "
                     f"{r.p_value:.4f} | {r.p_adjusted:.4f} | {'yes' if r.resolved else 'no'} |")
    return lines


def scores_table(raw, ceiled, brainscore=None) -> list[str]:
    head = "| rank | model | score | interval | letters | score / ceiling | interval |"
    sep = "|---:|---|---:|---|:---:|---:|---|"
    if brainscore is not None:
        head += " Brain-Score ceiled | interval |"
        sep += "---:|---|"
    lines = [head, sep]
    c = ceiled.scores.set_index("model")
    b = None if brainscore is None else brainscore.scores.set_index("model")
    for r in raw.scores.itertuples(index=False):
        row = (f"| {r.rank} | {r.model} | {r.estimate:.3f} | [{_f(r.ci_low)}, {_f(r.ci_high)}] | {r.letters} | "
               f"{c.loc[r.model, 'normalised']:.3f} | [{_f(c.loc[r.model, 'normalised_low'])}, "
               f"{_f(c.loc[r.model, 'normalised_high'])}] |")
        if b is not None:
            row += (f" {b.loc[r.model, 'normalised']:.3f} | [{_f(b.loc[r.model, 'normalised_low'])}, "
                    f"{_f(b.loc[r.model, 'normalised_high'])}] |")
        lines.append(row)
    return lines


def ceiling_lines(comparison) -> list[str]:
    f = comparison.to_frame()
    mc = f[f["comparison"] == "model vs ceiling"]
    cc = f[f["comparison"] == "ceiling vs chance"].iloc[0]
    c = comparison.ceiling
    below = int((mc["resolved"] & (mc["difference"] < 0)).sum())
    return [f"Human ceiling {c['estimate']:.3f} [{_f(c['ci_low'])}, {_f(c['ci_high'])}]; against chance (0): "
            f"p = {cc['p_value']:.4f} ({'resolved' if cc['resolved'] else 'not resolved'}). "
            f"{below} of {len(mc)} models are resolved below the ceiling "
            f"(Holm over the {len(mc)} models); closest: {mc.iloc[int(np.argmax(mc['difference']))]['model_a']} "
            f"at {mc['difference'].max():+.3f}."]


def section(name, comparison, ceiled, brainscore, figure) -> list[str]:
    pairs = comparison.pairs
    boot = pairs[pairs["test"].str.startswith("paired bootstrap")]
    n_res = int(boot["resolved"].sum())
    lines = [f"## {name}", "",
             f"{n_res} of {len(boot)} pairs resolved (paired bootstrap, Holm over all {len(boot)} pairs, alpha "
             f"0.05, {comparison.settings['n_resamples']} paired resamples).", "", *ceiling_lines(comparison), "",
             f"![{name}: models by score with intervals, the human ceiling band, compact letters and "
             f"resolved-pair bars](figures/{figure})", "", "### Scores", "",
             *scores_table(comparison, ceiled, brainscore), "", "### Every pair", "", *pairs_table(comparison), ""]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ec-resamples", type=int, default=10_000)
    parser.add_argument("--dmc-resamples", type=int, default=5_000)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "compare_results.md")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", category=RuntimeWarning)
    started = time.perf_counter()
    mvh = DATA / "modelvshuman" / "raw-data"
    trials = load_trials(mvh)
    ec = error_consistency(trials, exclusions=MODELVSHUMAN_EXCLUSIONS, validate=False,
                           settings=replace(EC_DEFAULT_SETTINGS, n_resamples=args.ec_resamples, seed=0))
    ec_cmp = compare(ec)
    ec_ceiled = compare(ec, normalise="ceiling")
    ec_bs = compare(ec, normalise="brainscore")
    comparison_figure(ec_cmp).savefig(ROOT / "docs" / "figures" / "compare_ec.png", dpi=110)
    t_ec = time.perf_counter() - started
    combined = load_trials([mvh, DATA / "modelvshuman-dmc" / "raw-data"])
    dmc = decision_margin_consistency(combined, exclusions=MODELVSHUMAN_EXCLUSIONS, validate=False,
                                      settings=ResamplingSettings(n_resamples=args.dmc_resamples, seed=0,
                                                                  observer_level="jackknife"))
    dmc_cmp = compare(dmc)
    dmc_ceiled = compare(dmc, normalise="ceiling")
    comparison_figure(dmc_cmp).savefig(ROOT / "docs" / "figures" / "compare_dmc.png", dpi=110)
    seconds = time.perf_counter() - started
    lines = ["# Which differences are resolved on the real benchmark", "",
             "<!-- generated by benchmarks/compare_real.py: do not edit by hand -->", "",
             f"Produced by `PYTHONPATH=src python benchmarks/compare_real.py --ec-resamples {args.ec_resamples} "
             f"--dmc-resamples {args.dmc_resamples}` in {seconds:.0f} s (EC {t_ec:.0f} s) on a shared 2-core "
             "machine. Both measures with the benchmark's exclusion table, seed 0; EC items resampled with the "
             "human observers fixed (`--observer-level none`, the `humanlike ec` default) and each model's score "
             "with EC's own interval (jackknife-t); differences and p-values from the paired replicates; DMC with "
             "the observer jackknife (`humanlike dmc`'s default). Definitions: [compare](compare.md).", "",
             *section("Error consistency (model-vs-human, 9 models)", ec_cmp, ec_ceiled, ec_bs, "compare_ec.png"),
             *section("Decision-margin consistency (decision-margin fork, 15 models)", dmc_cmp, dmc_ceiled, None,
                      "compare_dmc.png")]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out} in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
