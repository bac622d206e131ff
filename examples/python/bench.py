"""Per-call cost of the Python host: median microseconds of `inject` (and `match`) over the
development messages, each turn through wasmtime-py into the component and back.

    python bench.py [SKILLS] [MESSAGES.jsonl] [ROUNDS]   (defaults: ../shared/corpus, ../shared/queries/dev.jsonl, 20)
"""

import json
import statistics
import sys
import time
from pathlib import Path

from skillwire_component import FolderSource, Skillwire
from test_skillwire import COMPONENT, REPO

skills = sys.argv[1] if len(sys.argv) > 1 else str(REPO.parent / "shared" / "corpus")
messages_file = sys.argv[2] if len(sys.argv) > 2 else str(REPO.parent / "shared" / "queries" / "dev.jsonl")
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20

messages = [json.loads(line)["q"] for line in Path(messages_file).read_text().splitlines() if line.strip()]
started = time.perf_counter()
sw = Skillwire(COMPONENT, [FolderSource(skills)])
print(f"load: {sw.report()['loaded']} skills in {time.perf_counter() - started:.2f} s")
for op in ("match", "inject"):
    call = getattr(sw, op)
    for message in messages:  # warm-up
        call(message)
    times = []
    for _ in range(rounds):
        for message in messages:
            t = time.perf_counter()
            call(message)
            times.append(time.perf_counter() - t)
    print(f"{op}: median {statistics.median(times) * 1e6:.0f} µs over {len(times)} turns")
