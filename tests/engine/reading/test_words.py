"""The words of a short answer, as compared."""

from debates.engine.reading.words import normalise


def test_normalise_drops_case_punctuation_articles_and_leading_verbs_of_choice():
    assert normalise("  The  Answer, is: YES! ") == "yes"
    assert normalise("**I'd go with** the  PostgreSQL, database!") == "postgresql database"
    assert normalise("Don't use C++") == "do not use c++"
