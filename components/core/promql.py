"""Whether a PromQL expression parses, by a real PromQL parser (promql-parser, the Python binding
of the Rust port of Prometheus' own grammar): KEDA passes the query to Prometheus as written,
and a query that doesn't parse leaves the role stuck at its replica count."""

import promql_parser

# An autoscaling query is a line or two. The parser recurses per nested expression and
# overflows the C stack, killing the process, at about 6,000 chained operators (60 KB) in
# promql-parser 0.x, measured here; refusing long queries first keeps far from that.
MAX_QUERY_CHARACTERS = 4096


def promql_problem(query: str) -> str | None:
    if len(query) > MAX_QUERY_CHARACTERS:
        return (
            f"{len(query):,} characters, more than the {MAX_QUERY_CHARACTERS:,} any autoscaling "
            "query needs"
        )
    try:
        promql_parser.parse(query)
    except ValueError as invalid:
        return str(invalid) or "it does not parse"
    return None
