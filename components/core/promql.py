"""Whether a PromQL expression parses, by a real PromQL parser (promql-parser, the Python binding
of the Rust port of Prometheus' own grammar): KEDA passes the query to Prometheus as written,
and a query that doesn't parse leaves the role stuck at its replica count."""

from __future__ import annotations

import promql_parser


def promql_problem(query: str) -> str | None:
    try:
        promql_parser.parse(query)
    except ValueError as invalid:
        return str(invalid) or "it does not parse"
    return None
