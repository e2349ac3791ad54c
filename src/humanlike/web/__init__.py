"""``humanlike serve``: a web experiment server that collects classification and difference judgements
(docs/run-your-own-experiment.md).

An optional part of the package (``pip install "humanlike[web]"``): nothing outside this subpackage and the
command line's handlers imports it. Importing this package itself is light; the server's dependencies
(Starlette, uvicorn, SQLAlchemy, Alembic) are imported by the modules that use them.
"""

#: The measures' modules the server imports, each by the module that uses it for a method its studies are built
#: on (the reason beside it); tests/test_architecture.py refuses any other. The researcher page's analyses are
#: none of them: it finds them through the measure registry (:mod:`humanlike.web.researcher`).
MEASURE_METHODS = {
    ("humanlike.web.design", "humanlike.measures.mlds.observers"):
        "the triad and quadruple designs a judgement study presents",
    ("humanlike.web.stimuli", "humanlike.measures.psychscore.sequences"): "a study's image sequences, read",
    ("humanlike.web.cli", "humanlike.measures.psychscore.sequences"): "a study's image sequences, read",
    ("humanlike.web.demo", "humanlike.measures.psychscore.sequences"): "the demo study's image sequences, built",
    ("humanlike.web.planning", "humanlike.measures.ec.analysis"):
        "planning a classification study: the interval of its human-human error consistency",
    ("humanlike.web.planning", "humanlike.measures.mlds.analysis"):
        "planning a judgement study: the interval of its pooled difference scale",
    ("humanlike.web.design", "humanlike.measures.compare.discriminating"):
        "design discriminate: each participant's items drawn with the design file's known probabilities",
    ("humanlike.web.discriminate", "humanlike.measures.compare.discriminating"):
        "serve init --design discriminate: the items' probabilities from the models' outcomes",
    ("humanlike.web.adaptive_mlds", "humanlike.measures.mlds.adaptive"):
        "design adaptive: each participant's judgements chosen from the current pooled MLDS fit",
    ("humanlike.web.adaptive_mlds", "humanlike.measures.mlds.fit"):
        "design adaptive: the pooled MLDS fit of the finished participants' judgements, refitted every batch",
    ("humanlike.web.adaptive", "humanlike.measures.compare.discriminating"):
        "design discriminate --adaptive: the study's first design, read from its design file",
    ("humanlike.web.adaptive", "humanlike.measures.compare.design_estimate"):
        "design discriminate --adaptive: each look's pool-level estimate and participants' jackknife",
    ("humanlike.web.adaptive", "humanlike.measures.compare.design_adaptive"):
        "design discriminate --adaptive: the refitted (Neyman) design after each look",
    ("humanlike.web.adaptive_report", "humanlike.measures.compare.discriminating"):
        "design discriminate --adaptive: the design file an export's looks are recomputed from",
}
