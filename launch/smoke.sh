#!/usr/bin/env bash
# Smoke test of the exported launcher: a piped Gogo session that lists the plug-ins, profiles the
# default simulated host, prints its report and exports its folded stacks to /dev/stdout (here a
# file opened by '>': streamed through the launcher's own descriptor, never replaced). Fails when
# an expected line is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
# A home of its own: the run's session goes to a store there, never the user's ~/.hyperprof.
home=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$home"' EXIT
# A fresh framework in a JVM of its own, as a first run on a new machine: not a resident one.
HYPERPROF_RESIDENT=off HYPERPROF_JAVA_OPTS="${HYPERPROF_JAVA_OPTS:-} -Duser.home=$home" \
  HYPERPROF_CONFIG_DIR="$home/.hyperprof/config" "$here/hyperprof" 'hp:models' 'hp:policies' 'hp:resolvers' 'hp:consumers' 'hp:profile --ms 300' \
  'hp:export flamegraph folded /dev/stdout' >"$out" 2>&1
rc=$?
fail=0
expect() {
  if ! grep -qF -- "$1" "$out"; then
    echo "smoke: expected '$1' in the launcher's output" >&2
    fail=1
  fi
}
expect "i386/p6"
expect "systemwide"
expect "kallsyms"
expect "opreport"
expect "CPU: PIII, speed 2800 MHz"
expect "Counted CPU_CLK_UNHALTED events"
expect "samples taken"
expect "xen-syms"
expect "domU-rcv;tcp_v4_rcv_[k] "
expect "streamed the latest session (all domains) as flamegraph folded into /dev/stdout"
if grep -qE "Exception|at org\.|at java\." "$out"; then
  echo "smoke: a stack trace or exception reached the user" >&2
  fail=1
fi
if [ "$rc" -ne 0 ] || [ "$fail" -ne 0 ]; then
  echo "---- launcher output (exit $rc) ----" >&2
  cat "$out" >&2
  exit 1
fi
echo "smoke: launcher profiled the default host, printed its report and exported it to /dev/stdout"
