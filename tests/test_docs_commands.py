"""Every command on every documentation page runs as written (issue 33).

The ``bash`` and ``console`` blocks of ``docs/*.md`` and ``docs/measures/*.md`` are read as a reader would
paste them: ``$`` prompts and comments dropped, ``\\`` continuations joined, ``&&`` chains split. The pages'
commands run in the checkout's folder with the shared data beside it (``../shared/data``). Each command is
one of three kinds, and a command of no kind fails the test:

* **executed** (:data:`EXECUTED`): run through the real command line, in page order, in a checkout folder
  beside the shared data, and must exit 0. These take seconds of CPU.
* **parsed** (every other ``humanlike`` command: the whole benchmark at 10,000 resamples, the demo, a model
  evaluation that needs weights or a GPU, a server): parsed with the real argparse parser (an unknown option
  or a bad value fails), and every input path it names must exist — in the checkout, in the shared data, or
  written by an earlier command of the same page — unless :data:`READERS_FILES` lists it as a file the page
  tells the reader to bring.
* **set-up** (``pip``, ``python3 -m venv``, ``pytest``, ``apt-get``, ``createuser`` ...): not run; a ``pip
  install`` must install the checkout (``-e .`` with extras that pyproject.toml declares), since humanlike is
  not on PyPI.

docs/your-model-against-the-benchmark.md is also run as a whole, with models, by
tests/models/test_docs_your_model.py.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

from humanlike.app.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("docs/measures/*.md")])
SHARED = "../shared/data/"

#: Commands run for real, in page order (fast: seconds of CPU each on the real data).
EXECUTED = {
    "humanlike sequences ../shared/data/stimuli/filled-silhouettes --out sequences/ --levels 7 "
    "--classes airplane bear cat",
    "humanlike psychscore --sequences sequences/ --observers pixel gabor random --simulate-humans 10 "
    "--resamples 1000 --seed 0 --figure fig.png --out psychscore/",
    "humanlike psychometrics ../shared/data/modelvshuman/raw-data --experiment contrast --no-consistency",
    "humanlike shapebias ../shared/data/modelvshuman/raw-data/cue-conflict --scope knife",
}
#: Inputs a page's commands read that no command of the page writes: the reader's own lab export and the
#: mapping shown on docs/formats.md; the files the Python blocks of the models page and the walk-through write.
READERS_FILES = {"docs/formats.md": {"data/", "mapping.toml"},
                 # the stimulus manifest the page's Python block writes (the walk-through's step 1)
                 "docs/run-your-own-experiment.md": {"edge-vs-silhouette.csv"},
                 "docs/your-model-against-the-benchmark.md": {"runs/mine"}}
#: Options whose value is a file or folder the command writes.
OUTPUT_OPTIONS = {"--out", "--figure", "--figures", "--db"}
SETUP = ("pip", "python3", "python", "pytest", "sudo", "apt-get", "git", "cd", ".", "source")
FILE_SUFFIXES = (".csv", ".json", ".toml", ".parquet", ".pth", ".png", ".html", ".txt")


def page_commands(page: Path) -> list[str]:
    """The commands of a page's bash/console blocks, one string each, in page order."""
    commands = []
    for lang, body in re.findall(r"```(bash|console|sh|shell)\n(.*?)```", page.read_text(), flags=re.S):
        text = body.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip()
            if lang == "console":
                if not line.startswith("$ "):
                    continue                 # output shown on the page
                line = line[2:]
            words = shlex.split(line, comments=True)
            if not words:
                continue
            for part in " ".join(shlex.quote(w) if w != "&&" else w for w in words).split(" && "):
                commands.append(part.strip())
    return commands


def looks_like_path(word: str) -> bool:
    if word.startswith("-") or "://" in word or "=" in word or word.startswith("{"):
        return False
    if re.match(r"^[a-z]+:", word):          # a model named by its library: torchvision:resnet50, hf:org/name
        return False
    return "/" in word or word.endswith(FILE_SUFFIXES)


