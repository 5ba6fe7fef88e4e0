/** Implementation detail of rcrt-core: the llm_hints engine. Not API. */
@NullMarked
package dev.rcrt.core.internal.hints;

import org.jspecify.annotations.NullMarked;
