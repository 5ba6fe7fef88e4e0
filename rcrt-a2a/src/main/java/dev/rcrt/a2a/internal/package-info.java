/** How agent runs become A2A tasks, how cards are derived, and the HTTP endpoint; not API. */
@NullMarked
package dev.rcrt.a2a.internal;

import org.jspecify.annotations.NullMarked;
