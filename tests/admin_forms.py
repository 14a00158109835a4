"""What an admin change form posts back when saved untouched, read from the page Django
rendered, so a test changes one value and posts the rest as a person's browser would."""
from __future__ import annotations

from django.contrib.admin.widgets import AdminSplitDateTime
from django.utils import timezone


def admin_form_data(response) -> dict:
    """The change form's fields (split date-times included) and each inline's rows, with the
    management counts its formset needs."""
    data = _form_data(response.context["adminform"].form, prefix="")
    for inline in response.context.get("inline_admin_formsets", []):
        formset = inline.formset
        data |= {f"{formset.prefix}-TOTAL_FORMS": str(formset.total_form_count()),
                 f"{formset.prefix}-INITIAL_FORMS": str(formset.initial_form_count()),
                 f"{formset.prefix}-MIN_NUM_FORMS": str(formset.min_num),
                 f"{formset.prefix}-MAX_NUM_FORMS": str(formset.max_num)}
        for form in formset.forms:
            data |= _form_data(form, prefix=f"{form.prefix}-")
    return data


def _form_data(form, *, prefix: str) -> dict:
    data = {}
    for name, field in form.fields.items():
        value, key = form[name].value(), f"{prefix}{name}"
        if isinstance(field.widget, AdminSplitDateTime):
            value = timezone.localtime(value) if value else None
            data[f"{key}_0"], data[f"{key}_1"] = (value.strftime("%Y-%m-%d"), value.strftime("%H:%M:%S")) if value else ("", "")
        elif isinstance(value, bool):
            if value:
                data[key] = "on"
        elif isinstance(value, (list, tuple)):
            data[key] = [getattr(v, "pk", v) for v in value]
        elif value is not None:
            data[key] = getattr(value, "pk", value)
    return data
