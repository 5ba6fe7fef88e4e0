/** The REST client, the record mapping and the event stream behind {@code RcrtServerStore}; not API. */
@NullMarked
package dev.rcrt.serverstore.internal;

import org.jspecify.annotations.NullMarked;
