/**
 * A running RCRT server as the {@link dev.rcrt.core.BreadcrumbStore}: {@link
 * dev.rcrt.serverstore.RcrtServerStore}, over RCRT's REST API and event stream.
 */
@NullMarked
package dev.rcrt.serverstore;

import org.jspecify.annotations.NullMarked;
