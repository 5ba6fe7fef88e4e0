/** Implementation detail of rcrt-postgres. Not API: may change in any release. */
@NullMarked
package dev.rcrt.postgres.internal;

import org.jspecify.annotations.NullMarked;
