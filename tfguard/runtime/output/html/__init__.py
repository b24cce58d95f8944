"""The run report as one offline HTML page (``tfguard run --html FILE``, ``tfguard report A.json [B.json] --html``).

A pure function of the run verdict (verdict.RunVerdict, judged once; ``tfguard report`` reads it back from the JSON
document): nothing is measured, judged or read from disk here. The page holds its CSS, script and SVG charts inline
and a Content-Security-Policy that refuses every request, so it opens the same from disk, an e-mail or a CI
artifact. Every value it writes goes through one escape function (markup.esc). From the top:

- the verdict lines (one per diagnostic of the run, of every scope: a session's, across sessions, the
  tf.functions', the program's; or "no diagnostics"), then each diagnostic in full with the source lines it names
  (its sites) and its help (verdict.py);
- the busiest session's step time (the series the slowdown verdict judged, min/max per bucket so spikes survive
  downsampling, the warm-up it skips, the medians of its first and last fifth and the trend joining them, the loop
  start), graph size (ops) over the runs with the growth sites, the host share with its top source lines, where
  the wall time went (sess.run, summaries, Saver.save, outside sess.run) and the busiest fetch signatures
  (charts.py, evidence.py);
- a TF2 run's steps: time per step with TFG902's trend where it judged one, and where the steps' time went (input
  waits, in the step, the host's Python between steps, checkpoints, summaries) (steps.py);
- traces per function (TF2 ``tf.function``, TFG908), when the run traced any, with the retracing ones' traces over
  their calls;
- the run's facts (command, TensorFlow version, exit status, sessions, runs watched and the text report's
  evidence totals), devices, and every session of a run of several.

`page.render_report` makes the page of one run, `side_by_side.render_comparison` one of two or more runs side by
side; `page.write_page` writes either.
"""
