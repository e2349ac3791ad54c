"""Reference numbers of the pre-port DMC code: run at commit bd872ce (git worktree add /tmp/old bd872ce;
PYTHONPATH=/tmp/old/src python make_reference.py OUT); the tests read the gzip CSVs made from its output
(columns level, scope, condition, group, metric, estimate, ci_low, ci_high, n)."""
import sys, time, resource
from humanlike.trials.loaders import load_trials
from humanlike.trials.simulate import simulate_benchmark
from humanlike.measures.dmc.analysis import decision_margin_consistency
from humanlike.measures.dmc.analysis import dmc_settings
out = sys.argv[1]
demo = simulate_benchmark(seed=0)
for lvl in ("jackknife", "none", "bootstrap"):
    r = decision_margin_consistency(demo, settings=dmc_settings(n_resamples=2000, seed=0, observer_level=lvl))
    r.summary_table.to_csv(f"{out}/demo_{lvl}.csv", index=False, float_format="%.17g")
r = decision_margin_consistency(demo, settings=dmc_settings(n_resamples=0), method="spearman", dprime=True)
r.summary_table.to_csv(f"{out}/demo_spearman_dprime.csv", index=False, float_format="%.17g")
t0 = time.perf_counter()
real = load_trials(["/work/shared/data/modelvshuman/raw-data", "/work/shared/data/modelvshuman-dmc/raw-data"])
print("load", time.perf_counter() - t0, flush=True)
t0 = time.perf_counter()
r = decision_margin_consistency(real, settings=dmc_settings(n_resamples=2000, seed=0), validate=False)
print("real 2000", time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, flush=True)
r.summary_table.to_csv(f"{out}/real_jackknife.csv", index=False, float_format="%.17g")
r = decision_margin_consistency(real, settings=dmc_settings(n_resamples=0), method="spearman", validate=False)
r.summary_table.to_csv(f"{out}/real_spearman.csv", index=False, float_format="%.17g")
