/** The AG-UI endpoint, the input it reads and the events a run's records tell; not part of the API. */
@NullMarked
package dev.rcrt.agui.internal;

import org.jspecify.annotations.NullMarked;
