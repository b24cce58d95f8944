"""Read the public API of a TensorFlow 1.15 wheel statically: which names build ops and which return plain data.

TensorFlow 2 has no ``tf.contrib`` and lacks TF1-only names, so ``tools/gen_tfapi_data.py`` reads the 1.15 wheel as
files (the wheel is a zip archive; nothing here installs or imports it).  ``tensorflow_core/_api/v1/**/__init__.py``
name every public symbol and its defining module; ``tensorflow_core/contrib/**/__init__.py`` re-export the contrib
sources.  Each public function or class is classified by reading its source and the functions it calls:

- ``op``: it reaches a generated op wrapper (``gen_*_ops``), ``_apply_op_helper``, ``constant_op``,
  ``convert_to_tensor`` or another op-building call (``create_op``, ``assign``, ``minimize``...);
- ``numpy``: it builds no op and computes with NumPy (``tf.contrib.crf.viterbi_decode``): its result is data;
- ``getter``: it builds no op and looks graph objects up (``tf.contrib.framework.get_global_step``);
- ``protobuf``: a protocol-buffer class (``*_pb2`` modules);
- ``value``: a ``collections.namedtuple`` class (``tf.SparseTensorValue``): its instances are plain data;
- ``class``: a class whose constructor builds no op (its methods may);
- ``unknown``: anything the reader cannot follow (a call it cannot resolve); never claimed to build no op.

It also records functions that return Python lists (``return outputs, losses`` where both were bound to ``[]``),
so that indexing their results is known to build nothing, and which of those lists hold other things than op
results (``outputs.append(bucket_outputs)``: a list of lists), whose items are not known to be tensors.
"""

from __future__ import annotations

import ast
import builtins
import os
import zipfile
from typing import Dict, List, Optional, Tuple

#: Calls (by the name after the last dot) that add an op whatever their receiver.
OP_SEED_NAMES = frozenset({
    "_apply_op_helper", "create_op", "_create_op_internal", "convert_to_tensor", "internal_convert_to_tensor",
    "convert_to_tensor_v2", "convert_n_to_tensor", "convert_to_tensor_or_indexed_slices",
    "convert_to_tensor_or_sparse_tensor", "internal_convert_n_to_tensor", "constant", "_constant_impl",
    "get_variable", "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub",
    "scatter_nd_update", "read_value", "minimize", "apply_gradients", "compute_gradients", "get_next",
    "make_one_shot_iterator", "make_initializable_iterator", "enqueue", "enqueue_many", "dequeue",
    "dequeue_many", "dequeue_up_to", "lookup", "py_func", "numpy_function", "while_loop", "cond",
    "import_graph_def", "_as_variant_tensor", "_variant_tensor",
})

#: Module prefixes whose functions are generated op wrappers or build ops by construction.
OP_MODULE_PREFIXES = ("tensorflow.python.ops.gen_", "tensorflow.python.framework.constant_op")

#: Calls whose presence marks a graph lookup.
GETTER_NAMES = frozenset({
    "get_collection", "get_collection_ref", "get_tensor_by_name", "get_operation_by_name", "as_graph_element",
    "get_default_graph",
})

#: Builtins and methods of Python's own containers and strings: calls that say nothing about the graph.
PYTHON_CALLS = frozenset(dir(builtins)) | frozenset({
    "append", "extend", "reverse", "sort", "items", "keys", "values", "get", "pop", "update", "copy", "format",
    "join", "split", "startswith", "endswith", "strip", "replace", "lower", "upper", "add", "setdefault", "insert",
    "remove", "index", "count", "encode", "decode", "__init__", "warn", "iteritems", "rstrip", "lstrip",
})

#: Methods of tensors, shapes and dtypes that read metadata and add no op.
METADATA_METHODS = frozenset({
    "get_shape", "is_fully_defined", "as_list", "is_compatible_with", "with_rank", "with_rank_at_least",
    "merge_with", "num_elements", "is_integer", "is_floating", "is_bool", "as_numpy_dtype", "get_collection",
    "get_tensor_by_name", "get_operation_by_name", "as_graph_element", "get_attr", "name_scope", "as_default",
    # NumPy arrays' and files' own methods (TF 1.x tensors have none of these)
    "ravel", "reshape", "astype", "tolist", "flatten", "tobytes", "tostring", "newbyteorder", "item", "read",
    "readline", "readlines", "seek", "tell", "write", "flush",
}) | GETTER_NAMES

