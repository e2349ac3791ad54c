"""docs/your-model-against-the-benchmark.md, run as written (issue 24): every ``$ humanlike ...`` line and
every Python block of the page, in order, in a checkout folder beside ``../shared/data`` laid out as the shared
data are (``modelvshuman/raw-data`` is the real benchmark data, ``stimuli/edges`` two real edge images per
category). Steps marked **needs
weights** on the page run with ``--weights none`` (random weights: nothing can be downloaded here), except
where even the architecture must come from a hub, which must fail with its clear offline error."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from pathlib import Path

import pytest
from models_helpers import require_torch

torch = require_torch()

from humanlike.app.cli import main  # noqa: E402

PAGE = Path(__file__).resolve().parents[2] / "docs" / "your-model-against-the-benchmark.md"
INSTALL = ["pip install torch --index-url https://download.pytorch.org/whl/cpu", 'pip install -e ".[models]"']
# Commands whose real weights cannot be had here: what the test runs instead.
RANDOM_WEIGHTS = {"--weights IMAGENET1K_V1": "--weights none", "--weights openai": "--weights none"}
NEEDS_A_HUB = ("hf:google/vit-base-patch16-224",)   # even random weights need the config from the hub


def page_steps() -> list[tuple[str, str]]:
    """(kind, text) of the page's console lines and Python blocks, in page order."""
    steps = []
    for lang, body in re.findall(r"```(console|python)\n(.*?)```", PAGE.read_text(), flags=re.S):
        if lang == "python":
            steps.append(("python", body))
        else:
            steps += [("console", line[2:].strip()) for line in body.splitlines() if line.startswith("$ ")]
    return steps


@pytest.fixture()
def workspace(tmp_path, modelvshuman_dir, shared_data, monkeypatch):
    data = tmp_path / "shared" / "data"      # the page's ../shared/data, seen from the checkout
    (data / "modelvshuman").mkdir(parents=True)
    (data / "modelvshuman" / "raw-data").symlink_to(modelvshuman_dir)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for category in sorted(p for p in (shared_data / "stimuli" / "edges").iterdir() if p.is_dir()):
        target = data / "stimuli" / "edges" / category.name
        target.mkdir(parents=True)
        for image in sorted(category.iterdir())[:2]:
            shutil.copyfile(image, target / image.name)
    import torchvision

    torch.save(torchvision.models.resnet18().state_dict(), checkout / "my_resnet18.pth")  # "your weights"
    monkeypatch.chdir(checkout)
    return checkout


def test_the_page_lists_what_the_test_runs():
    steps = page_steps()
    console = [text for kind, text in steps if kind == "console"]
    assert console[:2] == INSTALL
    assert sum(kind == "python" for kind, _ in steps) == 2 and len(console) >= 9
    assert "**needs weights**" in PAGE.read_text()


def test_every_command_of_the_page(workspace, capsys):
    namespace: dict = {}
    ran = []
    for kind, text in page_steps():
        if kind == "python":
            with contextlib.redirect_stdout(io.StringIO()) as out:
                exec(compile(text, str(PAGE), "exec"), namespace)  # noqa: S102 - the page's own code
            ran.append(("python", out.getvalue()))
            continue
        if text in INSTALL:
            continue  # installing is the reader's job; this environment has the packages
        argv = shlex.split(text)
        assert argv[0] == "humanlike", text
        if "evaluate" in argv and "--list-layers" not in argv:
            line = " ".join(argv)
            for real, random in RANDOM_WEIGHTS.items():
                line = line.replace(real, random)
            argv = shlex.split(line)
            if "--weights" not in argv:
                argv += ["--weights", "none"]
        argv += ["--quiet"] if argv[1] in ("evaluate", "report", "benchmark", "ec") and "--list-layers" not in argv else []
        if argv[1] in ("benchmark", "ec", "report"):
            argv += ["--resamples", "20"]
        code = main(argv[1:])
        captured = capsys.readouterr()
        if any(name in argv for name in NEEDS_A_HUB):
            assert code == 2 and "huggingface-cli download google/vit-base-patch16-224" in captured.err, captured.err
        else:
            assert code == 0, (text, captured.err)
        ran.append((text, captured.out))
    outputs = dict(ran)
    # what the page promises, on what the commands wrote
    assert (workspace / "runs" / "edge" / "evaluation.json").is_file()
    assert (workspace / "runs" / "mine" / "trials.csv").is_file()
    ec = outputs["humanlike ec ../shared/data/modelvshuman/raw-data runs/edge runs/mine --experiment edge"]
    assert "resnet50@edge" in ec and "my-resnet18" in ec and "\n  resnet50 " in ec
    board = outputs["humanlike benchmark ../shared/data/modelvshuman/raw-data runs/edge --out leaderboard"]
    assert "resnet50@edge †" in board and "--experiment edge" in board
    assert (workspace / "leaderboard" / "sources.csv").is_file()
    assert "layer4.2.conv3" in outputs["humanlike evaluate torchvision:resnet50 --list-layers"]
    html = (workspace / "report.html").read_text()
    assert 'data-table="sources"' in html and "my-resnet18" in html
    check = ran[-1][1]
    assert re.search(r"same answer on \d+\.\d% of the images; accuracy 0\.\d{3} vs published 0\.\d{3}", check), check