def input_paths(argv: list[str]) -> tuple[list[str], list[str]]:
    """(inputs, outputs) named by a ``humanlike`` command line."""
    inputs, outputs = [], []
    words = list(argv)
    if ">" in words:                          # a redirection writes its target
        outputs.append(words[words.index(">") + 1])
        words = words[:words.index(">")]
    previous = ""
    for word in words[1:]:
        if previous in OUTPUT_OPTIONS:
            outputs.append(word)
        elif looks_like_path(word):
            inputs.append(word)
        previous = word
    if words[1:3] == ["serve", "init"]:      # `serve init FOLDER` makes the study folder
        outputs.append(words[3])
    return inputs, outputs


def exists(path: str, shared: Path, made: set[str], page: Path) -> bool:
    if path.rstrip("/") in {m.rstrip("/") for m in made}:
        return True
    if path in READERS_FILES.get(str(page.relative_to(ROOT)), ()):
        return True
    if path.startswith(SHARED):
        return (shared / path[len(SHARED):]).exists()
    return (ROOT / path).exists()


def check_setup(command: str) -> None:
    words = shlex.split(command)
    if words[0] != "pip" or words[1] != "install":
        return
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for word in words[2:]:
        if word.startswith("humanlike"):
            pytest.fail(f"{command!r}: humanlike is not on PyPI; install the checkout (pip install -e '.[...]')")
        if word.startswith(".["):
            asked = set(word[2:-1].split(","))
            assert asked <= extras, f"{command!r}: no such extra {sorted(asked - extras)}"


def test_the_pages_have_commands_of_every_kind():
    commands = [c for page in PAGES for c in page_commands(page)]
    assert EXECUTED <= set(commands), sorted(EXECUTED - set(commands))
    assert sum(c.startswith("humanlike ") for c in commands) >= 20


@pytest.mark.realdata
def test_every_command_on_every_page(shared_data, tmp_path, monkeypatch, capsys):
    checkout = tmp_path / "checkout"          # the pages' commands run in the checkout, the data beside it
    checkout.mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data)
    monkeypatch.chdir(checkout)
    parser = build_parser()
    executed, parsed, setup = [], [], []
    for page in PAGES:
        made: set[str] = set()
        for command in page_commands(page):
            argv = shlex.split(command)
            if argv[0] != "humanlike":
                assert argv[0] in SETUP, f"{page.name}: {command!r} is neither humanlike nor a set-up step"
                check_setup(command)
                setup.append(command)
                continue
            inputs, outputs = input_paths(argv)
            if command in EXECUTED:
                assert main(argv[1:]) == 0, command
                capsys.readouterr()
                executed.append(command)
            else:
                words = argv[1:argv.index(">")] if ">" in argv else argv[1:]
                try:
                    parser.parse_args(words)
                except SystemExit:
                    pytest.fail(f"{page.name}: {command!r} does not parse: {capsys.readouterr().err}")
                parsed.append(command)
                missing = [p for p in inputs if not exists(p, shared_data, made, page)]
                assert not missing, f"{page.name}: {command!r} names missing inputs {missing}"
            made.update(outputs)
    assert len(executed) == len(EXECUTED)
    print(f"\ndocs commands: {len(executed)} executed, {len(parsed)} parsed, {len(setup)} set-up steps checked")


def test_the_checks_notice_a_broken_command(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text('```bash\nhumanlike ec data.csv --nope && pip install "humanlike[models]"  # a comment\n```\n'
                    "```console\n$ humanlike benchmark raw/ \\\n    --out board/\nsome output\n```\n")
    commands = page_commands(page)
    assert commands == ["humanlike ec data.csv --nope", "pip install 'humanlike[models]'",
                        "humanlike benchmark raw/ --out board/"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(shlex.split(commands[0])[1:])
    with pytest.raises(pytest.fail.Exception, match="not on PyPI"):
        check_setup(commands[1])
    with pytest.raises(AssertionError, match="no such extra"):
        check_setup('pip install -e ".[modles]"')
    assert input_paths(shlex.split(commands[2])) == (["raw/"], ["board/"])
    assert not exists("raw/", tmp_path, set(), ROOT / "docs" / "index.md")
    assert exists("../shared/data/mlds/kk1.csv", tmp_path / "nowhere", {"../shared/data/mlds/kk1.csv"},
                  ROOT / "docs" / "index.md")
