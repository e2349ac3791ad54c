"""Draw the figures of the measure pages (docs/figures/*.png) from the real data, with the package's plots.

One command, from the repository root:

    HUMANLIKE_SHARED_DATA=path/to/shared/data PYTHONPATH=src python docs/make_figures.py

(default data folder: ``../shared/data`` beside the repository). All figures take about 2.5 minutes of CPU
(measured: EC 5 s, DMC 12 s, OOD 21 s, DVC 38 s, MLDS 1 s, Psychophysical-Score 60 s, loading included).
``--only ec dmc ...`` draws a subset; ``--resamples N`` changes the bootstrap resamples (default 1,000, the
number the captions state); ``--out DIR`` writes elsewhere. Seed 0 throughout, so a rerun redraws the same
figures. Each figure goes through the same plotting function as the CLI's ``--figure`` option; only the
resolution differs (100 dpi here, to keep the committed PNGs small).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SHARED = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data"))
MVH = SHARED / "modelvshuman" / "raw-data"
MVH_DMC = SHARED / "modelvshuman-dmc" / "raw-data"
DPI = 100
# The DMC small multiples: the experiments the DMC page quotes, plus two graded distortions.
DMC_EXPERIMENTS = ["edge", "silhouette", "colour", "sketch", "contrast", "uniform-noise"]


def _save(fig, out: Path, name: str) -> Path:
    """Save at DPI as a 256-colour PNG (a third of the size of full colour, the same to the eye)."""
    from PIL import Image

    path = out / name
    tmp = path.with_suffix(".tmp.png")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    buffer.seek(0)
    palette = Image.open(buffer).convert("RGB").quantize(colors=256, method=Image.Quantize.MAXCOVERAGE,
                                                         dither=Image.Dither.NONE)
    palette.save(tmp, optimize=True)
    tmp.replace(path)
    print(f"  wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
          f"({path.stat().st_size // 1024} KB)", flush=True)
    return path


class Data:
    """The trial tables, loaded once and shared by the figures that need them."""

    def __init__(self):
        self._mvh = self._both = None

    def mvh(self):
        """Humans and the benchmark's nine models."""
        if self._mvh is None:
            from humanlike.trials.loaders import load_trials

            self._mvh = load_trials(MVH)
        return self._mvh

    def both(self):
        """Humans, the nine models and the decision-margin fork's 15 models (with margins)."""
        if self._both is None:
            from humanlike.trials.loaders import load_trials

            self._both = load_trials([MVH, MVH_DMC])
        return self._both


def settings(args):
    """Resampling settings for the analyses without defaults of their own (observer level none)."""
    from humanlike.resampling.settings import ResamplingSettings

    return ResamplingSettings(n_resamples=args.resamples, seed=0)


def figure_ec(data, args):
    """The benchmark: EC per model with intervals and the human band; EC against OOD accuracy."""
    from humanlike.measures.ec.benchmark import run_benchmark
    from humanlike.resampling.settings import ResamplingSettings
    from humanlike.measures.ec.plot import benchmark_figure, ranking_figure

    result = run_benchmark(data.mvh(), settings=ResamplingSettings(n_resamples=args.resamples, seed=0), validate=False)
    return [_save(benchmark_figure(result, "model-vs-human: error consistency with humans"), args.out,
                  "ec_benchmark.png"),
            _save(ranking_figure(result.ranking, "model-vs-human: rank by EC under resampling"), args.out,
                  "ec_ranking.png")]


def figure_dmc(data, args):
    """Model DMC against the human split-half ceiling; EC and DMC against accuracy per experiment."""
    from humanlike.measures.dmc.consistency_accuracy import consistency_vs_accuracy
    from humanlike.measures.dmc.analysis import decision_margin_consistency, dmc_settings
    from humanlike.measures.dmc.plot import consistency_figure, dmc_ranking_figure

    trials = data.both()
    result = decision_margin_consistency(trials, settings=dmc_settings(n_resamples=args.resamples, seed=0),
                                         validate=False)
    files = [_save(dmc_ranking_figure(result, title="model-vs-human + DMC fork: decision-margin consistency "
                                                    "(mean over 17 experiments)"), args.out, "dmc_ranking.png")]
    subset = decision_margin_consistency(trials, experiments=DMC_EXPERIMENTS,
                                         settings=dmc_settings(n_resamples=args.resamples, seed=0), validate=False)
    comparison = consistency_vs_accuracy(trials, experiments=DMC_EXPERIMENTS, dmc_result=subset,
                                         settings=dmc_settings(n_resamples=args.resamples, seed=0))
    files.append(_save(consistency_figure(comparison, ncols=3), args.out, "dmc_consistency.png"))
    return files


def figure_ood(data, args):
    """The OOD spectrum with its regimes, and the alignment along the contrast levels with the regimes."""
    from humanlike.measures.ood.analysis import ood_analysis
    from humanlike.resampling.settings import ResamplingSettings
    from humanlike.measures.ood.plot import distortion_figure, spectrum_figure

    result = ood_analysis(data.mvh(), settings=ResamplingSettings(n_resamples=args.resamples, seed=0))
    return [_save(spectrum_figure(result, "model-vs-human: human-centred OOD spectrum"), args.out,
                  "ood_spectrum.png"),
            _save(distortion_figure(result, "contrast"), args.out, "ood_contrast.png")]


