"""TFG904's and TFG905's TF2 cases: summaries and checkpoints written on most steps, with their share of the steps'
wall time and the line that writes them.

- Summaries (TFG904): `tf.summary.*` writes and `flush()` made eagerly (the program's own, or a Keras `TensorBoard`
  callback's, blamed on the line that made the callback). A warning when the busiest line writes on `summary_share`
  of the steps or more AND the summaries take `save_threshold` of the steps' wall time; written that often but cheap:
  info. Summaries inside a `tf.function` run in its graph and are not timed apart (silent).
- Checkpoints (TFG905): `Checkpoint.save/write`, `CheckpointManager.save`, `model.save`, `save_weights` (a Keras
  `ModelCheckpoint` blamed on the line that made it): a warning at `save_threshold` of the wall time over at least
  `min_saves` saves, as for `Saver.save` in a session. Saves `save_steps_apart` steps apart or more (one per 100
  steps, the fix TFG202 and this page advise) are a cadence, not "too often": their share is said as info (a small
  model's step is short beside any save; the share is the model's, not the cadence's).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.step_shares import options_of, percent, share_judged, split, where
from tfguard.runtime.record.steps import StepRecord


def _made_by(through: str) -> str:
    return " (the `%s` callback made there)" % through if through else ""


def judge_summaries(record: StepRecord, diagnostic: Any, options: Optional[Dict[str, Any]] = None) -> List[Any]:
    """TFG904 (`diagnostic`, summaries_every_run.py's declaration) on a TF2 run (see module docstring)."""
    options = options_of(options)
    wall, steps = record.wall(), record.steps
    summaries, flushes = record.costs("summary"), record.costs("flush")
    if steps < options["min_runs"] or wall <= 0 or not summaries:
        return []
    site, busiest = max(summaries, key=lambda item: item[1].count)
    if busiest.count < options["summary_share"] * steps:
        return []
    writes = sum(cost.count for _, cost in summaries)
    flushed = sum(cost.count for _, cost in flushes)
    seconds = sum(cost.seconds for _, cost in summaries + flushes)
    share = min(1.0, seconds / wall)
    severity = "warning" if share >= options["save_threshold"] else "info"
    message = "summaries every step: %d summary writes for %d steps (%.1f per step) from %s%s%s took %s of the " \
              "steps' %s (%s per step) — write them every N steps (`if step %% 100 == 0:` or " \
              "`tf.summary.record_if`), a TensorBoard callback with `update_freq=\"epoch\"` or a larger int" % (
                  writes, steps, writes / float(steps), where(site), _made_by(busiest.through),
                  ", %d flushes" % flushed if flushed else "", percent(share), format_seconds(wall),
                  format_seconds(seconds / steps))
    headline, advice = split(message)
    return share_judged([diagnostic.finding(
        headline, severity, site[0] if site else None, site[1] if site else None, summary_writes=writes,
        help=advice, flushes=flushed, summary_seconds=seconds, summary_fraction=share, steps=steps, wall_seconds=wall,
        callback=busiest.through or None)], record, options)


def judge_saves(record: StepRecord, diagnostic: Any, options: Optional[Dict[str, Any]] = None) -> List[Any]:
    """TFG905 (`diagnostic`, saves_too_often.py's declaration) on a TF2 run (see module docstring)."""
    options = options_of(options)
    wall, steps = record.wall(), record.steps
    saves = record.costs("save")
    count = sum(cost.count for _, cost in saves)
    if not steps or wall <= 0 or count < options["min_saves"]:
        return []
    seconds = sum(cost.seconds for _, cost in saves)
    share = min(1.0, seconds / wall)
    if share < options["save_threshold"]:
        return []
    site, top = saves[0]
    apart = steps / float(count)
    severity: Optional[str] = None  # the declared one
    if apart >= options["save_steps_apart"]:
        severity = "info"
        headline, advice = "checkpoints one per %.0f steps (%d saves) took %s of the steps' %s (%s per save): a " \
                           "cadence, not too often; a save costs this much beside this model's short steps" % (
                               apart, count, percent(share), format_seconds(wall), format_seconds(seconds / count)), ""
    else:
        headline, advice = split(
            "checkpoints too often: %d saves for %d steps (%s) took %s of the steps' %s (%s per save), most at "
            "%s%s — save every N steps or once per epoch (`CheckpointManager(..., checkpoint_interval=N)` with "
            "`save(checkpoint_number=step)`, `ModelCheckpoint(save_freq=\"epoch\")`)" % (
                count, steps, "every step" if count >= steps else "one per %.1f steps" % apart, percent(share),
                format_seconds(wall), format_seconds(seconds / count), where(site), _made_by(top.through)))
    return share_judged([diagnostic.finding(
        headline, severity, site[0] if site else None, site[1] if site else None, help=advice, saves=count,
        save_seconds=seconds, save_fraction=share, steps=steps, wall_seconds=wall, callback=top.through or None)],
        record, options)
