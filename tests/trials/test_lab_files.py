"""Data from the field's experiment tools (jsPsych, JATOS, PsychoPy/Pavlovia, lab.js) read through a declared
mapping (issue 33). The files are written here the way each tool writes them, from the tools' documented
formats: jsPsych's ``data.get().json()``/``.csv()`` (trial objects with ``trial_type``, ``trial_index``,
``time_elapsed``, ``internal_node_id``, ``rt`` in ms or null), JATOS' data-only export and results archive
(``study_result_<id>/comp-result_<id>/data.txt``), PsychoPy's per-session CSV (loop columns ``<loop>.thisN`` ...,
keyboard ``<name>.keys/.corr/.rt``, ``participant``, ``expName``), lab.js' CSV (``sender``, ``duration``, ...)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest

from humanlike.trials.lab_files import LabMapping, LabMappingError, lab_trials, read_lab_frames
from humanlike.trials.loaders import load_trials

ITEMS = [(f"stimuli/img{k:02d}.png", label, condition)
         for k, (label, condition) in enumerate([("cat", "low"), ("dog", "low"), ("cat", "high"), ("dog", "high")] * 3)]


def answers(seed: int) -> list[str]:
    """A participant's responses: right on two thirds of the items (known, so correctness can be checked)."""
    rng = np.random.default_rng(seed)
    return [label if rng.random() < 0.67 else ("dog" if label == "cat" else "cat") for _, label, _ in ITEMS]


def jspsych_records(subject: str, seed: int) -> list[dict]:
    records = [{"trial_type": "html-keyboard-response", "trial_index": 0, "time_elapsed": 2100,
                "internal_node_id": "0.0-0.0", "rt": 2050, "stimulus": "<p>Welcome</p>", "response": " ",
                "subject": subject},
               {"trial_type": "image-button-response", "trial_index": 1, "time_elapsed": 3900,
                "internal_node_id": "0.0-1.0", "rt": 800, "stimulus": "stimuli/practice.png", "response": "cat",
                "task": "practice", "correct_response": "cat", "condition": "low", "subject": subject}]
    for k, ((stimulus, label, condition), response) in enumerate(zip(ITEMS, answers(seed))):
        timed_out = k == 5
        records.append({"trial_type": "image-button-response", "trial_index": k + 2, "time_elapsed": 5000 + 900 * k,
                        "internal_node_id": f"0.0-2.0-0.{k}", "rt": None if timed_out else 600 + 10 * k,
                        "stimulus": stimulus, "response": None if timed_out else response, "task": "main",
                        "correct_response": label, "condition": condition, "subject": subject})
    return records


JSPSYCH = LabMapping.for_tool("jspsych", label="correct_response", condition="condition",
                              keep={"trial_type": ["image-button-response"]}, drop={"task": ["practice"]},
                              experiment_value="cats-and-dogs")


def expected(seed: int) -> list[bool]:
    out = [response == label for response, (_, label, _) in zip(answers(seed), ITEMS)]
    out[5] = False     # the timed-out trial: no answer counts as wrong
    return out


def test_jspsych_json_and_csv_give_the_same_trials(tmp_path):
    records = jspsych_records("S1", 1)
    (tmp_path / "S1.json").write_text(json.dumps(records))
    pd.DataFrame.from_records(records).to_csv(tmp_path / "S1.csv", index=False)   # what .csv() holds
    from_json = lab_trials(tmp_path / "S1.json", JSPSYCH)
    from_csv = lab_trials(tmp_path / "S1.csv", JSPSYCH)
    assert len(from_json) == len(ITEMS)                                  # instructions and practice left out
    assert from_json["correct"].tolist() == expected(1)
    assert from_json["response"].iloc[5] == "na" and np.isnan(from_json["rt"].iloc[5])
    assert from_json["rt"].iloc[0] == pytest.approx(0.6)                 # ms -> s
    assert from_json["condition"].tolist() == [c for _, _, c in ITEMS]
    pd.testing.assert_frame_equal(from_json, from_csv)


