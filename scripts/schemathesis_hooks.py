"""Schemathesis hooks for scripts/schemathesis.sh: the one rule of the API that OpenAPI cannot say.

On the base path `resource` picks the operation and every other parameter belongs to one resource;
the others are ignored (openapi.json and docs/api.md say so). A malformed `page` sent with
`resource=categories` is therefore rightly accepted. So a negative case whose malformed parameters
belong to a resource is sent to that resource, where the server must reject it; a case whose
malformed parameter is `resource` itself is left alone.
"""

import schemathesis
from schemathesis.core.parameters import ParameterLocation

RESOURCE_OF = {
    "id": "item",
    **{p: "items" for p in ("q", "type", "category", "author", "language", "from", "to", "sort", "page", "per_page")},
}


def _malformed_parameters(case):
    data = case.meta.phase.data
    names = {m.parameter for m in data.mutations if m.parameter_location == ParameterLocation.QUERY}
    if data.parameter and data.parameter_location == ParameterLocation.QUERY:
        names.add(data.parameter)
    return names


@schemathesis.hook
def map_case(ctx, case):
    if case.operation.path != "/" or case.meta is None or not case.meta.is_negative_at(ParameterLocation.QUERY):
        return case
    names = _malformed_parameters(case)
    if "resource" in names:
        return case
    targets = sorted({RESOURCE_OF[n] for n in names if n in RESOURCE_OF})
    if targets:
        case.query["resource"] = targets[0]
    return case