#: Modules whose calls never add an op (native helpers, logging, deprecation wrappers, nest, compat).
HARMLESS_PREFIXES = (
    "tensorflow.python.platform.", "tensorflow.python.util.", "tensorflow.python.pywrap_tensorflow",
    "tensorflow.python.framework.errors", "tensorflow.python.framework.dtypes",
    "tensorflow.python.framework.tensor_shape", "tensorflow.python.eager.context",
)

OP, NUMPY, GETTER, PROTOBUF, VALUE, CLASS, UNKNOWN, PYTHON = (
    "op", "numpy", "getter", "protobuf", "value", "class", "unknown", "python",
)

#: Kinds that build no op when called.
NON_OP_KINDS = frozenset({NUMPY, GETTER, PROTOBUF, VALUE, CLASS})


class _Module:
    """One parsed source file: its top-level definitions and import table."""

    def __init__(self, name: str, tree: ast.Module, is_package: bool) -> None:
        self.name = name
        self.tree = tree
        self.is_package = is_package
        self.defs: Dict[str, ast.AST] = {}
        self.imports: Dict[str, str] = {}  # local name -> dotted target
        self.star_imports: List[str] = []
        for statement in tree.body:
            self._read(statement)

    def _read(self, statement: ast.AST) -> None:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.defs[statement.name] = statement
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    self.defs[target.id] = statement.value
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    self.imports[head] = head
        elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            for alias in statement.names:
                if alias.name == "*":
                    self.star_imports.append(statement.module)
                else:
                    self.imports[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
        elif isinstance(statement, (ast.If, ast.Try)):
            for child in ast.iter_child_nodes(statement):
                if isinstance(child, ast.stmt):
                    self._read(child)
            for handler in getattr(statement, "handlers", ()):
                for child in handler.body:
                    self._read(child)


class WheelSource:
    """The Python sources of a TensorFlow 1.x wheel, read lazily from the zip (or an unpacked folder)."""

    def __init__(self, path: str) -> None:
        self._zip = zipfile.ZipFile(path) if zipfile.is_zipfile(path) else None
        self._root = path
        self._files = set(self._zip.namelist()) if self._zip else None
        self._modules: Dict[str, Optional[_Module]] = {}
        self._kinds: Dict[Tuple[str, str], str] = {}
        self.version = self._read_version()

    def _read_version(self) -> str:
        for name in (self._files or ()):
            if name.endswith(".dist-info/METADATA"):
                for line in self._zip.read(name).decode("utf-8", "replace").splitlines():
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
        return "1.x"

    def _read(self, relative: str) -> Optional[str]:
        if self._zip is not None:
            if relative not in self._files:
                return None
            return self._zip.read(relative).decode("utf-8", "replace")
        full = os.path.join(self._root, relative)
        if not os.path.isfile(full):
            return None
        with open(full, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def paths(self, prefix: str) -> List[str]:
        """Return the files under ``prefix`` (a folder of the wheel, with a trailing slash)."""
        if self._zip is not None:
            return sorted(name for name in self._files if name.startswith(prefix))
        found = []
        for folder, _, files in os.walk(os.path.join(self._root, prefix)):
            for file in files:
                found.append(os.path.relpath(os.path.join(folder, file), self._root).replace(os.sep, "/"))
        return sorted(found)

    def module(self, dotted: str) -> Optional[_Module]:
        """Return the parsed module ``tensorflow.x.y`` (``tensorflow_core/x/y.py``), or None."""
        if dotted in self._modules:
            return self._modules[dotted]
        self._modules[dotted] = None
        parts = dotted.split(".")
        if parts[0] != "tensorflow":
            return None
        base = "/".join(["tensorflow_core", *parts[1:]])
        for relative, package in ((base + ".py", False), (base + "/__init__.py", True)):
            text = self._read(relative)
            if text is not None:
                try:
                    tree = ast.parse(text)
                except SyntaxError:
                    return None
                self._modules[dotted] = _Module(dotted, tree, package)
                break
        return self._modules[dotted]

    # -- resolution ---------------------------------------------------------------

    def resolve(self, modname: str, name: str, depth: int = 0) -> Optional[Tuple[str, str]]:
        """Return (module, name) where ``modname.name`` is defined, ``(dotted, "")`` for a module, or None."""
        if depth > 12:
            return None
        module = self.module(modname)
        if module is None:
            return None
        if name in module.defs:
            value = module.defs[name]
            if isinstance(value, (ast.Name, ast.Attribute)):  # an alias: ``foo = bar``
                return self.resolve_expression(module, value, depth + 1) or (modname, name)
            return modname, name
        if name in module.imports:
            return self.resolve_dotted(module.imports[name], depth + 1)
        if self.module(f"{modname}.{name}") is not None:
            return f"{modname}.{name}", ""
        for star in module.star_imports:
            found = self.resolve(star, name, depth + 1)
            if found is not None:
                return found
        return None

    def resolve_dotted(self, dotted: str, depth: int = 0) -> Optional[Tuple[str, str]]:
        """Resolve ``tensorflow.python.ops.array_ops.concat`` (a module, or a name in one)."""
        if not dotted.startswith("tensorflow"):
            return None
        if self.module(dotted) is not None:
            return dotted, ""
        modname, _, name = dotted.rpartition(".")
        if not modname:
            return None
        owner = self.resolve_dotted(modname, depth + 1)
        if owner is None:
            return None
        if owner[1]:
            return (owner[0], f"{owner[1]}.{name}")
        return self.resolve(owner[0], name, depth + 1)

    def resolve_expression(self, module: _Module, expr: ast.AST, depth: int = 0) -> Optional[Tuple[str, str]]:
        """Resolve a Name or Attribute chain written in ``module``."""
        chain: List[str] = []
        while isinstance(expr, ast.Attribute):
            chain.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        chain.append(expr.id)
        chain.reverse()
        head = chain[0]
        if head in module.defs:
            found: Optional[Tuple[str, str]] = (module.name, head)
        elif head in module.imports:
            found = self.resolve_dotted(module.imports[head], depth + 1)
        else:
            found = self.resolve(module.name, head, depth + 1) if module.star_imports else None
        for attr in chain[1:]:
            if found is None:
                return None
            found = self.resolve(found[0], attr, depth + 1) if not found[1] else (found[0], f"{found[1]}.{attr}")
        return found

    def external(self, module: _Module, expr: ast.AST) -> Optional[str]:
        """Return the dotted name of a non-TensorFlow import an expression starts with (``numpy``), if any."""
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        if isinstance(expr, ast.Name) and expr.id in module.imports:
            target = module.imports[expr.id]
            if not target.startswith("tensorflow"):
                return target
        return None

    def definition(self, modname: str, name: str) -> Tuple[Optional[ast.AST], Optional[ast.ClassDef]]:
        """Return the node defining ``name`` in ``modname`` and its class (``Class.method``, ``instance.method``)."""
        module = self.module(modname)
        if module is None:
            return None, None
        head, _, rest = name.partition(".")
        node = module.defs.get(head)
        if not rest:
            return node, None
        if "." in rest:
            return None, None
        if isinstance(node, ast.Call):  # a module-level instance: ``_default_graph_stack = _DefaultGraphStack()``
            found = self.resolve_expression(module, node.func)
            if found is None or found[1].count(".") or self.module(found[0]) is None:
                return None, None
            owner = self.module(found[0]).defs.get(found[1])
            node = owner if isinstance(owner, ast.ClassDef) else None
            module = self.module(found[0])
        if isinstance(node, ast.ClassDef):
            return _class_member(node, rest), node
        return None, None

    # -- classification -----------------------------------------------------------

    def kind(self, modname: str, name: str) -> str:
        """Return the kind of ``modname.name`` (see the module docstring)."""
        key = (modname, name)
        if key in self._kinds:
            return self._kinds[key]
        self._kinds[key] = PYTHON  # recursion guard: a cycle adds no evidence
        self._kinds[key] = self._compute_kind(modname, name)
        return self._kinds[key]

    def _compute_kind(self, modname: str, name: str) -> str:
        if modname.endswith("_pb2"):
            return PROTOBUF
        if modname.startswith(OP_MODULE_PREFIXES):
            return OP
        if not name:
            return UNKNOWN
        if modname.startswith(HARMLESS_PREFIXES):
            return PYTHON
        node, cls = self.definition(modname, name)
        module = self.module(modname)
        if node is None or module is None:
            return UNKNOWN
        if isinstance(node, ast.ClassDef):
            return self._class_kind(module, node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self._function_kind(module, node, cls)
        if isinstance(node, ast.Call) and _is_namedtuple_call(node):
            return VALUE
        return UNKNOWN

    def _class_kind(self, module: _Module, cls: ast.ClassDef) -> str:
        for base in cls.bases:
            if isinstance(base, ast.Call) and _is_namedtuple_call(base):
                return VALUE
        init = _class_member(cls, "__init__")
        if init is not None:
            kind = self._function_kind(module, init, cls, strict=True)
            if kind in (OP, UNKNOWN):
                return kind
        for base in cls.bases:
            found = self.resolve_expression(module, base)
            if found is None:
                if isinstance(base, ast.Name) and base.id == "object":
                    continue
                return UNKNOWN
            kind = self.kind(*found)
            if kind in (OP, UNKNOWN):
                return kind
        return CLASS

    def _function_kind(self, module: _Module, function: ast.AST, cls: Optional[ast.ClassDef],
                       strict: bool = False) -> str:
        numpy = getter = unknown = False
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            kind = self._call_kind(module, function, cls, node, strict)
            if kind == OP:
                return OP
            unknown = unknown or kind == UNKNOWN
            numpy = numpy or kind == NUMPY
            getter = getter or kind == GETTER
        if unknown:
            return UNKNOWN
        if numpy:
            return NUMPY
        if getter:
            return GETTER
        return PYTHON

    def _call_kind(self, module: _Module, function: ast.AST, cls: Optional[ast.ClassDef], node: ast.Call,
                   strict: bool) -> str:
        """The kind of one call written in ``function`` (PYTHON when it says nothing)."""
        func = node.func
        leaf = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if leaf in OP_SEED_NAMES:
            return OP
        external = self.external(module, func)
        if external is not None:
            return NUMPY if external.split(".")[0] == "numpy" else PYTHON
        if _is_self_call(func) and cls is not None:
            member = _class_member(cls, func.attr)
            if member is None:
                return UNKNOWN if strict else PYTHON
            kind = self._function_kind(module, member, cls, strict) if member is not function else PYTHON
        elif isinstance(func, ast.Attribute) and strict and _on_self_attribute(func):
            return UNKNOWN  # ``self._builder.build()``: what it does is not known here
        else:
            found = self.resolve_expression(module, func) if isinstance(func, (ast.Name, ast.Attribute)) else None
            if found is None:
                if leaf in GETTER_NAMES:
                    return GETTER
                if _names_tensorflow(module, func):
                    return UNKNOWN
                return self._local_call_kind(module, function, func, leaf)
            kind = self.kind(*found)
        if kind == PYTHON and leaf in GETTER_NAMES:
            return GETTER
        return kind

    def _local_call_kind(self, module: _Module, function: ast.AST, func: ast.AST, leaf: str) -> str:
        """A call of a local name (``fn(x)``) or of a method of one (``builder.save()``)."""
        if leaf in PYTHON_CALLS or (isinstance(func, ast.Attribute) and leaf in METADATA_METHODS):
            return PYTHON
        receiver = func.value if isinstance(func, ast.Attribute) else func
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            return PYTHON
        if not isinstance(receiver, ast.Name):
            return PYTHON
        nested = [n for n in ast.walk(function) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and n is not function and n.name == receiver.id]
        if nested and isinstance(func, ast.Name):
            return self._function_kind(module, nested[0], None)
        values = _local_values(function, receiver.id)
        if not values:
            # a parameter: calling it runs the caller's code, and its methods may be a tensor's or a dataset's
            return PYTHON if isinstance(func, ast.Attribute) and leaf in METADATA_METHODS else UNKNOWN
        kinds = set()
        for value in values:
            if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
                if self.external(module, value.func) is not None:
                    kinds.add(PYTHON)
                    continue
                target = self.resolve_expression(module, value.func)
                if target is None or target[1].count("."):
                    kinds.add(UNKNOWN)
                    continue
                owner = self.module(target[0])
                cls = owner.defs.get(target[1]) if owner is not None else None
                is_method = isinstance(cls, ast.ClassDef) and isinstance(func, ast.Attribute)
                member = _class_member(cls, leaf) if is_method else None
                kinds.add(self._function_kind(owner, member, cls) if member is not None else UNKNOWN)
            elif isinstance(value, (ast.Name, ast.Attribute)) and self.external(module, value) is not None:
                kinds.add(PYTHON)
            else:
                kinds.add(PYTHON if isinstance(func, ast.Attribute) else UNKNOWN)
        for kind in (OP, UNKNOWN, NUMPY, GETTER):
            if kind in kinds:
                return kind
        return PYTHON

    # -- returned lists -------------------------------------------------------------

    def list_positions(self, modname: str, name: str) -> Optional[List[int]]:
        """Return the positions of the returned tuple that hold Python lists (``[-1]``: the result is one)."""
        node, _ = self.definition(modname, name)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        lists = _names_bound_to_lists(node)
        results = [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
        if not results:
            return None
        shapes = []
        for result in results:
            if _is_list_expression(result, lists):
                shapes.append((-1,))
            elif isinstance(result, ast.Tuple):
                shapes.append(tuple(i for i, item in enumerate(result.elts) if _is_list_expression(item, lists)))
            else:
                return None
        if len(set(shapes)) != 1 or not shapes[0]:
            return None
        return list(shapes[0])

    def unknown_item_positions(self, modname: str, name: str, positions: List[int]) -> List[int]:
        """Return those of ``positions`` whose list gets items other than op results (nested lists, callbacks')."""
        node, _ = self.definition(modname, name)
        module = self.module(modname)
        results = [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
        unknown = []
        for position in positions:
            items = [r if position == -1 else r.elts[position] for r in results]
            names = {item.id for item in items if isinstance(item, ast.Name)}
            appended = [
                call.args[0] for call in ast.walk(node)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append" and isinstance(call.func.value, ast.Name)
                and call.func.value.id in names and call.args
            ]
            if not names or not appended or not all(self._is_op_result(module, node, a) for a in appended):
                unknown.append(position)
        return unknown

    def _is_op_result(self, module: _Module, function: ast.AST, expr: ast.AST) -> bool:
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, (ast.Name, ast.Attribute)):
            return False
        found = self.resolve_expression(module, expr.func)
        return found is not None and self.kind(*found) == OP


def _class_member(cls: ast.ClassDef, name: str) -> Optional[ast.AST]:
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name:
            return statement
    return None


def _is_namedtuple_call(node: ast.Call) -> bool:
    func = node.func
    leaf = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return leaf == "namedtuple"


def _is_self_call(func: ast.AST) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")


def _on_self_attribute(func: ast.Attribute) -> bool:
    value = func.value
    while isinstance(value, ast.Attribute):
        if isinstance(value.value, ast.Name) and value.value.id == "self":
            return True
        value = value.value
    return False


def _names_tensorflow(module: _Module, func: ast.AST) -> bool:
    """An unresolved call written through a TensorFlow import (``ops.foo`` where ``foo`` was not found)."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and module.imports.get(func.id, "").startswith("tensorflow")


def _local_values(function: ast.AST, name: str) -> List[ast.AST]:
    """The expressions assigned to ``name`` in ``function`` (``with ... as name`` and loops count as unknown)."""
    values: List[ast.AST] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    values.append(node.value)
                elif isinstance(target, (ast.Tuple, ast.List)) and any(
                    isinstance(e, ast.Name) and e.id == name for e in target.elts
                ):
                    values.append(target)
        elif isinstance(node, (ast.For, ast.withitem, ast.comprehension)):
            target = node.optional_vars if isinstance(node, ast.withitem) else node.target
            if target is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                values.append(node)
    return values


def _names_bound_to_lists(function: ast.AST) -> set:
    bound: Dict[str, bool] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    is_list = isinstance(node.value, (ast.List, ast.ListComp))
                    bound[target.id] = bound.get(target.id, True) and is_list
    return {name for name, is_list in bound.items() if is_list}


def _is_list_expression(expr: ast.AST, lists: set) -> bool:
    return isinstance(expr, (ast.List, ast.ListComp)) or (isinstance(expr, ast.Name) and expr.id in lists)


def public_names(source: WheelSource) -> Dict[str, Tuple[str, str]]:
    """Map each public ``tensorflow.*`` name of the wheel (``tf.contrib`` too) to its (module, name)."""
    names: Dict[str, Tuple[str, str]] = {}
    api_files = []
    for prefix, root in (("tensorflow_core/_api/v1/", "tensorflow"),
                         ("tensorflow_core/python/keras/api/_v1/keras/", "tensorflow.keras")):
        for path in source.paths(prefix):
            if path == prefix + "v1.py":  # the root package's API (``__init__.py`` there is empty)
                api_files.append((path, root))
            elif path.endswith("/__init__.py") and "/compat/" not in path:
                package = path[len(prefix):-len("/__init__.py")].replace("/", ".")
                api_files.append((path, root + (f".{package}" if package else "")))
    for path, public in api_files:
        tree = ast.parse(source._read(path) or "")
        for statement in tree.body:
            if isinstance(statement, ast.ImportFrom) and statement.module and statement.module.startswith(
                "tensorflow.python"
            ):
                for alias in statement.names:
                    names[f"{public}.{alias.asname or alias.name}"] = (statement.module, alias.name)
    # ``from tensorflow.examples.tutorials.mnist import input_data``
    for path in source.paths("tensorflow_core/examples/"):
        if not path.endswith(".py") or path.endswith("__init__.py") or "test" in path.rsplit("/", 1)[-1]:
            continue
        dotted = "tensorflow." + path[len("tensorflow_core/"):-len(".py")].replace("/", ".")
        module = source.module(dotted)
        for local, node in (module.defs.items() if module is not None else ()):
            if not local.startswith("_") and isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names[f"{dotted}.{local}"] = (dotted, local)
        for local, target in (module.imports.items() if module is not None else ()):
            found = source.resolve_dotted(target) if not local.startswith("_") else None
            if found is not None and found[1]:
                names[f"{dotted}.{local}"] = found
    for path in source.paths("tensorflow_core/contrib/"):
        if not path.endswith("/__init__.py"):
            continue
        package = path[len("tensorflow_core/"):-len("/__init__.py")].replace("/", ".")
        if any(part in ("python", "ops", "kernels", "tests", "testing") for part in package.split(".")):
            continue
        module = source.module(f"tensorflow.{package}")
        if module is None:
            continue
        for local, target in module.imports.items():
            if local.startswith("_"):
                continue
            found = source.resolve_dotted(target)
            if found is not None and found[1]:
                names[f"tensorflow.{package}.{local}"] = found
        for local, node in module.defs.items():
            if not local.startswith("_") and isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names[f"tensorflow.{package}.{local}"] = (module.name, local)
        for star in module.star_imports:
            starred = source.module(star)
            if starred is None:
                continue
            exported = _star_exports(source, starred)
            for local in exported:
                found = source.resolve(star, local)
                if found is not None and found[1]:
                    names[f"tensorflow.{package}.{local}"] = found
    return names


def _star_exports(source: WheelSource, module: _Module, depth: int = 0) -> List[str]:
    for statement in module.tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets
        ) and isinstance(statement.value, (ast.List, ast.Tuple)):
            return [e.value for e in statement.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    exported = [n for n, node in module.defs.items() if not n.startswith("_") and not isinstance(node, ast.Constant)]
    for star in module.star_imports:
        starred = source.module(star)
        if starred is not None and depth < 8:
            exported.extend(_star_exports(source, starred, depth + 1))
    return exported


def read_wheel(path: str) -> Dict[str, object]:
    """Return the TF 1.x facts of the wheel at ``path``: non-op names by kind, and list-returning functions."""
    source = WheelSource(path)
    non_op: Dict[str, str] = {}
    list_items: Dict[str, List[int]] = {}
    unknown_items: Dict[str, List[int]] = {}
    for public, (modname, name) in sorted(public_names(source).items()):
        found = source.resolve(modname, name) if "." not in name else (modname, name)
        if found is None:
            continue
        kind = source.kind(*found)
        if kind in NON_OP_KINDS:
            non_op[public] = kind
        elif kind == OP:
            positions = source.list_positions(*found)
            if positions:
                list_items[public] = positions
                unknown = source.unknown_item_positions(*found, positions)
                if unknown:
                    unknown_items[public] = unknown
    return {"tensorflow": source.version, "non_op": non_op, "list_items": list_items, "unknown_items": unknown_items}
