"""The cluster view's stated margins (imported by the command line's help without loading any report code)."""

#: A straggler's median step is at least this many times the other tasks' median.
DEFAULT_STRAGGLER_MARGIN = 1.25
#: A costly chief's hooks (Saver.save, summary runs over plain steps) take at least this share of its wall time.
DEFAULT_HOOK_MARGIN = 0.10
#: Steps a task needs before its step time is compared with the others'.
MIN_STEPS = 10
#: In a synchronous TF2 run, a straggler's own time per step exceeds the other workers' by at least this share of
#: its step (what the others wait for at each step's all-reduce).
SYNC_WAIT_SHARE = 0.25
