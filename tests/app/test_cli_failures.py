"""Failures every command shares: unwritable outputs, interruption, absurd requests — clear words, no traceback."""

from __future__ import annotations

import pytest

from humanlike.app import cli


def test_out_pointing_at_a_file_is_a_clear_error(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code = cli.main(["demo", "--out", str(blocker / "sub"), "--resamples", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "humanlike demo: error:" in err and "afile" in err and "Traceback" not in err


def test_interrupt_is_reported_not_a_traceback(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    parser = cli.build_parser()
    real_parse = parser.parse_args

    def parse(argv=None):
        args = real_parse(argv)
        args.handler = interrupted
        return args

    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    monkeypatch.setattr(parser, "parse_args", parse)
    assert cli.main(["demo", "--quiet"]) == 130
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-3", "1", "many"])
def test_bad_resample_counts_are_refused_by_every_command(value, capsys):
    for command in (["demo"], ["ec", "x"], ["dmc", "x"], ["ood", "x"]):
        with pytest.raises(SystemExit) as stop:
            cli.main([*command, "--resamples", value])
        assert stop.value.code == 2
        assert "--resamples" in capsys.readouterr().err
