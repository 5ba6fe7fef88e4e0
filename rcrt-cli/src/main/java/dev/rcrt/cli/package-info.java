/** The {@code ./rcrt} command line: chat with an agent, list and inspect tools. */
@NullMarked
package dev.rcrt.cli;

import org.jspecify.annotations.NullMarked;
