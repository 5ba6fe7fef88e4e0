#!/usr/bin/env bash
# Runs the JMH benchmarks of rcrt-benchmarks and prints one line per figure.
#   ./bench.sh            full run (2 forks, 5 x 2 s measurement): about 15 minutes on 2 cores
#   ./bench.sh --quick    1 fork, 3 x 1 s measurement: a few minutes
#   ./bench.sh --quick StoreBenchmark    any further arguments select benchmarks (JMH regexps)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

opts=(-f 2 -wi 3 -w 2s -i 5 -r 2s)
if [ "${1:-}" = "--quick" ]; then
  opts=(-f 1 -wi 2 -w 1s -i 3 -r 1s)
  shift
fi

# The container benchmark's image, built without a registry from the host's busybox-static.
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1 && [ -x /bin/busybox ]; then
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
java -cp "$cp" org.openjdk.jmh.Main "${opts[@]}" -rf json -rff "$out" "$@" >&2

echo "# $(java -version 2>&1 | head -1); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
java -cp "$cp" dev.rcrt.benchmarks.Report "$out"
java -cp "$cp" dev.rcrt.benchmarks.TokenReport
