"""The study configuration: ``STUDY/study.toml``, written by ``humanlike serve init`` and read by the server.

Every key is documented in docs/run-your-own-experiment.md (the config reference). The file is plain TOML so
that a researcher edits it by hand; :func:`load_config` checks every value and names the key at fault.
"""

from __future__ import annotations

import re
import secrets
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from ..files import atomic_write, atomic_write_text
from ..trials.schema import CLASSES_16
from .texts import TEXT_FORMATS

CONFIG_NAME = "study.toml"
SECRET_NAME = "researcher-secret"
DATABASE_NAME = "study.sqlite"
TASKS = ("classify", "triads", "quads")
#: The study designs (key ``design``) and the tasks each suits; docs/run-your-own-experiment.md#designs.
DESIGNS = {
    "everything": ("classify", "triads", "quads"),   # every participant sees every trial of the study
    "subset": ("classify", "triads", "quads"),       # a balanced block of ``trials_per_participant`` trials each
    "latin-square": ("classify",),                   # every item once, in one condition, rotating (model-vs-human)
    "pooled": ("triads", "quads"),                   # crowd judgements: part of the trials each, scales pooled
    "discriminate": ("classify",),                   # items drawn with known probabilities where two models differ
    "adaptive": ("triads", "quads"),                 # judgements chosen from the current pooled MLDS fit
}
#: ``completion_code`` value: each participant gets their own code when their last trial is stored.
PER_PARTICIPANT = "per-participant"


class StudyConfigError(ValueError):
    """A study folder or its ``study.toml`` is unusable; the message names the file and the key.

    A subclass of ``ValueError`` (the command line turns it into a one-line error).

    Examples
    --------
    >>> StudyConfig(title="t", task="rank", stimuli="images")
    Traceback (most recent call last):
        ...
    humanlike.web.config.StudyConfigError: key 'task': expected one of ['classify', 'triads', 'quads'], got 'rank'
    """