def figure_dvc(data, args):
    """Latent (tetrachoric) correlation of correctness per model, and the probit view on the margins."""
    from humanlike.measures.dvc.choices import latent_correctness_correlation
    from humanlike.measures.dvc.choices_probit import margin_probit_correlation
    from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS
    from humanlike.measures.dvc.plot import benchmark_latent_figure

    trials = data.both()
    tetra = latent_correctness_correlation(trials, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=settings(args),
                                           validate=False)
    probit = margin_probit_correlation(trials, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=settings(args),
                                       validate=False)
    return [_save(benchmark_latent_figure(tetra, probit), args.out, "dvc_latent.png")]


def figure_mlds(data, args):
    """The kk1-kk3 scale of the MLDS vignette (three sessions pooled) with parametric-bootstrap intervals."""
    from humanlike.measures.mlds.analysis import analyse_mlds
    from humanlike.resampling.settings import ResamplingSettings
    from humanlike.trials.judgement_files import load_judgements
    from humanlike.measures.mlds.plot import mlds_scale_figure

    table = load_judgements([SHARED / "mlds" / f"kk{k}.csv" for k in (1, 2, 3)])
    results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=args.resamples, seed=0))
    return [_save(mlds_scale_figure(results, title="MLDS kk1+kk2+kk3: correlation of scatterplots"),
                  args.out, "mlds_kk.png")]


def figure_psych(data, args):
    """Psychophysical-Score on the real silhouettes: simulated people against pixel, Gabor and random."""
    import pandas as pd

    from humanlike.measures.psychscore.analysis import psychophysical_score
    from humanlike.resampling.settings import ResamplingSettings
    from humanlike.measures.mlds.observers import judgements_from_distances, sequence_distances
    from humanlike.measures.psychscore.simulate import simulate_population
    from humanlike.measures.psychscore.sequences import build_sequences, load_object_images
    from humanlike.measures.psychscore.plot import psychscore_figure

    seqs = build_sequences(load_object_images(SHARED / "stimuli" / "filled-silhouettes"))
    judgements = pd.concat([
        simulate_population(seqs.pairs, n_levels=seqs.n_levels, seed=0).judgements,
        judgements_from_distances(sequence_distances(seqs, "pixel"), seqs.pairs, "pixel"),
        judgements_from_distances(sequence_distances(seqs, "gabor"), seqs.pairs, "gabor"),
    ], ignore_index=True)
    result = psychophysical_score(judgements, settings=ResamplingSettings(n_resamples=args.resamples, seed=0))
    title = "Filled silhouettes (120 class pairs): simulated people vs pixel, Gabor, random"
    return [_save(psychscore_figure(result, title=title), args.out, "psychscore_silhouettes.png")]


def figure_mvh(data, args):
    """model-vs-human's report: shape bias per class (humans with intervals over images and humans), and the
    psychometric figure of the contrast experiment."""
    from dataclasses import replace

    from humanlike.measures.psychometrics.analysis import psychometrics
    from humanlike.measures.shapebias.analysis import shape_bias_analysis
    from humanlike.measures.psychometrics.plot import psychometric_figure
    from humanlike.measures.shapebias.plot import shape_bias_figure

    two_level = replace(settings(args), observer_level="bootstrap")
    shape = shape_bias_analysis(data.mvh(), settings=two_level, validate=False)
    curves = psychometrics(data.mvh(), settings=two_level, experiments=["contrast"], validate=False)
    return [_save(shape_bias_figure(shape), args.out, "mvh_shape_bias.png"),
            _save(psychometric_figure(curves, "contrast"), args.out, "mvh_psychometrics_contrast.png")]


def figure_psychfit(data, args):
    """Psychometric functions of the contrast experiment: every model's fitted curve beside the pooled humans'."""
    from dataclasses import replace

    from humanlike.measures.psychfit.analysis import psychometric_fits
    from humanlike.measures.psychfit.plot import psychometric_fit_figure

    result = psychometric_fits(data.mvh(), settings=replace(settings(args), observer_level="bootstrap"),
                               experiments=["contrast"], validate=False)
    return [_save(psychometric_fit_figure(result, "contrast"), args.out, "psychfit_contrast.png")]


FIGURES = {"ec": figure_ec, "dmc": figure_dmc, "ood": figure_ood, "dvc": figure_dvc, "mlds": figure_mlds,
           "psych": figure_psych, "mvh": figure_mvh, "psychfit": figure_psychfit}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(FIGURES), help="draw only these (default: all)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default %(default)s)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures")
    args = parser.parse_args(argv)
    if not MVH.is_dir():
        parser.error(f"no real data at {MVH}; set HUMANLIKE_SHARED_DATA")
    args.out.mkdir(parents=True, exist_ok=True)
    data = Data()
    for name in args.only or FIGURES:
        start = time.process_time(), time.perf_counter()
        print(f"{name} ...", flush=True)
        FIGURES[name](data, args)
        print(f"  {name}: {time.process_time() - start[0]:.1f} s CPU, {time.perf_counter() - start[1]:.1f} s wall",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
