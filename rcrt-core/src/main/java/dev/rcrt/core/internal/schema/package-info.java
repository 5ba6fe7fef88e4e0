/** Implementation detail of rcrt-core: JSON Schema validation. Not API. */
@NullMarked
package dev.rcrt.core.internal.schema;

import org.jspecify.annotations.NullMarked;
