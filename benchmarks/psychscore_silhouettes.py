"""End-to-end Psychophysical-Score on the real filled silhouettes (16 classes, 120 class pairs).

Blend sequences (10 best Jaccard pairs per class pair, 7 levels), machine observers (pixel, Gabor,
random, and random-weight torchvision networks cut at an early and a middle layer), a simulated human
population (the default reference), the scores with bootstrap intervals. Every observer's judgements
are saved as soon as they exist (``OUT/judgements/<observer>.parquet``), so a long network run can be
resumed. One command:

    PYTHONPATH=src python benchmarks/psychscore_silhouettes.py /path/to/shared/data/stimuli/filled-silhouettes OUT
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

from humanlike.measures.psychscore.analysis import psychophysical_score
from humanlike.measures.mlds.observers import judgements_from_distances, random_judgements, sequence_distances
from humanlike.measures.psychscore.simulate import simulate_population
from humanlike.measures.psychscore.sequences import build_sequences, load_object_images, write_sequences
from humanlike.resampling.settings import ResamplingSettings

NETWORKS = {"torchvision:alexnet": ["features.2", "features.7"], "torchvision:resnet18": ["layer1", "layer2"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("images", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--classes", nargs="*")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--networks", nargs="*", default=list(NETWORKS))
    args = parser.parse_args()
    out = args.out
    jdir = out / "judgements"
    jdir.mkdir(parents=True, exist_ok=True)
    timings = {}
    t = time.perf_counter()
    seqs = build_sequences(load_object_images(args.images, classes=args.classes))
    if not (out / "sequences" / "manifest.csv").exists():
        write_sequences(seqs, out / "sequences")
    timings["sequences"] = time.perf_counter() - t
    print(f"{len(seqs.pairs)} sequences in {timings['sequences']:.1f} s", flush=True)

    def save(name, make):
        path = jdir / f"{name.replace('/', '__')}.parquet"
        if path.exists():
            return
        t0 = time.perf_counter()
        make().to_parquet(path)
        timings[name] = time.perf_counter() - t0
        print(f"{name}: {timings[name]:.1f} s", flush=True)

    save("humans", lambda: simulate_population(seqs.pairs, n_levels=seqs.n_levels, seed=0).judgements)
    save("pixel", lambda: judgements_from_distances(sequence_distances(seqs, "pixel"), seqs.pairs, "pixel"))
    save("gabor", lambda: judgements_from_distances(sequence_distances(seqs, "gabor"), seqs.pairs, "gabor"))
    save("random", lambda: random_judgements(seqs.pairs, seqs.n_levels))
    for model in args.networks:
        from humanlike.models.observer import network_judgements

        arch = model.split(":")[-1]
        save(arch, lambda m=model: network_judgements(m, out / "sequences", NETWORKS[m], weights=None,
                                                      batch_sequences=60))
    judgements = pd.concat([pd.read_parquet(p) for p in sorted(jdir.glob("*.parquet"))], ignore_index=True)
    t = time.perf_counter()
    result = psychophysical_score(judgements, settings=ResamplingSettings(n_resamples=args.resamples, seed=0))
    timings["score"] = time.perf_counter() - t
    print(result.to_wide().to_string(), flush=True)
    print(result.chance.to_string(), flush=True)
    doc = result.to_json_dict()
    doc["timings_s"] = timings
    (out / "psychscore.json").write_text(json.dumps(doc, indent=1, default=str))
    result.scales.to_csv(out / "scales.csv", index=False)
    print(json.dumps(timings, indent=1))


if __name__ == "__main__":
    main()
