"""Placeholder views: the live viewer issue builds the real pages."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from debates.models import Question


@login_required
def ask(request: HttpRequest) -> HttpResponse:
    return HttpResponse("Teorema")


@login_required
def question(request: HttpRequest, pk: int) -> HttpResponse:
    return HttpResponse(get_object_or_404(Question, pk=pk).text)
