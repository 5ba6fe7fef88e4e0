#!/usr/bin/env bash
# Runs the JMH benchmarks of rcrt-benchmarks and prints one line per figure.
#   ./bench.sh            full run (2 forks, 5 x 2 s after 3 x 2 s warm-up, every benchmark): half an hour or more on 2 cores
#   ./bench.sh --quick    1 fork, 2 x 1 s after 1 x 1 s warm-up, in-memory and BM25 variants only, no cold-start,
#                         container or PostgreSQL runs: about 2 minutes on 2 cores (1 min 51 s measured), plus the first build
#   ./bench.sh --quick StoreBenchmark    any further arguments select benchmarks (JMH regexps)
# Stopping it (Ctrl-C, or a signal to this script) stops JMH and every JVM it forked.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

opts=(-f 2 -wi 3 -w 2s -i 5 -r 2s)
quick=false
if [ "${1:-}" = "--quick" ]; then
  quick=true
  opts=(-f 1 -wi 1 -w 1s -i 2 -r 1s -p kind=memory -p ranking=bm25 -e FirstCallBenchmark -e JsColdBenchmark -e ContainerToolBenchmark)
  shift
fi

# The container benchmark's image, built without a registry from the host's busybox-static.
if ! $quick && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1 && [ -x /bin/busybox ]; then
  root="$(mktemp -d)"
  mkdir -p "$root/bin" "$root/www/cgi-bin" "$root/tmp"
  cp /bin/busybox "$root/bin/"
  for a in sh httpd cat head printf; do ln -s busybox "$root/bin/$a"; done
  printf '#!/bin/sh\nbody=$(head -c "${CONTENT_LENGTH:-0}")\nprintf '"'"'Content-Type: application/json\\r\\n\\r\\n{"received":%%s}'"'"' "$body"\n' > "$root/www/cgi-bin/run"
  chmod +x "$root/www/cgi-bin/run"
  tar -C "$root" -c . | docker import - rcrt-bench/echo:1 >/dev/null
  rm -rf "$root"
else
  echo "bench: no Docker daemon (or no /bin/busybox): ContainerToolBenchmark will fail its setup" >&2
fi

echo "bench: building rcrt-benchmarks..." >&2
mvn -q -B -Dstyle.color=never -DskipTests -pl rcrt-benchmarks -am package >&2

cp="rcrt-benchmarks/target/rcrt-benchmarks.jar:rcrt-benchmarks/target/lib/*"
out="rcrt-benchmarks/target/jmh-result.json"
if $quick; then
  echo "bench: quick run, about 2 minutes on 2 cores; JMH prints its progress" >&2
else
  echo "bench: full run, half an hour or more on 2 cores; JMH prints its progress and an estimate of what is left" >&2
fi
# JMH runs in a process group of its own, so that stopping this script stops it and the JVMs it forked
jmh=""
stop() {
  if [ -n "$jmh" ]; then
    kill -TERM -- "-$jmh" 2>/dev/null || true
    wait "$jmh" 2>/dev/null || true
  fi
}
trap 'stop; exit 130' INT TERM
trap stop EXIT
if command -v setsid >/dev/null 2>&1; then
  setsid java -cp "$cp" org.openjdk.jmh.Main "${opts[@]}" -rf json -rff "$out" "$@" >&2 &
else # macOS has no setsid: job control gives the background job a group of its own
  set -m
  java -cp "$cp" org.openjdk.jmh.Main "${opts[@]}" -rf json -rff "$out" "$@" >&2 &
  set +m
fi
jmh=$!
wait "$jmh"
jmh=""

echo "# $(java -version 2>&1 | head -1); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
java -cp "$cp" dev.rcrt.benchmarks.Report "$out"
java -cp "$cp" dev.rcrt.benchmarks.TokenReport
