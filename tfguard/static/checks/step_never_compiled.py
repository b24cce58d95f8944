"""TFG407: a GradientTape training step applied on every batch of a loop, with no ``tf.function`` around it."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.function_creation import analysis_of
from tfguard.static.analysis.keras_steps import (
    eager_on_purpose,
    function_loop_path,
    inline_step_loop,
    is_step_function,
    runs_a_handful,
    tape_blocks,
)
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.analysis.tf_functions import enclosing_loop, tf2_code, tf_functions
from tfguard.static.finding import ChainLink, Finding
from tfguard.static.registry import Rule

#: The headline: which step, applied from which loop (formatted with step, where, loop).
HEADLINE = "the training step `{step}()`{where} takes gradients with `tf.GradientTape` and applies them on every " \
           "iteration of the loop at line {loop}, and no `tf.function` compiles it"
#: The advice: what compiling gains and how.
ADVICE = (
    "an eager step dispatches its ops from Python one at a time (often twice the time of the compiled step, more "
    "on a GPU with small batches): decorate it with `@tf.function`, or wrap it once before the loop "
    "(`train_step = tf.function(train_step)`), and use `tf.config.run_functions_eagerly(True)` to debug it"
)


#: The headline of a step written in the loop's body (formatted with loop).
INLINE_HEADLINE = "a training step written in the body of the loop at line {loop} takes gradients with " \
                  "`tf.GradientTape` and applies them on every iteration, and no `tf.function` compiles it"
#: Its advice: move the step into a compiled function.
INLINE_ADVICE = (
    "an eager step dispatches its ops from Python one at a time (often twice the time of the compiled step, more "
    "on a GPU with small batches): move the tape, the gradients and the update into a function decorated with "
    "`@tf.function` and call it from the loop"
)


class StepNeverCompiled(Rule):
    """A custom training loop whose step runs eagerly: TensorFlow's performance guide's first advice is missed."""

    code = "TFG407"
    name = "step-never-compiled"
    severity = "warning"
    summary = "a GradientTape training step is applied on every batch of a loop with no `tf.function` around it"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each local step function a loop calls uncompiled, and loop calls of such steps in other files."""
        if not tf2_code(module):
            return
        facts = tf_functions(module)
        tapes = module.candidate_calls(frozenset(), frozenset({"GradientTape"}))
        seen = set()
        for tape in tapes:
            function = tape.scope()
            if not isinstance(function, FUNCTIONS) or id(function) in seen:
                continue
            seen.add(id(function))
            if facts.is_traced_body(function) or facts.inside_trace(function) \
                    or not is_step_function(module, function):
                continue
            path = function_loop_path(module, function)
            if path is None or any(eager_on_purpose(call) for call in path.calls):
                continue
            chain = tuple(ChainLink(module.path, call.lineno, _label(call)) for call in path.calls)
            yield _finding(self, module, function, _headline(function, path.loop.lineno), chain)
        yield from self._steps_in_loop_bodies(module)
        if module.project is not None:
            yield from self._steps_in_other_files(module)

    def _steps_in_loop_bodies(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """A step written in the loop's body (tape and apply in the iteration): reported at the ``with`` line, the
        block to move into a compiled function."""
        for tape_with in tape_blocks(module):
            if isinstance(tape_with.scope(), FUNCTIONS) and tf_functions(module).is_traced_body(tape_with.scope()):
                continue
            loop = inline_step_loop(module, tape_with)
            if loop is None or eager_on_purpose(tape_with):
                continue
            end_col = tape_with.end_col_offset if tape_with.lineno == tape_with.end_lineno else None
            first = tape_with.items[0][0]
            yield Finding(path=module.path, line=tape_with.lineno, column=tape_with.col_offset + 1,
                          end_line=first.end_lineno or tape_with.lineno,
                          end_column=(end_col if end_col is not None else first.end_col_offset or 0) + 1,
                          code=self.code, name=self.name, severity=self.severity,
                          headline=INLINE_HEADLINE.format(loop=loop.lineno), help=INLINE_ADVICE)

    def _steps_in_other_files(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """A loop here calling a step defined in another file of the project: reported at the call here (this
        file's findings stay in this file), the step's ``def`` line in the chain."""
        facts = tf_functions(module)
        reported = set()
        for call in module.nodes_of(nodes.Call):
            loop = enclosing_loop(call)
            if loop is None or facts.inside_trace(call) or runs_a_handful(loop) or facts.traced_of(call) is not None:
                continue
            step = _foreign_step(module, call)
            if step is None or id(step[1]) in reported:
                continue
            owner, function = step
            reported.add(id(function))
            link = ChainLink(owner.path, function.lineno, function_label(function))
            end_col = call.end_col_offset if call.end_col_offset is not None else call.col_offset
            yield Finding(path=module.path, line=call.lineno, column=call.col_offset + 1,
                          end_line=call.end_lineno or call.lineno, end_column=end_col + 1, code=self.code,
                          name=self.name, severity=self.severity,
                          headline=_headline(function, loop.lineno,
                                             where=f" (in {owner.path}, line {function.lineno})"),
                          help=ADVICE,
                          chain=(link,))


def _foreign_step(module: ModuleAnalysis, call: nodes.Call) -> Optional[Tuple[ModuleAnalysis, nodes.NodeNG]]:
    if not isinstance(call.func, (nodes.Name, nodes.Attribute)):
        return None
    function = module.called_function(call)
    if not isinstance(function, FUNCTIONS) or function.root() is module.module:
        return None
    owner = analysis_of(module, function)
    if owner is None or not tf2_code(owner):
        return None
    owner_facts = tf_functions(owner)
    if owner_facts.is_traced_body(function) or owner_facts.inside_trace(function) \
            or not is_step_function(owner, function):
        return None
    return owner, function


def _label(node: nodes.NodeNG) -> str:
    scope = node.scope()
    return function_label(scope) if isinstance(scope, FUNCTIONS) else "<module>"


def _headline(function: nodes.NodeNG, loop_line: int, where: str = "") -> str:
    return HEADLINE.format(step=function_label(function), where=where, loop=loop_line)


def _finding(rule: Rule, module: ModuleAnalysis, function: nodes.NodeNG, headline: str,
             chain: Tuple[ChainLink, ...]) -> Finding:
    """The finding on the step's ``def`` line (where ``@tf.function`` goes); the loop's call first in the chain."""
    column = function.col_offset or 0
    return Finding(path=module.path, line=function.lineno, column=column + 1, end_line=function.lineno,
                   end_column=column + len(f"def {function.name}") + 1, code=rule.code, name=rule.name,
                   severity=rule.severity, headline=headline, help=ADVICE, chain=chain)