@dataclass
class StudyConfig:
    """One study: its task, stimuli, timing, design and participant-facing texts.

    Attributes
    ----------
    title, task, stimuli, stimulus_root, seed, labels, fixation_ms, stimulus_ms, mask_ms, design,
    trials_per_participant, repeats, design_file, adaptive, refit_every, practice_trials, break_every, catch_trials,
    max_catch_failures, consent_text, instructions, completion_url, completion_code, platform_params, resume_param,
    abandon_after_minutes, text_format, min_screen_width, min_screen_height, allow_mobile, fullscreen
        The keys of ``study.toml``, explained in the config reference of docs/run-your-own-experiment.md.

    Examples
    --------
    >>> config = StudyConfig(title="shapes", task="classify", stimuli="images", labels=["cat", "dog"])
    >>> config.fixation_ms, config.stimulus_ms, config.mask_ms, config.platform_params[0]
    (300, 200, 200, 'PROLIFIC_PID')
    """

    title: str
    task: str
    stimuli: str                                   # folder, manifest CSV or evaluation folder (relative to STUDY)
    stimulus_root: str = ""                        # every stimulus must lie inside it ("" = the stimuli's folder)
    seed: int = 0
    labels: list[str] = field(default_factory=lambda: list(CLASSES_16))
    # timing (milliseconds)
    fixation_ms: int = 300
    stimulus_ms: int = 200
    mask_ms: int = 200
    # design
    design: str = ""                               # one of DESIGNS ("" = the one trials_per_participant implies)
    trials_per_participant: int = 0                # 0 = every item once (classify) / every judgement (triads, quads)
    repeats: int = 1                               # presentations of each item per participant
    design_file: str = ""                          # design discriminate: the items' probabilities (CSV in the study)
    adaptive: dict = field(default_factory=dict)   # design discriminate: refit and stop ({} = a fixed design)
    refit_every: int = 10                          # design adaptive: completed participants between MLDS refits
    practice_trials: int = 4
    break_every: int = 50
    catch_trials: int = 2                          # attention checks among the main trials
    max_catch_failures: int = 0                    # more failures than this: the participant is excluded
    # texts and the platform
    consent_text: str = ("You are invited to take part in a short study on visual perception. Taking part is "
                         "voluntary; you may stop at any time. We store your responses under a pseudonym.")
    instructions: str = ""
    completion_url: str = ""                       # e.g. https://app.prolific.com/submissions/complete?cc={code}
    completion_code: str = ""                      # the platform's fixed code, or "per-participant"
    platform_params: list[str] = field(default_factory=lambda: ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"])
    resume_param: str = "PROLIFIC_PID"             # a second start with the same id resumes ("" = never)
    abandon_after_minutes: int = 60                # no response for this long: the design slot is reused (0 = never)
    text_format: str = "plain"                     # consent_text and instructions: "plain" or "markdown"
    # participants' devices: a device the study excludes is refused before consent
    min_screen_width: int = 0                      # CSS pixels (0 = any)
    min_screen_height: int = 0
    allow_mobile: bool = True                      # phones and tablets (touch screens without a mouse)
    fullscreen: bool = False                       # ask for fullscreen when the participant consents

    def __post_init__(self):
        if self.task not in TASKS:
            raise StudyConfigError(f"key 'task': expected one of {list(TASKS)}, got {self.task!r}")
        for name in ("fixation_ms", "stimulus_ms", "mask_ms", "trials_per_participant", "practice_trials",
                     "catch_trials", "max_catch_failures", "break_every", "abandon_after_minutes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise StudyConfigError(f"key {name!r}: expected a whole number >= 0, got {value!r}")
        for name in ("repeats", "refit_every"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise StudyConfigError(f"key {name!r}: expected a whole number >= 1, got {value!r}")
        if self.task == "classify" and (len(self.labels) < 2 or len(set(self.labels)) != len(self.labels)):
            raise StudyConfigError(f"key 'labels': expected at least two distinct labels, got {self.labels!r}")
        self._check_device_keys()
        self.design = self.design or implied_design(self.task, self.trials_per_participant)
        check_design(self.design, self.task, self.trials_per_participant)
        if self.design == "discriminate" and not self.design_file:
            raise StudyConfigError("key 'design_file': design 'discriminate' needs the file of the candidate items' "
                                   "inclusion probabilities (`humanlike serve init --design discriminate --models "
                                   "RUNS --compare A B` writes it)")
        if self.adaptive:   # batch, max_participants, alpha, spending, floor (humanlike.web.adaptive)
            from .adaptive_settings import check_adaptive

            self.adaptive = check_adaptive(self.adaptive, self.design)
        if self.completion_url and not self.completion_url.startswith(("https://", "http://", "/")):
            raise StudyConfigError(f"key 'completion_url': expected an http(s) URL, got {self.completion_url!r}")
        if self.completion_code != PER_PARTICIPANT and not re.fullmatch(r"[A-Za-z0-9_-]{0,64}", self.completion_code):
            raise StudyConfigError(f"key 'completion_code': expected the platform's code (letters, digits, '-', '_'; "
                                   f"at most 64) or {PER_PARTICIPANT!r}, got {self.completion_code!r}")
        if "{code}" in self.completion_url and not self.completion_code:
            raise StudyConfigError("key 'completion_url': it has a {code} placeholder but 'completion_code' is empty "
                                   f"(give the platform's code or {PER_PARTICIPANT!r})")
        if self.resume_param and self.resume_param not in self.platform_params:
            raise StudyConfigError(f"key 'resume_param': expected one of 'platform_params' {self.platform_params} or "
                                   f"\"\", got {self.resume_param!r}")

    def completion(self, participant_code: str | None) -> tuple[str, str]:
        """The completion code and URL a participant gets after their last trial.

        Parameters
        ----------
        participant_code : str or None
            The participant's own code (``completion_code = "per-participant"``).

        Returns
        -------
        tuple of str
            ``(code, url)``: the code (``""`` when none) and ``completion_url`` with ``{code}`` replaced by it.

        Examples
        --------
        >>> config = StudyConfig(title="t", task="triads", stimuli="s", completion_code="C1A2B3",
        ...                      completion_url="https://app.prolific.com/submissions/complete?cc={code}")
        >>> config.completion(None)
        ('C1A2B3', 'https://app.prolific.com/submissions/complete?cc=C1A2B3')
        """
        code = (participant_code or "") if self.completion_code == PER_PARTICIPANT else self.completion_code
        return code, self.completion_url.replace("{code}", code)

    def _check_device_keys(self) -> None:
        if self.text_format not in TEXT_FORMATS:
            raise StudyConfigError(f"key 'text_format': expected one of {list(TEXT_FORMATS)}, got {self.text_format!r}")
        for name in ("min_screen_width", "min_screen_height"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10_000:
                raise StudyConfigError(f"key {name!r}: expected a whole number of pixels from 0 to 10000, got {value!r}")
        for name in ("allow_mobile", "fullscreen"):
            if not isinstance(getattr(self, name), bool):
                raise StudyConfigError(f"key {name!r}: expected true or false, got {getattr(self, name)!r}")

    @property
    def instruction_text(self) -> str:
        """The study's instructions, or the task's default ones."""
        if self.instructions:
            return self.instructions
        if self.task == "classify":
            return ("Look at the cross in the middle of the screen. An image appears briefly, then a noise "
                    "pattern. Choose the category of the image (click or press the key shown). Guess if unsure.")
        return ("You see two pairs of images. Choose the pair whose two images differ MORE: click it or press "
                "the left / right arrow key.")


def implied_design(task: str, trials_per_participant: int) -> str:
    """The design of a config without a ``design`` key (what the server did before the key existed).

    Parameters
    ----------
    task : str
        The study's task.
    trials_per_participant : int
        The key of the same name (0: every item / every judgement).

    Returns
    -------
    str
        ``latin-square`` (classify, every item once), ``everything`` (judgements, every one) or ``subset``.

    Examples
    --------
    >>> implied_design("classify", 0), implied_design("triads", 0), implied_design("triads", 20)
    ('latin-square', 'everything', 'subset')
    """
    if trials_per_participant:
        return "subset"
    return "latin-square" if task == "classify" else "everything"


def check_design(design: str, task: str, trials_per_participant: int) -> None:
    """Refuse a design the task cannot have, or a trial count the design contradicts (naming the key).

    Parameters
    ----------
    design, task : str
        The keys ``design`` and ``task``.
    trials_per_participant : int
        The key of the same name.

    Raises
    ------
    StudyConfigError
        An unknown design, one of another task, ``everything``/``latin-square`` with a trial count, or
        ``subset``/``pooled`` without one.

    Examples
    --------
    >>> check_design("pooled", "triads", 20)
    >>> check_design("pooled", "classify", 10)
    Traceback (most recent call last):
        ...
    humanlike.web.config.StudyConfigError: key 'design': 'pooled' suits task(s) ['triads', 'quads'], not 'classify'
    """
    if design not in DESIGNS:
        raise StudyConfigError(f"key 'design': expected one of {list(DESIGNS)}, got {design!r}")
    if task not in DESIGNS[design]:
        raise StudyConfigError(f"key 'design': {design!r} suits task(s) {list(DESIGNS[design])}, not {task!r}")
    if design in ("everything", "latin-square") and trials_per_participant:
        others = "'subset'" if task == "classify" else "'subset' or 'pooled'"
        raise StudyConfigError(f"key 'trials_per_participant': design {design!r} shows every item, so it must be "
                               f"0, got {trials_per_participant} (for part of the trials each, use design {others})")
    if design in ("subset", "pooled", "discriminate", "adaptive") and not trials_per_participant:
        raise StudyConfigError(f"key 'trials_per_participant': design {design!r} needs the number of trials each "
                               "participant sees (a whole number >= 1)")


def study_paths(study: Path) -> dict[str, Path]:
    """The files of a study folder.

    Parameters
    ----------
    study : path
        The study folder.

    Returns
    -------
    dict of str to pathlib.Path
        ``config`` (study.toml), ``secret`` (researcher-secret) and ``database`` (study.sqlite).

    Examples
    --------
    >>> study_paths(Path("my-study"))["database"].as_posix()
    'my-study/study.sqlite'
    """
    study = Path(study)
    return {"config": study / CONFIG_NAME, "secret": study / SECRET_NAME, "database": study / DATABASE_NAME}


def write_config(config: StudyConfig, study: Path) -> Path:
    """Write ``STUDY/study.toml`` (refusing to overwrite an existing one).

    Parameters
    ----------
    config : StudyConfig
        The study.
    study : path
        The study folder (created if needed).

    Returns
    -------
    pathlib.Path
        The config file written.

    Raises
    ------
    StudyConfigError
        When the folder holds a config already.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "study"
    >>> path = write_config(StudyConfig(title="t", task="triads", stimuli="sequences"), folder)
    >>> load_config(folder).task
    'triads'
    """
    import tomli_w

    path = study_paths(study)["config"]
    if path.exists():
        raise StudyConfigError(f"{path}: a study config exists already (edit it, or choose another folder)")
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {k: v for k, v in asdict(config).items()}
    header = ("# humanlike study configuration: every key is explained in docs/run-your-own-experiment.md\n"
              "# durations in milliseconds; design: everything | subset | latin-square | pooled | discriminate | adaptive\n"
              "# (trials_per_participant = 0 means every item once)\n")
    return atomic_write_text(path, header + tomli_w.dumps(body))


def load_config(study: Path) -> StudyConfig:
    r"""Read and check ``STUDY/study.toml``.

    Parameters
    ----------
    study : path
        The study folder.

    Returns
    -------
    StudyConfig
        The study's configuration.

    Raises
    ------
    StudyConfigError
        For a missing file, invalid TOML, unknown keys, missing keys or bad values (naming the key).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "study.toml").write_text('title = "t"\ntask = "classify"\nstimuli = "x"\nmask_ms = -1\n')
    >>> load_config(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.web.config.StudyConfigError: .../study.toml: key 'mask_ms': expected a whole number >= 0, got -1
    """
    path = study_paths(study)["config"]
    if not path.is_file():
        raise StudyConfigError(f"{path}: no study config; create one with `humanlike serve init {study} "
                               "--stimuli FOLDER --task classify|triads|quads`")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise StudyConfigError(f"{path}: not valid TOML ({err})") from None
    known = {f.name for f in fields(StudyConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise StudyConfigError(f"{path}: unknown key(s) {unknown}; known keys: {sorted(known)}")
    missing = [k for k in ("title", "task", "stimuli") if k not in raw]
    if missing:
        raise StudyConfigError(f"{path}: missing key(s) {missing}")
    try:
        return StudyConfig(**raw)
    except StudyConfigError as err:
        raise StudyConfigError(f"{path}: {err}") from None


def researcher_secret(study: Path, create: bool = True) -> str:
    """The study's researcher secret (``STUDY/researcher-secret``, created once, readable by its owner only).

    Parameters
    ----------
    study : path
        The study folder.
    create : bool
        Create the secret when there is none (else that is an error).

    Returns
    -------
    str
        The secret (32 URL-safe characters from :func:`secrets.token_urlsafe`).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> secret = researcher_secret(folder)
    >>> len(secret), researcher_secret(folder) == secret, oct(study_paths(folder)["secret"].stat().st_mode)[-3:]
    (32, True, '600')
    """
    path = study_paths(study)["secret"]
    if path.is_file():
        return path.read_text().strip()
    if not create:
        raise StudyConfigError(f"{path}: no researcher secret yet (start the server once)")
    secret = secrets.token_urlsafe(24)
    # private from its first byte: the temporary file is made 0600 before it gets its name
    atomic_write(path, lambda tmp: tmp.write_text(secret + "\n"), mode=0o600)
    return secret


def stimulus_source(config: StudyConfig, study: Path) -> Path:
    """The stimulus folder or manifest of a study, resolved against the study folder.

    Parameters
    ----------
    config : StudyConfig
        The study's configuration (key ``stimuli``).
    study : path
        The study folder.

    Returns
    -------
    pathlib.Path
        The absolute path.

    Examples
    --------
    >>> config = StudyConfig(title="t", task="quads", stimuli="sequences/manifest.csv")
    >>> stimulus_source(config, Path("/data/study")).as_posix()
    '/data/study/sequences/manifest.csv'
    """
    source = Path(config.stimuli).expanduser()
    return (source if source.is_absolute() else Path(study) / source).resolve()
