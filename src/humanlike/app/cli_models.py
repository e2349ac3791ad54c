"""``humanlike evaluate``: run vision models on stimuli, write an evaluation folder (valid DATA for every
other command). torch is imported only inside the handler, so building the parser never needs it."""

from __future__ import annotations

from pathlib import Path

from ..measures.options import (add_json_option, add_quiet_option, count, emit_json, output_path, positive_count,
                               require_extra, show_progress)


def register(sub, plan_sub) -> None:
    """Register this module's command (``evaluate``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (unused: nothing to plan).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub)
    >>> sorted(sub.choices)
    ['evaluate', 'plan']
    """
    del plan_sub  # nothing to plan
    parser = sub.add_parser(
        "evaluate", help="run vision models on a folder of images: trials with decision margins, features",
        description="Run each MODEL (torchvision:NAME, timm:NAME, clip:NAME for an open_clip zero-shot classifier "
                    "over class prompts, hf:REPO or hf:FOLDER for a Hugging Face image classifier) on the images "
                    "of STIMULI (a <category>/<image> "
                    "folder, the benchmark's <experiment>/<condition>/... layout, or a manifest CSV) and write "
                    "the trial table (response, correct, decision margin), raw outputs and layer features into "
                    "--out. The folder is then DATA for ec, dmc, ood, ... Needs the models extra: "
                    "pip install humanlike[models].")
    parser.add_argument("inputs", nargs="+", metavar="MODEL... STIMULI",
                        help="one or more models, then the stimulus folder or manifest CSV")
    parser.add_argument("--out", type=output_path, help="evaluation folder to write (merged if present; required unless "
                                                 "--list-layers)")
    parser.add_argument("--list-layers", action="store_true",
                        help="print the layer names of each MODEL that --layers accepts (with their types) and exit; "
                             "no STIMULI needed, nothing downloaded (the architecture is built with random weights "
                             "unless --weights is a file)")
    parser.add_argument("--prompts", type=output_path, metavar="FILE.json",
                        help="clip: models only: {category: [prompt, ...]} (default: six templates such as "
                             "'a photo of a {}.' for each of the 16 categories)")
    parser.add_argument("--experiment", help="experiment name (default: the stimulus folder's name)")
    parser.add_argument("--name", help="observer name for a single MODEL (default: the architecture's name)")
    parser.add_argument("--weights", default="default",
                        help="default (pretrained, from the local cache), none (random init), a torchvision "
                             "weights name, or a local weights file")
    parser.add_argument("--layers", nargs="+", default=[], metavar="L", help="layers whose features to save")
    parser.add_argument("--pool", choices=("flatten", "avg", "max", "cls"), default="flatten",
                        help="how layer activations become one vector per image (default %(default)s)")
    parser.add_argument("--batch-size", type=positive_count, default=64, help="images per forward pass (default %(default)s)")
    parser.add_argument("--num-workers", type=count, default=0,
                        help="image-decoding processes per run (default 0: one background thread)")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N or mps (default %(default)s)")
    parser.add_argument("--precision", choices=("float32", "tf32", "bf16", "fp16"), default="float32",
                        help="float32 (IEEE, agrees with the CPU), tf32 (CUDA tensor cores for float32 "
                             "convolutions and matrix products), bf16 or fp16 (autocast); margins are always "
                             "computed in float32 or wider")
    parser.add_argument("--mapping", default="imagenet16",
                        help="outputs -> categories: imagenet16, identity or a JSON file {category: [indices]}")
    parser.add_argument("--rule", choices=("mean-logit", "mean-probability"), default="mean-logit",
                        help="category score: mean logit (decision-margin paper) or mean probability (benchmark)")
    parser.add_argument("--executor", default="local",
                        help="local, dask (a local cluster) or dask:ADDRESS (an existing scheduler)")
    parser.add_argument("--workers", type=positive_count, default=2, help="local Dask workers (default %(default)s)")
    parser.add_argument("--shard-size", type=positive_count, default=1024, help="images per work unit (default %(default)s)")
    parser.add_argument("--cache-dir", type=Path, help="work-unit cache (default OUT/cache)")
    parser.add_argument("--tensor-cache", action="store_true",
                        help="also cache decoded, preprocessed images (models with the same preprocessing "
                             "then skip decoding; ~0.6 MB per 224x224 image)")
    add_json_option(parser)   # the run's summary
    add_quiet_option(parser)
    parser.set_defaults(handler=run_evaluate_command)


