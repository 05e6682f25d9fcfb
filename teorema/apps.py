"""Daphne as an installed app without its server: Daphne's own app config imports ``daphne.server``,
which installs Twisted's reactor (half a second) in every management command. Listed by this config,
Daphne still provides ``runserver`` (it imports the server when that command runs), and
``teorema.serve`` imports it itself."""

from django.apps import AppConfig


class DaphneConfig(AppConfig):
    name = "daphne"
    verbose_name = "Daphne"
