"""One options model (issue 10): RunOptions declares every run option once; the CLI's flags are
generated from it, the server's options object extends it, and RunOptions.config is the one
place the profile rule lives."""

from __future__ import annotations

import pytest

from veil.cli import build_parser
from veil.cli.anonymize import _config
from veil.errors import UserInputError
from veil.graphs.anonymize import AnonymizeConfig, RunOptions
from veil.server.protocol import VeilOptions


def cli_args(*argv: str):
    return build_parser().parse_args(["anonymize", "in.jsonl", *argv])


def test_cli_defaults_are_the_models():
    args = cli_args()
    for name, field in RunOptions.model_fields.items():
        assert getattr(args, name) == field.default, name  # a CLI default that drifts fails here


def test_every_option_is_a_flag_with_its_doc():
    help_text = build_parser()._subparsers._group_actions[0].choices["anonymize"].format_help()  # noqa: SLF001
    for flag in ("--profile", "--top-k", "--p-max", "--u-target", "--max-iterations", "--memory-window"):
        assert flag in help_text
    assert "utility target in [0, 1] (default 0.9)" in " ".join(help_text.split())


def test_the_server_object_is_the_model():
    assert set(RunOptions.model_fields) <= set(VeilOptions.model_fields)
    for name, field in RunOptions.model_fields.items():
        assert VeilOptions.model_fields[name].default == field.default
        assert VeilOptions.model_fields[name].description == field.description
    assert AnonymizeConfig.model_fields["u_target"].default == RunOptions.model_fields["u_target"].default


@pytest.mark.parametrize("argv, profile, k", [
    ((), "generic", 3),
    (("--name-field", "name"), "identity", 10),
    (("--attributes-field", "profile"), "attributes", 3),
    (("--name-field", "name", "--profile", "generic", "-k", "5"), "generic", 5),
])
def test_profile_rule_in_one_place(argv, profile, k):
    cfg = _config(cli_args(*argv))
    assert (cfg.profile, cfg.k, cfg.p_max) == (profile, k, k)
    o = VeilOptions(**({"name": "A B"} if "--name-field" in argv else {}),
                    **({"attributes": {"age": "30"}} if "--attributes-field" in argv else {}),
                    **({"profile": "generic", "k": 5} if "--profile" in argv else {}))
    assert o.config(has_name=bool(o.name), has_attributes=bool(o.attributes)) == cfg


def test_a_bad_value_names_its_flag():
    with pytest.raises(UserInputError, match="--top-k"):
        _config(cli_args("-k", "0"))
    with pytest.raises(UserInputError, match="--u-target"):
        _config(cli_args("--u-target", "2"))
