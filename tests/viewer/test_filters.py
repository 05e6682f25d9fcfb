"""The viewer's filters take what their names say."""

from datetime import timedelta

from debates.templatetags.teorema import duration, method_label, milliseconds


def test_milliseconds_and_a_duration_read_the_same():
    assert milliseconds(4200) == duration(timedelta(seconds=4.2)) == "4.2 s"
    assert milliseconds(192_000) == duration(timedelta(minutes=3, seconds=12)) == "3 min 12 s"
    assert milliseconds(None) == duration(None) == ""


def test_a_method_shows_its_label_and_an_unknown_one_shows_as_it_is():
    assert method_label("first_principles") == "First principles"
    assert method_label("") == "No prescribed method"
    assert method_label("vibes") == "vibes"
