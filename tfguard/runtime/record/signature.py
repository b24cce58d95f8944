"""Fetch signatures: a cheap hashable key per fetch structure, and a readable label."""

from __future__ import annotations

from typing import Any, Hashable, List, Mapping, Set

# Types already seen to be leaves (Tensor, Operation, Variable...): keyed by id at once.
LEAF_TYPES: Set[type] = set()


def fetch_key(fetches: Any) -> Hashable:
    """Hashable key of a fetch structure, by identity of its leaves (never calls Tensor.__eq__)."""
    kind = type(fetches)
    if kind in LEAF_TYPES:
        return id(fetches)
    if kind is str:
        return fetches
    if kind is list or kind is tuple:
        if all(map(LEAF_TYPES.__contains__, map(type, fetches))):  # flat: no call per element
            return tuple(map(id, fetches))
        return tuple([fetch_key(f) for f in fetches])
    if kind is dict:
        return ("d",) + tuple([(k, fetch_key(v)) for k, v in fetches.items()])
    if isinstance(fetches, (list, tuple)):
        return tuple([fetch_key(f) for f in fetches])
    if isinstance(fetches, Mapping):
        return ("d",) + tuple([(k, fetch_key(v)) for k, v in fetches.items()])
    LEAF_TYPES.add(kind)
    return id(fetches)


def snapshot(fetches: Any) -> Any:
    """The fetch structure as it is now, for a signature worked out later: containers are
    copied (lists become tuples), leaves are kept, so mutating the user's list is harmless."""
    kind = type(fetches)
    if kind in LEAF_TYPES or kind is str:
        return fetches
    if kind is list or kind is tuple:
        if all(map(LEAF_TYPES.__contains__, map(type, fetches))):
            return tuple(fetches)
        return tuple([snapshot(f) for f in fetches])
    if isinstance(fetches, Mapping):
        return {k: snapshot(v) for k, v in fetches.items()}
    if isinstance(fetches, (list, tuple)):
        return tuple([snapshot(f) for f in fetches])
    return fetches


def feed_keys(feed_dict: Any) -> tuple:
    """The keys of a feed dict (empty for no feeds, or a feed TensorFlow itself will reject)."""
    try:
        return tuple(feed_dict) if feed_dict else ()
    except Exception:  # not a mapping: sess.run raises its own error for it
        return ()


def _leaves(fetches: Any) -> List[Any]:
    if isinstance(fetches, (list, tuple)):
        return [leaf for f in fetches for leaf in _leaves(f)]
    if isinstance(fetches, Mapping):
        return [leaf for f in fetches.values() for leaf in _leaves(f)]
    return [fetches]


def _name(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    name = getattr(obj, "name", None)
    return name if isinstance(name, str) else type(obj).__name__


def describe_fetches(fetches: Any, feeds: Any, whole: bool = False) -> str:
    """A short label such as `train_op, loss:0 <- x:0, y:0` (`whole`: every name, nothing cut; the recorder tells
    apart signatures whose short labels read the same with it)."""
    label = ", ".join(_name(f) for f in _leaves(fetches)) or "(no fetches)"
    if len(label) > 120 and not whole:
        label = label[:117] + "..."
    if feeds:
        feed_label = ", ".join(_name(k) for k in feeds)
        label += " <- " + (feed_label if len(feed_label) <= 60 or whole else feed_label[:57] + "...")
    return label


def fetched_op_types(graph: Any, fetches: Any) -> List[str]:
    """Op types of the fetched tensors/ops (used to spot summaries fetched every run)."""
    types = []
    for leaf in _leaves(fetches):
        element = leaf
        if isinstance(leaf, str):
            try:
                element = graph.as_graph_element(leaf)
            except Exception:  # a fetch TF itself will reject: leave it to sess.run
                continue
        op = getattr(element, "op", element)
        op_type = getattr(op, "type", None)
        if isinstance(op_type, str):
            types.append(op_type)
    return types
