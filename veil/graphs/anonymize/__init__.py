"""The anonymize graph: state, configuration and graph, as separate modules."""

from veil.graphs.anonymize.configuration import AnonymizeConfig, AnonymizeContext, RunOptions
from veil.graphs.anonymize.graph import build_graph

__all__ = ["AnonymizeConfig", "AnonymizeContext", "RunOptions", "build_graph"]
