"""The seed's retry-loop example: threshold 3 lets three identical calls
through and stops the fourth before its handler runs."""
from caveman_cloud import RetryLoopError

from _cave import cave, emit

runs = []
handlers = {"lookup_status": lambda: runs.append(1) or {"status": "ok"}}
breaker = cave().retry_loop_breaker(3)
caught = None
attempts = 0
try:
    for attempt in range(4):
        attempts += 1
        breaker.guard("lookup_status", {}, handlers["lookup_status"])
except RetryLoopError as error:
    caught = error

emit({
    "attempts": attempts,
    "handler_runs": len(runs),
    "raised": caught is not None,
    "repeats": caught and caught.repeats,
    "threshold": caught and caught.threshold,
    "signature": caught and caught.signature,
    "message": caught and str(caught),
})
