/** Implementation detail of rcrt-tools-js. Not API: may change in any release. */
@NullMarked
package dev.rcrt.tools.js.internal;

import org.jspecify.annotations.NullMarked;
