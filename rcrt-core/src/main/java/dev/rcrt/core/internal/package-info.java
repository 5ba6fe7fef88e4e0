/** Implementation detail of rcrt-core. Not API: may change in any release. */
@NullMarked
package dev.rcrt.core.internal;

import org.jspecify.annotations.NullMarked;
