/** Implementation detail of rcrt-opentelemetry. Not API: may change in any release. */
@NullMarked
package dev.rcrt.opentelemetry.internal;

import org.jspecify.annotations.NullMarked;
