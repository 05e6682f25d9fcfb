"""``POST /api/questions/<id>/share``: who may read a question, as the page's share form sets it."""

from django.http import HttpRequest, JsonResponse

from debates.conversations import sharing
from debates.endpoint import endpoint, error, field_errors, json_body, type_errors
from debates.models import Question

FIELDS: dict[str, tuple[type, str]] = {
    "visibility": (str, "a string: private, users or link"),
    "hide_cost": (bool, "true or false"),
    "new_link": (bool, "true or false"),
}


@endpoint("POST")
def share(request: HttpRequest, pk: int) -> JsonResponse:
    """Change the visibility (a field left out stays as it is); the asker or staff only."""
    question = Question.objects.visible_to(request.user).filter(pk=pk).first()
    if question is None or not question.can_act(request.user):
        return error(404, "No such question.")
    payload = json_body(request)
    if isinstance(payload, JsonResponse):
        return payload
    if wrong := type_errors(payload, FIELDS):
        return error(400, "The sharing was not changed.", wrong)
    current = {"visibility": question.visibility, "hide_cost": question.hide_cost}
    form = sharing.ShareForm(current | {key: value for key, value in payload.items() if value is not None})
    if not form.is_valid():
        return error(400, "The sharing was not changed.", field_errors(form))
    sharing.share(question, **form.cleaned_data)
    link = sharing.link_path(question)
    return JsonResponse(
        {
            "id": question.pk,
            "visibility": question.visibility,
            "hide_cost": question.hide_cost,
            "share_url": request.build_absolute_uri(link) if link else None,
        }
    )
