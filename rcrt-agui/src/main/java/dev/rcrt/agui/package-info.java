/** {@link dev.rcrt.agui.AgUiServer}: agent records served to front-ends over AG-UI. */
@NullMarked
package dev.rcrt.agui;

import org.jspecify.annotations.NullMarked;
