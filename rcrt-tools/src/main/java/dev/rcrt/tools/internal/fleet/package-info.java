/** Implementation detail of rcrt-tools: runners that share a store's tool requests. Not API. */
@NullMarked
package dev.rcrt.tools.internal.fleet;

import org.jspecify.annotations.NullMarked;
