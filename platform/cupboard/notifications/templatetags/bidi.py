"""`{{ name|isolate }}` in the plain-text mails (`{% load bidi %}`): a right-to-left team or method
name between Unicode's isolates (cupboard/bidi.py), as no <bdi> can go in plain text. Without them
a line that starts with an Arabic team name is laid out right to left whole, and the "#3" or the
quotes beside such a name are drawn on its other side."""
from django import template

from cupboard.bidi import isolate as _isolate

register = template.Library()


@register.filter
def isolate(value) -> str:
    return _isolate(str(value))
