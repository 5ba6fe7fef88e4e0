/** JMH benchmarks of the SDK; run with {@code ./bench.sh}. Figures go to docs/benchmarks.md. */
@NullMarked
package dev.rcrt.benchmarks;

import org.jspecify.annotations.NullMarked;
