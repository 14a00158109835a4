"""A page fetched with its SQL counted: what a kept page costs on a repeat visit; a transaction's
on-commit work without the kept pages' token deletions."""
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cupboard.accounts.signed_in import Forget


def page_and_queries(client, url: str) -> tuple[str, int]:
    """The 200 page at `url` as text, and how many SQL queries answering it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, f"{url} answered {response.status_code}"
    return response.content.decode(), len(queries)


def messages(callbacks: list) -> list:
    """The on-commit callbacks that send something: all but the deletions of the tokens kept
    pages are keyed on (accounts/signed_in.py `Forget`)."""
    return [callback for callback in callbacks if not isinstance(callback, Forget)]
