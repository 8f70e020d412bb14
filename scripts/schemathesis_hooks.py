"""Schemathesis hooks for scripts/schemathesis.sh: the rules of the base path that OpenAPI cannot state.

Parameters are described one by one, but on the base path `resource` picks the operation, the
other parameters belong to one resource each and are ignored by the others, and a few rules join
two parameters (openapi.json says all this in words, as does docs/api.md):

- A malformed `page` sent with `resource=categories` is rightly accepted. So a malformed case is
  sent to the resource its malformed parameters belong to, where the server must reject it; a
  case whose malformed parameter is `resource` itself is left alone.
- A valid case is made to keep the joint rules too: an `id` for `resource=item`, `from` not after
  `to`, `page` × `per_page` at most 10,000, and a `cursor` only without `page` and only `*` (any
  other cursor is one the server made for that very query, which no generator can guess). The 400s
  those rules give are covered by the gateway's own tests.
"""

import schemathesis
from schemathesis.core.parameters import ParameterLocation

RESOURCE_OF = {
    "id": "item",
    **{p: "items" for p in ("q", "type", "category", "author", "language", "license", "reuse", "format", "duration", "has",
                            "from", "to", "sort", "page", "per_page", "cursor", "facets", "highlight")},
}
MAX_DEPTH = 10000
DEFAULT_PER_PAGE = 20
KNOWN_ID = "ph-full"  # the item scripts/schemathesis.sh adds to the catalogue


def _malformed_parameters(case):
    data = case.meta.phase.data
    names = {m.parameter for m in data.mutations if m.parameter_location == ParameterLocation.QUERY}
    if data.parameter and data.parameter_location == ParameterLocation.QUERY:
        names.add(data.parameter)
    return names


def _steer_malformed(query, names):
    if "resource" in names:
        return
    targets = sorted({RESOURCE_OF[n] for n in names if n in RESOURCE_OF})
    if targets:
        query["resource"] = targets[0]


def _positive_int(value):
    """The value as the server reads it (plain digits), or None; generated values may be int or str."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    return int(text) if text.isdigit() and int(text) > 0 else None


def _keep_joint_rules(query):
    if query.get("resource") == "item" and not query.get("id"):
        query["id"] = KNOWN_ID
    low, high = query.get("from"), query.get("to")
    if isinstance(low, str) and isinstance(high, str) and low and high and low > high:
        query["from"], query["to"] = high, low
    if query.get("cursor"):
        query["cursor"] = "*"
        query.pop("page", None)
    page = _positive_int(query.get("page"))
    per_page = _positive_int(query.get("per_page")) or DEFAULT_PER_PAGE
    if page and page * per_page > MAX_DEPTH:
        deepest = MAX_DEPTH // per_page
        query["page"] = str(deepest) if isinstance(query["page"], str) else deepest


@schemathesis.hook
def map_case(ctx, case):
    if case.operation.path != "/" or case.meta is None or not isinstance(case.query, dict):
        return case
    if case.meta.is_negative_at(ParameterLocation.QUERY):
        _steer_malformed(case.query, _malformed_parameters(case))
    else:
        _keep_joint_rules(case.query)
    return case
