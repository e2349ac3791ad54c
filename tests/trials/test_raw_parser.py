"""The fast raw-data parser (pyarrow) gives the table of the reference parser (pandas), on the real data and
on files that pyarrow could read differently (these go through pandas); a cached table equals a cold parse."""

from __future__ import annotations

import pandas as pd
import pytest

from humanlike.trials import cache
from humanlike.trials.loaders import load_trials
from humanlike.trials.raw_data import load_raw_data
from humanlike.trials.schema import TrialTableError

HEADER = "subj,session,trial,rt,object_response,category,condition,imagename"


def _outcome(paths, parser):
    try:
        return load_raw_data(paths, parser=parser)
    except (TrialTableError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        return f"{type(err).__name__}: {err}"


def _same(paths):
    arrow, pandas = _outcome(paths, "arrow"), _outcome(paths, "pandas")
    if isinstance(pandas, str):
        assert arrow == pandas
    else:
        assert not isinstance(arrow, str), arrow
        pd.testing.assert_frame_equal(arrow, pandas, check_exact=True)
    return arrow


def test_real_data_same_table_as_the_pandas_parser(modelvshuman_dir, dmc_dir):
    # Two experiments of both folders: resnet50 clashes between them (margins preferred), the humans' and
    # models' image names are aligned, the fork's files carry margins and extra columns.
    paths = [modelvshuman_dir / "contrast", modelvshuman_dir / "edge", dmc_dir / "contrast", dmc_dir / "edge"]
    table = _same(paths)
    assert table["decision_margin"].notna().any() and (table["observer_kind"] == "human").any()


def test_cold_parse_equals_the_cached_table_on_real_data(modelvshuman_dir, dmc_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_CACHE, str(tmp_path))
    paths = [modelvshuman_dir / "sketch", dmc_dir / "sketch"]
    cold = load_trials(paths, cache=False)
    written = load_trials(paths)
    assert len(list(tmp_path.glob("trials-*.parquet"))) == 1
    read_back = load_trials(paths)
    pd.testing.assert_frame_equal(cold, written, check_exact=True)
    pd.testing.assert_frame_equal(cold, read_back, check_exact=True)


def _tree(root, bodies: dict[str, bytes]):
    folder = root / "raw-data" / "edge"
    folder.mkdir(parents=True)
    for observer, body in bodies.items():
        (folder / f"edge_{observer}_session-1.csv").write_bytes(body)
    return root / "raw-data"


def _rows(observer, answers=("cat", "dog"), extra=""):
    lines = [HEADER + extra]
    for k, (answer, label) in enumerate(zip(answers, ("cat", "dog")), start=1):
        lines.append(f"{observer},1,{k},0.5,{answer},{label},0,000{k}_edg_s01_0_{label}_00_{label}{k}.png")
    return lines


@pytest.mark.parametrize("case", ["plain", "bom", "short-row", "long-row", "quoted-newline", "latin-1",
                                  "duplicate-column", "missing-column", "crlf", "blank-lines", "spaces",
                                  "bad-numbers", "empty-file", "header-only"])
def test_odd_files_give_what_the_pandas_parser_gives(tmp_path, case):
    human = _rows("subject-01")
    model = _rows("resnet50", answers=("cat", "cat"))
    if case == "bom":
        body = ("\ufeff" + "\n".join(human) + "\n").encode("utf-8")
    elif case == "short-row":
        body = ("\n".join(human + ["subject-01,1,3,0.5,cat"]) + "\n").encode()
    elif case == "long-row":
        body = ("\n".join(human[:2] + [human[2] + ",surplus"]) + "\n").encode()
    elif case == "quoted-newline":
        body = ("\n".join(human[:2] + [human[2].replace(",0,", ',"0\n",')]) + "\n").encode()
    elif case == "latin-1":
        body = ("\n".join(human).replace("cat,cat", "chat\xe9,cat") + "\n").encode("latin-1")
    elif case == "duplicate-column":
        body = ("\n".join([human[0] + ",trial"] + [r + ",9" for r in human[1:]]) + "\n").encode()
    elif case == "missing-column":
        body = ("\n".join(",".join(r.split(",")[:-1]) for r in human) + "\n").encode()
    elif case == "crlf":
        body = ("\r\n".join(human) + "\r\n").encode()
    elif case == "blank-lines":
        body = ("\n".join(human[:2] + ["", human[2], ""]) + "\n").encode()
    elif case == "spaces":
        body = ("\n".join([" " + human[0].replace(",", " , ")] + [r.replace(",cat,", ", cat ,") for r in human[1:]])
                + "\n").encode()
    elif case == "bad-numbers":
        body = ("\n".join(human[:2] + [human[2].replace(",2,0.5,", ",two,NaN,")]) + "\n").encode()
    elif case == "empty-file":
        body = b""
    elif case == "header-only":
        body = (human[0] + "\n").encode()
    else:
        body = ("\n".join(human) + "\n").encode()
    data = _tree(tmp_path, {"subject-01": body, "resnet50": ("\n".join(model) + "\n").encode()})
    _same(data)


def test_unknown_parser_is_refused(tmp_path):
    with pytest.raises(ValueError, match="parser"):
        load_raw_data(tmp_path, parser="polars")
