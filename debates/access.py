"""Who may open a question: the one lookup every question page starts from."""

from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from debates.models import Question


def visible_question(request: HttpRequest, pk: int) -> Question:
    """A question the user may see; another user's private one does not exist for them."""
    return get_object_or_404(Question.objects.visible_to(request.user), pk=pk)
