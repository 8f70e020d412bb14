"""Sends a page, an item and a bad request through the Python client openapi-python-client
generates from the served OpenAPI document, and fails unless each parses into the model the
document names.

    PYTHONPATH=DIR python check.py BASE_URL   # DIR holds the generated mediagw_client package
"""

import sys

from mediagw_client import Client
from mediagw_client.api.api import get_resource
from mediagw_client.models import BadRequestProblem, GetResourceResource, ItemDocument, ItemsPage


def main(base: str) -> None:
    with Client(base_url=base, timeout=10.0, raise_on_unexpected_status=True) as client:
        page = get_resource.sync_detailed(client=client, resource=GetResourceResource.ITEMS, per_page=3)
        assert page.status_code == 200 and isinstance(page.parsed, ItemsPage), (page.status_code, page.content)
        items = page.parsed.data
        assert len(items) == 3 and page.parsed.pagination.per_page == 3 and page.parsed.pagination.total >= 3, page.parsed
        first = items[0]
        assert first.id and first.rights.license_, first

        item = get_resource.sync_detailed(client=client, resource=GetResourceResource.ITEM, id=first.id)
        assert item.status_code == 200 and isinstance(item.parsed, ItemDocument), (item.status_code, item.content)
        assert item.parsed.data.id == first.id and item.parsed.data.rights.to_dict() == first.rights.to_dict(), item.parsed

        bad = get_resource.sync_detailed(client=client, resource=GetResourceResource.ITEMS, per_page=500)
        problem = bad.parsed
        assert bad.status_code == 400 and isinstance(problem, BadRequestProblem), (bad.status_code, bad.content)
        assert problem.status == 400 and problem.title == "Invalid parameter", problem
        assert problem.type_.endswith("/problems/invalid-parameter"), problem.type_
        assert [(e.parameter, e.value) for e in problem.errors] == [("per_page", "500")], problem.errors
        assert problem.request_id and problem.request_id == bad.headers["X-Request-Id"], problem.request_id
    print("python client: a page, an item and a problem parsed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
