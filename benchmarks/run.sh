#!/usr/bin/env bash
# Builds the shaded JMH jar and runs every measurement of issue #7 (parts 1-4), writing the raw
# results and a summary.md (the tables of BENCHMARKS.md) into benchmarks/target/results/<run>/.
#
#   benchmarks/run.sh            full run: JMH 12 x 1 s warm-up, 5 x 1 s measurement, 2 forks
#                                (about 20 minutes; run it on a quiet machine)
#   benchmarks/run.sh --smoke    the same programs with short iterations (about 4 minutes): proves
#                                that everything runs; its numbers are not representative
#   benchmarks/run.sh --no-build reuse benchmarks/target/benchmarks.jar
#
# Environment: JAVA_HOME (or JAVA) picks the JVM; JMH_EXTRA adds JMH options (e.g. "-prof stack").
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

mode=full
build=true
for arg in "$@"; do
  case "$arg" in
    --smoke) mode=smoke ;;
    --no-build) build=false ;;
    -h|--help) sed -n '2,10p' "$0" | cut -c3-; exit 0 ;;
    *) echo "unknown option: $arg (expected --smoke, --no-build)" >&2; exit 2 ;;
  esac
done

if [[ -n "${JAVA:-}" ]]; then
  java_cmd=$JAVA
elif [[ -n "${JAVA_HOME:-}" ]]; then
  java_cmd=$JAVA_HOME/bin/java
else
  java_cmd=java
fi

jar=$root/benchmarks/target/benchmarks.jar
if $build; then
  echo "== building $jar"
  mvn -B -q -pl benchmarks -am package -DskipTests
fi
[[ -f "$jar" ]] || { echo "missing $jar: run without --no-build" >&2; exit 1; }

if [[ $mode == smoke ]]; then
  jmh_run=(-wi 3 -w 500ms -i 3 -r 500ms -f 1)
  accuracy_seconds=2
else
  jmh_run=(-wi 12 -w 1s -i 5 -r 1s -f 2)
  accuracy_seconds=5
fi
# shellcheck disable=SC2206 # word splitting of JMH_EXTRA is intended
jmh_common=(-foe true -prof gc ${JMH_EXTRA:-})

out=$root/benchmarks/target/results/$mode-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
ln -sfn "$out" "$root/benchmarks/target/results/latest"
# Sentinel writes log files from its first call; keep them with the results. JMH's forks inherit
# the host JVM's arguments, so the property reaches them too.
sentinel=(-Dcsp.sentinel.log.dir="$out/sentinel-logs")

{
  echo "run:     $mode, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "command: benchmarks/run.sh $*"
  echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
  echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') x $(nproc) (online)"
  echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "os:      $(uname -sr)"
  echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min load average before the run)"
  echo "jvm:     $("$java_cmd" -version 2>&1 | sed -n 2p)"
  echo "jmh:     ${jmh_run[*]} ${jmh_common[*]}"
} > "$out/environment.txt"
cat "$out/environment.txt"

jmh() {
  local name=$1
  shift
  echo "== JMH $name"
  "$java_cmd" "${sentinel[@]}" -jar "$jar" "$@" "${jmh_run[@]}" "${jmh_common[@]}" \
    -rf csv -rff "$out/$name.csv" -o "$out/$name.txt"
  tail -n +"$(grep -n '^Benchmark .*Units$' "$out/$name.txt" | tail -1 | cut -d: -f1)" "$out/$name.txt" \
    | grep -v -e ':gc.alloc.rate ' -e ':gc.count' -e ':gc.time' -e '^Benchmark result' -e '^$'
}

# Part 1: one shared limit, 1 and 2 threads. buckets=2,10 shows what the bucket count costs.
jmh single-1t 'SingleLimitBenchmark' -t 1 -p buckets=2,10
jmh single-2t 'SingleLimitBenchmark' -t 2 -p buckets=2,10
# Part 2: 1,000,000 keys, Zipf 1.0.
jmh per-key 'PerKeyBenchmark' -t 1

# Part 3: one JVM per library, serial collector (its full GC compacts everything: used = live).
echo "== memory per key"
: > "$out/memory.txt"
for library in leapgate-2 leapgate-10 bucket4j-caffeine resilience4j sentinel; do
  "$java_cmd" "${sentinel[@]}" -XX:+UseSerialGC -Xms3g -Xmx3g -cp "$jar" \
    dev.leapgate.benchmarks.MemoryPerKey "$library" 2>>"$out/memory.log" | tee -a "$out/memory.txt" | grep -v '^RESULT'
done

# Part 4: 4 threads hammer N = 1000 per second.
echo "== accuracy under contention"
"$java_cmd" "${sentinel[@]}" -cp "$jar" dev.leapgate.benchmarks.AccuracyUnderContention \
  --limit 1000 --threads 4 --seconds "$accuracy_seconds" 2>>"$out/accuracy.log" \
  | tee "$out/accuracy.txt" | grep -v '^RESULT'

"$java_cmd" -cp "$jar" dev.leapgate.benchmarks.ResultsSummary "$out" > /dev/null
echo "== done: $out/summary.md"
