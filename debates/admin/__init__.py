"""The admin: provider keys (masked, write-only), the roster inline, the guided setup from a key to
a panel, API tokens, budgets, and the read-only debate history. Each model's admin is registered here."""

from django.contrib import admin

from debates.admin.budgets import BudgetAdmin
from debates.admin.questions import EvaluationAdmin, QuestionAdmin, VerdictOutcomeAdmin
from debates.admin.roster import PanelAdmin, PanelistAdmin, ProviderAdmin
from debates.admin.tokens import ApiTokenAdmin
from debates.models import ApiToken, Budget, Evaluation, Panel, Panelist, Provider, Question, VerdictOutcome

admin.site.register(Provider, ProviderAdmin)
admin.site.register(Panelist, PanelistAdmin)
admin.site.register(Panel, PanelAdmin)
admin.site.register(Question, QuestionAdmin)
admin.site.register(ApiToken, ApiTokenAdmin)
admin.site.register(Evaluation, EvaluationAdmin)
admin.site.register(VerdictOutcome, VerdictOutcomeAdmin)
admin.site.register(Budget, BudgetAdmin)
