"""A page fetched with its SQL counted: what a kept page costs on a repeat visit."""
from django.db import connection
from django.test.utils import CaptureQueriesContext


def page_and_queries(client, url: str) -> tuple[str, int]:
    """The 200 page at `url` as text, and how many SQL queries answering it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, f"{url} answered {response.status_code}"
    return response.content.decode(), len(queries)
