from django.apps import AppConfig


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"
