"""Holding PromQL to the documented series: parse it with a real parser, then name every
series, matcher label and grouping label that `components.observability.series` does not list."""

import promql_parser

from components.observability.series import DOCUMENTED_SERIES


def _selectors(tree) -> list[promql_parser.VectorSelector]:
    found: list[promql_parser.VectorSelector] = []

    def visit(node):
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)

    promql_parser.walk(tree, visit)
    return found


def undocumented(expr: str) -> list[str]:
    """What `expr` selects or groups by that its series do not carry; raises on bad PromQL."""
    tree = promql_parser.parse(expr)
    problems: list[str] = []
    for selector in _selectors(tree):
        series = DOCUMENTED_SERIES.get(selector.name)
        if series is None:
            problems.append(f"{selector.name} is not a documented series")
            continue
        problems += [
            f"{selector.name} has no label {matcher.name}"
            for matcher in selector.matchers.matchers
            if matcher.name not in series.labels
        ]

    def grouping(node):
        if isinstance(node, promql_parser.AggregateExpr) and node.modifier is not None:
            for selector in _selectors(node.expr):
                series = DOCUMENTED_SERIES.get(selector.name)
                problems.extend(
                    f"{selector.name} is grouped by {label}, which it does not carry"
                    for label in node.modifier.labels
                    if series is not None and label not in series.labels
                )

    promql_parser.walk(tree, grouping)
    return problems
