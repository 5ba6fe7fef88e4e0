/** Implementation detail of the command line. Not API. */
@NullMarked
package dev.rcrt.cli.internal;

import org.jspecify.annotations.NullMarked;
