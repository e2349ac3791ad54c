"""The parsed-data cache: same table as parsing, never stale, can be switched off."""

from __future__ import annotations

import pandas as pd
import pytest

from humanlike.trials import cache
from humanlike.trials.loaders import load_trials


def _raw_tree(root, response="cat"):
    folder = root / "raw-data" / "edge"
    folder.mkdir(parents=True)
    for observer, answer in (("subject-01", "cat"), ("subject-02", response), ("resnet50", "dog")):
        pd.DataFrame({"subj": observer, "session": 1, "trial": [1, 2], "rt": [0.5, 0.6],
                      "object_response": [answer, "dog"], "category": ["cat", "dog"], "condition": "0",
                      "imagename": [f"000{k}_edg_s01_0_{c}_00_{c}{k}.png" for k, c in ((1, "cat"), (2, "dog"))]}
                     ).to_csv(folder / f"edge_{observer}_session-1.csv", index=False)
    return root / "raw-data"


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_CACHE, str(folder))
    return folder


def test_cached_table_equals_the_parsed_one(tmp_path, cache_dir):
    data = _raw_tree(tmp_path)
    parsed = load_trials(data, cache=False)
    first = load_trials(data)
    assert len(list(cache_dir.glob("trials-*.parquet"))) == 1
    again = load_trials(data)
    pd.testing.assert_frame_equal(parsed, first)
    pd.testing.assert_frame_equal(parsed, again)


def test_a_changed_file_is_never_read_from_the_cache(tmp_path, cache_dir):
    data = _raw_tree(tmp_path)
    before = load_trials(data)
    # Same size, same name, different bytes ("cat" -> "dog" for subject-02's first answer).
    path = data / "edge" / "edge_subject-02_session-1.csv"
    text = path.read_text()
    path.write_text(text.replace("subject-02,1,1,0.5,cat", "subject-02,1,1,0.5,dog"))
    after = load_trials(data)
    assert before["correct"].sum() - 1 == after["correct"].sum()
    assert len(list(cache_dir.glob("trials-*.parquet"))) == 2
    # options are part of the key too
    assert cache.source_key([data], {"a": 1}) != cache.source_key([data], {"a": 2})


def test_switched_off_and_unwritable(tmp_path, monkeypatch):
    data = _raw_tree(tmp_path)
    monkeypatch.setenv(cache.ENV_CACHE, "off")
    assert cache.cache_dir() is None
    calls = []
    table = cache.cached_table([data], {}, lambda: calls.append(1) or pd.DataFrame({"x": [1]}))
    assert calls == [1] and table["x"].tolist() == [1]
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(cache.ENV_CACHE, str(blocker))
    # a cache that cannot be written only costs speed
    pd.testing.assert_frame_equal(load_trials(data), load_trials(data, cache=False))


def test_the_same_bytes_under_another_path_name_the_path_they_were_read_from(tmp_path, cache_dir):
    """The table says where its rows came from; a cached table must not name where a copy was read before
    (a CI checkout at another path once got this machine's paths back from a shared cache)."""
    import shutil

    from humanlike.trials.loaders import load_trials_with_sources

    here = _raw_tree(tmp_path / "here")
    there = tmp_path / "there" / "raw-data"
    shutil.copytree(here, there)
    _, first = load_trials_with_sources(here)
    _, second = load_trials_with_sources(there)
    assert set(first["source"]) == {str(here)}
    assert set(second["source"]) == {str(there)}