def run_evaluate_command(args) -> int:
    """Handle ``humanlike evaluate`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['evaluate', 'torchvision:resnet18', 'stimuli/', '--out', 'runs/']).handler is run_evaluate_command
    True
    """
    if args.list_layers:
        return list_layers_command(args)
    if len(args.inputs) < 2:
        raise ValueError("give at least one MODEL and then the STIMULI folder or manifest")
    if args.out is None:
        raise ValueError("the following arguments are required: --out")
    from ..files import check_output_folder

    check_output_folder(args.out)  # before torch is imported and any model runs
    require_extra("models", "running models")
    from ..models import evaluate_many, write_evaluation

    *models, stimuli = args.inputs
    prompts = read_prompts(args.prompts) if args.prompts else None
    if prompts is not None and not any(str(m).startswith(("clip:", "open_clip:")) for m in models):
        raise ValueError("--prompts applies to clip: models (zero-shot classifiers); no MODEL is one")
    if args.name and len(models) != 1:
        raise ValueError("--name needs exactly one MODEL")
    if args.name or prompts is not None:
        from ..models import resolve_model

        models = [resolve_model(m, weights=args.weights, name=args.name,
                                prompts=prompts if str(m).startswith(("clip:", "open_clip:")) else None)
                  for m in models]
    results = evaluate_many(
        models, stimuli, experiment=args.experiment, weights=args.weights, layers=args.layers, pool=args.pool,
        batch_size=args.batch_size, num_workers=args.num_workers, device=args.device, precision=args.precision,
        mapping=args.mapping, rule=args.rule, cache_dir=args.cache_dir or args.out / "cache",
        executor=args.executor, workers=args.workers, shard_size=args.shard_size,
        tensor_cache=args.tensor_cache, progress=show_progress(args))
    write_evaluation(results, args.out)
    summary = [{"model": r.model, "experiment": "+".join(sorted(r.trials["experiment"].unique())),
                "trials": len(r.trials), "accuracy": float(r.trials["correct"].mean()),
                "mean_margin": float(r.trials["decision_margin"].mean()), "layers": list(r.features)}
               for r in results]
    if args.json:
        emit_json({"out": str(args.out), "models": summary})
        return 0
    for row in summary:
        print(f"{row['model']:<32} {row['experiment']:<16} {row['trials']:>6} trials  accuracy "
              f"{row['accuracy']:.3f}  mean margin {row['mean_margin']:+.3f}")
    print(f"wrote {args.out}")
    return 0


def read_prompts(path: Path) -> dict[str, list[str]]:
    """The class prompts of a ``--prompts`` file: ``{category: [prompt, ...]}`` (a single string is one prompt).

    Parameters
    ----------
    path : pathlib.Path
        A JSON file.

    Returns
    -------
    dict of str to list of str
        Category -> prompts.

    Raises
    ------
    ValueError
        For a missing file, invalid JSON or another shape; the message names the file.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "prompts.json"
    >>> _ = path.write_text('{"cat": ["a photo of a cat"], "dog": "a dog"}')
    >>> read_prompts(path)
    {'cat': ['a photo of a cat'], 'dog': ['a dog']}
    """
    import json

    if not path.is_file():
        raise ValueError(f"--prompts {path}: no such file")
    try:
        raw = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"--prompts {path}: not valid JSON ({err})") from None
    if not isinstance(raw, dict) or not raw or not all(
            isinstance(v, str) or (isinstance(v, list) and v and all(isinstance(p, str) for p in v))
            for v in raw.values()):
        raise ValueError(f"--prompts {path}: expected {{category: [prompt, ...]}} with at least one prompt each")
    return {str(k): [v] if isinstance(v, str) else list(v) for k, v in raw.items()}


def list_layers_command(args) -> int:
    """Handle ``humanlike evaluate MODEL... --list-layers``: print each model's layer names and types.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (every input is a MODEL).

    Returns
    -------
    int
        0.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> args = build_parser().parse_args(["evaluate", "torchvision:squeezenet1_1", "--list-layers"])
    >>> list_layers_command(args)  # doctest: +ELLIPSIS
    squeezenet1_1 (torchvision:squeezenet1_1)
      features                                    Sequential
      features.0                                  Conv2d
    ...
    0
    """
    require_extra("models", "running models")
    from ..models import resolve_model
    from ..models.weights import WEIGHT_SUFFIXES

    # Layer names do not depend on the weights: random ones, so that nothing is downloaded.
    weights = args.weights if str(args.weights).lower().endswith(WEIGHT_SUFFIXES) else None
    prompts = read_prompts(args.prompts) if args.prompts else None
    for model in args.inputs:
        spec = resolve_model(model, weights=weights,
                             prompts=prompts if str(model).startswith(("clip:", "open_clip:")) else None)
        built = spec.build()
        print(f"{spec.name} ({model})")
        for name, module in built.named_modules():
            if name:
                print(f"  {name:<43} {type(module).__name__}")
    return 0
