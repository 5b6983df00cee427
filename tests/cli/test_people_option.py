"""``--people`` finds whole people and hides them on top of the preset; ``--classes`` still rules."""

from app.cli import build_parser
from app.commands.common import policy_from_args


def policy(*argv):
    return policy_from_args(build_parser().parse_args(["image", "x.png", "-o", "out", *argv]))


def test_people_are_hidden_when_asked_for_and_not_by_default():
    assert not policy().hides("person")  # the default preset keeps people visible
    with_people = policy("--people")
    assert with_people.hides("person") and with_people.hides("face") and with_people.hides("email")
    assert not policy("--people", "--classes", "email").hides("person")  # an explicit class list rules
