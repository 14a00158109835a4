from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "cupboard.accounts"
    label = "accounts"
