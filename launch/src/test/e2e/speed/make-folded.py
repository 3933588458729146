#!/usr/bin/env python3
"""A folded-stacks profile for the flame graph's speed harness: 1,000,000 samples over at least 50,000
distinct stacks of depth 10 to 16, from a fixed seed (the same file every time).

    python3 make-folded.py > /tmp/speed.folded
"""
import random

rng = random.Random(20261128)
STACKS = 60_000
SAMPLES = 1_000_000
modules = ["net", "fs", "mm", "sched", "io", "crypto", "db", "http", "json", "rpc"]
names = [f"{m}_{verb}_{i}" for m in modules for verb in ("read", "write", "alloc", "walk", "send") for i in range(40)]

# A tree of call paths: each stack extends a shared prefix, so the flame graph has wide and narrow frames.
prefixes = [["main"]]
stacks = set()
while len(stacks) < STACKS:
    base = rng.choice(prefixes)
    depth = rng.randint(10, 16)
    s = list(base)
    while len(s) < depth:
        s.append(rng.choice(names))
    t = tuple(s)
    if t not in stacks:
        stacks.add(t)
        if len(prefixes) < 4000:
            prefixes.append(s[:rng.randint(2, 6)])
stacks = sorted(stacks)
# Zipf-like weights: a few hot stacks, a long tail; every stack at least one sample.
weights = [1.0 / (i + 1) ** 0.9 for i in range(len(stacks))]
rng.shuffle(weights)
total = sum(weights)
counts = [1 + int((SAMPLES - len(stacks)) * w / total) for w in weights]
counts[0] += SAMPLES - sum(counts)
for s, c in zip(stacks, counts):
    print(";".join(s) + " " + str(c))
