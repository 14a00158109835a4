"""The profile page's mail settings (accounts/profile.html: `{% mail_settings %}`), rendered by
the app that owns them: accounts sits on the floor below and never imports notifications."""
from django import template

from ..models import Kind
from ..preferences import mail_preferences

register = template.Library()


@register.inclusion_tag("notifications/_mail_settings.html", takes_context=True)
def mail_settings(context):
    """The signed-in user's checkbox per kind of mail, ticked when they want it."""
    user = context["user"]
    wanted = mail_preferences(user=user)
    return {"user": user, "csrf_token": context.get("csrf_token"),
            "mail_kinds": [(kind.value, kind.label, wanted[kind.value]) for kind in Kind]}