def test_jatos_archive_one_participant_per_study_result(tmp_path):
    archive = tmp_path / "jatos_results.jzip"
    with zipfile.ZipFile(archive, "w") as z:
        for study_result, seed in ((11, 1), (12, 2)):
            # two components per participant: consent (no trials) and the experiment
            z.writestr(f"study_result_{study_result}/comp-result_{study_result * 10}/data.txt",
                       json.dumps([{"trial_type": "consent", "response": "yes"}]) + "\n")
            z.writestr(f"study_result_{study_result}/comp-result_{study_result * 10 + 1}/data.txt",
                       json.dumps(jspsych_records("", seed)) + "\n")
    mapping = LabMapping.for_tool("jatos", label="correct_response", condition="condition",
                                  keep={"trial_type": ["image-button-response"]}, drop={"task": ["practice"]})
    trials = load_trials(archive, mapping=mapping)
    assert sorted(trials["observer"].unique()) == ["study_result_11", "study_result_12"]
    by_observer = trials.groupby("observer", observed=True)["correct"].apply(list)
    assert by_observer["study_result_11"] == expected(1) and by_observer["study_result_12"] == expected(2)


def test_jatos_data_only_export_needs_the_participant_column(tmp_path):
    path = tmp_path / "jatos_results_data.txt"
    path.write_text("\n".join(json.dumps(jspsych_records(s, seed)) for s, seed in (("S1", 1), ("S2", 2))) + "\n")
    with pytest.raises(LabMappingError, match="jatos_results_data.txt: a JATOS data-only export holds several "
                                              "component results.*mapping key 'observer'"):
        lab_trials(path, JSPSYCH)
    trials = lab_trials(path, LabMapping(**{**JSPSYCH.to_dict(), "observer": "subject"}))
    assert trials.groupby("observer")["correct"].apply(list).to_dict() == {"S1": expected(1), "S2": expected(2)}


def psychopy_csv(participant: str, seed: int) -> pd.DataFrame:
    """A PsychoPy session file: a practice loop, then the trials loop; keys f/j; corrAns holds the key."""
    key = {"cat": "f", "dog": "j"}
    rows = [{"image": "stimuli/practice.png", "corrAns": "f", "contrast": "high", "practice.thisRepN": 0,
             "practice.thisTrialN": 0, "practice.thisN": 0, "practice.thisIndex": 0, "key_resp.keys": "f",
             "key_resp.corr": 1, "key_resp.rt": 0.912}]
    for k, ((stimulus, label, condition), response) in enumerate(zip(ITEMS, answers(seed))):
        rows.append({"image": stimulus, "corrAns": key[label], "contrast": condition, "trials.thisRepN": 0,
                     "trials.thisTrialN": k, "trials.thisN": k, "trials.thisIndex": k, "key_resp.keys": key[response],
                     "key_resp.corr": int(response == label), "key_resp.rt": 0.5 + k / 100})
    frame = pd.DataFrame(rows)
    for column, value in (("participant", participant), ("session", "001"), ("date", "2026-11-28_10h00.00.000"),
                          ("expName", "catsdogs"), ("psychopyVersion", "2024.2.4"), ("frameRate", 60.0)):
        frame[column] = value
    return frame


PSYCHOPY = LabMapping.for_tool("psychopy", item="image", label="corrAns", condition="contrast",
                               experiment="expName", responses={"f": "cat", "j": "dog"},
                               drop={"practice.thisN": ["*"]})


def test_psychopy_session_files(tmp_path):
    for participant, seed in (("P01", 1), ("P02", 2)):
        psychopy_csv(participant, seed).to_csv(tmp_path / f"{participant}_catsdogs_2026-11-28.csv", index=False)
    trials = load_trials(tmp_path, mapping=PSYCHOPY)
    assert set(trials["observer"]) == {"P01", "P02"} and set(trials["experiment"]) == {"catsdogs"}
    assert trials[trials["observer"] == "P02"]["correct"].tolist() == [
        r == label for r, (_, label, _) in zip(answers(2), ITEMS)]
    assert set(trials["label"]) == {"cat", "dog"}                       # keys translated to labels
    assert trials["rt"].iloc[0] == pytest.approx(0.5)                    # seconds stay seconds


