"""Celery tasks for mail: thin wrappers that import their service inside the body."""
from celery import shared_task


@shared_task(acks_late=True, ignore_result=True)
def send_mail_batch(notification_ids: list[int]) -> dict:
    """One batch of notifications (one event's readers), sent after the COMMIT that recorded them."""
    from .services import notifications_send

    return notifications_send(notification_ids=notification_ids)


@shared_task(ignore_result=True)
def mail_due() -> dict:
    """Beat: deadline reminders and reveal announcements now due (mails still unsent are sent
    again by the sweep of every kind of job, flows.tasks.sweep_jobs)."""
    from .services import notify_due

    return {"recorded": notify_due()}
