/** Implementation detail of rcrt-tools. Not API: may change in any release. */
@NullMarked
package dev.rcrt.tools.internal.trust;

import org.jspecify.annotations.NullMarked;