def test_psychopy_correct_column_that_disagrees_is_an_error_naming_the_line(tmp_path):
    frame = psychopy_csv("P01", 1)
    frame.loc[3, "key_resp.corr"] = 1 - frame.loc[3, "key_resp.corr"]
    path = tmp_path / "P01.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(LabMappingError, match=r"P01.csv: column 'key_resp.corr' \(mapping key 'correct'\) "
                                              r"disagrees .* in 1 row\(s\), first at line 5"):
        lab_trials(path, PSYCHOPY)


def test_labjs_csv(tmp_path):
    rows = [{"sender": "Instructions", "sender_type": "html.Screen", "response": "continue", "duration": 5012,
             "ended_on": "response", "correct": "", "stimulus": "", "label": ""}]
    for (stimulus, label, condition), response in zip(ITEMS, answers(3)):
        rows.append({"sender": "Trial", "sender_type": "canvas.Screen", "response": response,
                     "duration": 700, "ended_on": "response", "correct": str(response == label).lower(),
                     "stimulus": stimulus, "label": label, "blur": condition})
    pd.DataFrame(rows).to_csv(tmp_path / "labjs-data.csv", index=False)
    mapping = LabMapping.for_tool("labjs", condition="blur", keep={"sender": ["Trial"]})
    trials = lab_trials(tmp_path / "labjs-data.csv", mapping)
    assert trials["correct"].tolist() == [r == label for r, (_, label, _) in zip(answers(3), ITEMS)]
    assert trials["observer"].unique().tolist() == ["labjs-data"]


def test_a_mapping_that_does_not_fit_names_file_key_and_column(tmp_path):
    path = tmp_path / "S1.json"
    path.write_text(json.dumps(jspsych_records("S1", 1)))
    with pytest.raises(LabMappingError, match=r"S1.json: mapping key 'label' names column 'Correct_Response', "
                                              r"which the file does not have \(did you mean 'correct_response'\?\)"):
        lab_trials(path, LabMapping(**{**JSPSYCH.to_dict(), "label": "Correct_Response"}))
    with pytest.raises(LabMappingError, match=r"S1.json: no row left after the mapping's keep"):
        lab_trials(path, LabMapping(**{**JSPSYCH.to_dict(), "keep": {"trial_type": ["image-keyboard-response"]}}))
    bad = tmp_path / "broken.json"
    bad.write_text('[{"stimulus": "a.png",')
    with pytest.raises(LabMappingError, match="broken.json: not valid JSON"):
        lab_trials(bad, JSPSYCH)


def test_mapping_file_errors_name_the_file_and_key(tmp_path):
    path = tmp_path / "mapping.toml"
    path.write_text('tool = "psychopy"\nitems = "image"\n')
    with pytest.raises(LabMappingError, match=r"mapping.toml: unknown mapping key\(s\) \['items'\]"):
        LabMapping.from_file(path)
    path.write_text('tool = "eprime"\n')
    with pytest.raises(LabMappingError, match="mapping.toml: mapping key 'tool': expected one of"):
        LabMapping.from_file(path)


def test_the_command_line_reads_psychopy_files_through_a_mapping_file(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for participant, seed in (("P01", 1), ("P02", 2), ("P03", 4)):
        psychopy_csv(participant, seed).to_csv(data / f"{participant}.csv", index=False)
    mapping = tmp_path / "mapping.toml"
    mapping.write_text('tool = "psychopy"\nitem = "image"\nlabel = "corrAns"\ncondition = "contrast"\n'
                       'experiment = "expName"\n[responses]\nf = "cat"\nj = "dog"\n[drop]\n"practice.thisN" = ["*"]\n')
    done = subprocess.run([sys.executable, "-m", "humanlike", "ec", str(data), "--mapping", str(mapping),
                           "--resamples", "50", "--seed", "0", "--json", "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    trials = load_trials(data, mapping=LabMapping.from_file(mapping))
    assert len(trials) == 3 * len(ITEMS)
    assert any(row.get("group") == "humans" for row in doc["summary"])


def test_read_lab_frames_refuses_what_is_not_there(tmp_path):
    with pytest.raises(LabMappingError, match="no such file or folder"):
        read_lab_frames(tmp_path / "missing.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(LabMappingError, match="empty.csv: the file is empty"):
        read_lab_frames(tmp_path / "empty.csv")
