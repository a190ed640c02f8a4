#!/usr/bin/env python3
"""check_trace.py FILE [--min-events N]: checks a Chrome trace written by the harness with Python's json
module (an independent parser): valid JSON, every complete event has numeric pid/tid/ts/dur, timestamps are
microseconds from the first event (the earliest ts is 0; no duration is ns-sized, i.e. over a second), every
track is in time order and never overlaps, every track and process is named. Exit 0 if all hold."""
import json
import sys
from collections import defaultdict


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    path = argv[0]
    min_events = int(argv[argv.index("--min-events") + 1]) if "--min-events" in argv else 1
    with open(path) as f:
        doc = json.load(f)  # raises on invalid JSON
    errors = []
    events = doc["traceEvents"]
    complete = [e for e in events if e.get("ph") == "X"]
    names = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    procs = {e["pid"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    if len(complete) < min_events:
        errors.append("%d complete events, expected at least %d" % (len(complete), min_events))
    tracks = defaultdict(list)
    for e in complete:
        for key in ("pid", "tid", "ts", "dur"):
            if not isinstance(e.get(key), (int, float)) or isinstance(e.get(key), bool):
                errors.append("event %s has no numeric %s" % (e, key))
        if e["dur"] < 0 or e["dur"] > 1e6:
            errors.append("event %s: dur %s us is not a plausible duration in microseconds" % (e, e["dur"]))
        if (e["pid"], e["tid"]) not in names:
            errors.append("track (%s, %s) has no thread_name" % (e["pid"], e["tid"]))
        if e["pid"] not in procs:
            errors.append("pid %s has no process_name" % e["pid"])
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["dur"]))
    if complete and min(e["ts"] for e in complete) != 0:
        errors.append("the first event is at %s us, not 0" % min(e["ts"] for e in complete))
    for key, evs in tracks.items():
        for (t0, d0), (t1, _) in zip(evs, evs[1:]):
            if t1 < t0:
                errors.append("track %s goes back in time: %s after %s" % (key, t1, t0))
            if t1 < t0 + d0 - 1e-6:
                errors.append("track %s: event at %s overlaps the one at %s (dur %s)" % (key, t1, t0, d0))
    for err in errors[:20]:
        print("check_trace.py: " + err, file=sys.stderr)
    print("check_trace.py: %s: %d events on %d tracks of %d SMs: %s"
          % (path, len(complete), len(tracks), len(procs), "FAIL" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
