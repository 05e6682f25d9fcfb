from django.urls import path

from debates import views
from debates.attachments import views as attachments
from debates.conversations import views as conversations
from debates.evaluation import views as evaluations
from debates.integrations import api
from debates.integrations.telegram import views as telegram
from debates.track import views as track

app_name = "debates"

urlpatterns = [
    path("", views.ask, name="ask"),
    path("q/<int:pk>/", views.question, name="question"),
    path("q/<int:pk>/live/", views.question_live, name="question_live"),
    path("q/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("q/<int:pk>/retry/", views.retry, name="retry"),
    path("q/<int:pk>/recover/", views.recover, name="recover"),
    path("q/<int:pk>/follow-up/", conversations.follow_up, name="follow_up"),
    path("q/<int:pk>/ask-again/", conversations.ask_again, name="ask_again"),
    path("q/<int:pk>/share/", conversations.share, name="share"),
    path("q/<int:pk>/export.<str:fmt>", conversations.download, name="export"),
    path("q/<int:pk>/files/<int:file_id>/thumbnail", attachments.thumbnail, name="attachment_thumbnail"),
    path("q/<int:pk>/files/<int:file_id>/<str:name>", attachments.download, name="attachment"),
    path("s/<slug:token>/", conversations.shared, name="shared"),
    path("s/<slug:token>/files/<int:file_id>/thumbnail", attachments.shared_thumbnail, name="shared_thumbnail"),
    path("s/<slug:token>/files/<int:file_id>/<str:name>", attachments.shared_download, name="shared_attachment"),
    path("s/<slug:token>/export.<str:fmt>", conversations.shared_download, name="shared_export"),
    path("history/", views.history, name="history"),
    path("models/", track.models_page, name="models"),
    path("q/<int:pk>/outcome/", track.mark_outcome, name="mark_outcome"),
    path("evaluations/", evaluations.evaluations, name="evaluations"),
    path("evaluations/list/", evaluations.evaluation_list, name="evaluation_list"),
    path("evaluations/<int:pk>/", evaluations.evaluation, name="evaluation"),
    path("evaluations/<int:pk>/results/", evaluations.results, name="evaluation_results"),
    path("evaluations/<int:pk>/export.<str:fmt>", evaluations.download, name="evaluation_export"),
    path("local-servers/<slug:preset>/use/", views.adopt_local_server, name="adopt_local_server"),
    path("clis/use/", views.adopt_clis, name="adopt_clis"),
    path("clis/<slug:preset>/try/", views.try_cli, name="try_cli"),
    path("api/questions", api.create, name="api_questions"),
    path("api/questions/<int:pk>", api.detail, name="api_question"),
    path("api/questions/<int:pk>/retry", api.retry, name="api_retry"),
    path("api/questions/<int:pk>/retry-synthesis", api.retry),  # its name before a failed voice could be retried
    path("api/questions/<int:pk>/outcome", api.outcome, name="api_outcome"),
    path("api/questions/<int:pk>/cancel", api.cancel, name="api_cancel"),
    path("api/models", api.models, name="api_models"),
    path("api/panels", api.panels, name="api_panels"),
    path("api/spend", api.spend, name="api_spend"),
    path("api/questions/<int:pk>/share", api.share, name="api_share"),
    path("telegram/webhook/<str:secret>/", telegram.webhook, name="telegram_webhook"),
]
