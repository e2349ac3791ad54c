"""``humanlike serve init --design discriminate --models RUNS --compare A B``: a study whose items are drawn where
two models' outcomes differ, with known probabilities (docs/designs-that-decide.md).

The models' trials (``humanlike evaluate`` folders, raw-data folders or trial files) on the study's stimuli give
each candidate item both models' outcomes (and, with ``--measure dmc``, their decision margins);
:func:`humanlike.measures.compare.discriminating.design_from_trials` turns them into inclusion probabilities, which
are written to ``STUDY/discriminate.csv`` (key ``design_file``; ``margin_a``, ``margin_b`` for DMC).
The server then draws each participant's main trials from that file, ``trials_per_participant / C`` of each of
the ``C`` conditions, from the stream ``stream(seed, "discriminating-design", slot)``: the same draw as
``ItemDesign.sample(seed, slot)``, so the export analyses offline with
:func:`humanlike.measures.compare.design_estimate.estimate_difference` (EC) or
:func:`humanlike.measures.compare.design_estimate_dmc.estimate_dmc_difference` (DMC). Stimuli without both models'
outputs are not candidates (never shown as main trials).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..measures.compare.discriminating import SCORED_MEASURES, design_from_trials, margin_columns

DESIGN_FILE = "discriminate.csv"


def positive_floor(text: str) -> float:
    """``--floor``: a finite number above 0 (every item keeps a probability above 0).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        For anything else.

    Examples
    --------
    >>> positive_floor("0.2")
    0.2
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number above 0, got {text!r}")
    return value


positive_floor.bad_examples = ("x", "nan", "inf", "0", "-1")


def add_discriminate_options(init: argparse.ArgumentParser) -> None:
    """Add ``--models``, ``--compare``, ``--measure`` and ``--floor`` to ``serve init`` (and the adaptive design's
    options, :func:`humanlike.web.adaptive_settings.add_adaptive_options`).

    Parameters
    ----------
    init : argparse.ArgumentParser
        The ``serve init`` parser.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_discriminate_options(parser)
    >>> parser.parse_args(["--models", "runs", "--compare", "a", "b"]).compare
    ['a', 'b']
    """
    init.add_argument("--models", nargs="+", type=Path, metavar="RUNS",
                      help="design discriminate: the models' trials on the stimuli (`humanlike evaluate` folders, "
                           "raw-data folders or trial files)")
    init.add_argument("--compare", nargs=2, metavar=("A", "B"),
                      help="design discriminate: the two models whose differing outcomes choose the items")
    init.add_argument("--measure", choices=SCORED_MEASURES, default=None,
                      help="design discriminate: the disagreement that chooses the items: 'ec' (default; where one "
                           "model errs and the other does not) or 'dmc' (where the models' decision margins, "
                           "standardised within each condition, differ most; needs the models' decision_margin)")
    init.add_argument("--floor", type=positive_floor, default=None,
                      help="design discriminate: added to every item's score (0 or 1) before drawing, > 0 so that "
                           "every item keeps a probability above 0 (default 0.2)")
    from .adaptive_settings import add_adaptive_options

    add_adaptive_options(init)   # --adaptive, --batch, --max-participants, --alpha, --spending


def discriminating_study(args, config, study: Path):
    """The config of a ``discriminate`` study, its design file written; other designs are returned unchanged
    (and refuse the discriminate options).

    Parameters
    ----------
    args : argparse.Namespace
        The ``serve init`` command line.
    config : humanlike.web.config.StudyConfig
        The study being created (its stimuli readable).
    study : pathlib.Path
        The study folder.

    Returns
    -------
    humanlike.web.config.StudyConfig

    Raises
    ------
    ValueError
        When an option does not apply, a model is missing, the models answered none of the stimuli, or the
        trials per participant do not divide evenly over the conditions.

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> config = StudyConfig(title="t", task="triads", stimuli=".")
    >>> args = argparse.Namespace(models=None, compare=None, measure=None, floor=None, adaptive=False)
    >>> discriminating_study(args, config, Path(".")) is config
    True
    """
    measure = getattr(args, "measure", None)
    given = [name for name, value in (("--models", args.models), ("--compare", args.compare),
                                      ("--measure", measure), ("--floor", args.floor)) if value is not None]
    from .adaptive_settings import adaptive_study

    config = adaptive_study(args, config)   # --adaptive and its settings (refused without design discriminate)
    if config.design != "discriminate":
        if given:
            raise ValueError(f"{', '.join(given)} apply with --design discriminate only")
        return config
    measure = measure or SCORED_MEASURES[0]   # the default: EC
    margins = margin_columns(measure)          # DMC: the design file keeps both models' margins
    if margins and config.adaptive:
        raise ValueError("--adaptive refits and tests the EC difference; with --measure dmc serve the fixed design "
                         "(without --adaptive) and estimate the DMC difference from the export "
                         "(docs/designs-that-decide.md)")
    if args.models is None or args.compare is None:
        raise ValueError("--design discriminate needs --models RUNS (the models' trials on the stimuli) and "
                         "--compare A B")
    from ..files import atomic_write_text
    from ..measures.options import load_data
    from .stimuli import read_stimuli

    keys = ["experiment", "condition", "item"]
    stimuli = read_stimuli(config, study)[keys].astype(str).drop_duplicates()
    trials = load_data(list(args.models))
    if margins and "decision_margin" not in trials.columns:
        raise ValueError(f"--measure dmc needs the models' decision margins (column decision_margin, as `humanlike "
                         f"evaluate` writes it); the trials in {', '.join(str(p) for p in args.models)} have none")
    trials = trials.astype({k: str for k in keys}).merge(stimuli, on=keys, how="inner")
    if trials.empty:
        raise ValueError(f"the models' trials in {', '.join(str(p) for p in args.models)} answer none of the study's "
                         "stimuli (experiment, condition, item)")
    conditions = trials[["experiment", "condition"]].drop_duplicates().shape[0]
    per = config.trials_per_participant // config.repeats
    if per % conditions:
        raise ValueError(f"--per-participant {config.trials_per_participant} does not divide over the {conditions} "
                         f"condition(s) of the candidate items: give a multiple of {conditions * config.repeats}")
    design = design_from_trials(trials, *args.compare, design="discriminating", per_condition=per // conditions,
                                floor=0.2 if args.floor is None else args.floor, measure=measure)
    study.mkdir(parents=True, exist_ok=True)
    columns = [*keys, "correct_a", "correct_b", *margins, "score", "probability"]
    atomic_write_text(study / DESIGN_FILE, design.pool[columns].to_csv(index=False))
    config.design_file = DESIGN_FILE
    return config
