"""The admin: provider keys (masked, write-only), the roster inline, the guided setup from a key to
a panel, API tokens, and the read-only debate history. Each model's admin is registered here."""

from django.contrib import admin

from debates.admin.questions import EvaluationAdmin, QuestionAdmin, VerdictOutcomeAdmin
from debates.admin.roster import PanelAdmin, PanelistAdmin, ProviderAdmin
from debates.admin.tokens import ApiTokenAdmin
from debates.models import ApiToken, Evaluation, Panel, Panelist, Provider, Question, VerdictOutcome

admin.site.register(Provider, ProviderAdmin)
admin.site.register(Panelist, PanelistAdmin)
admin.site.register(Panel, PanelAdmin)
admin.site.register(Question, QuestionAdmin)
admin.site.register(ApiToken, ApiTokenAdmin)
admin.site.register(Evaluation, EvaluationAdmin)
admin.site.register(VerdictOutcome, VerdictOutcomeAdmin)
