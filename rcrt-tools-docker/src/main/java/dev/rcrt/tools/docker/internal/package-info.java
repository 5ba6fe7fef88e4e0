/** Implementation detail of rcrt-tools-docker. Not API: may change in any release. */
@NullMarked
package dev.rcrt.tools.docker.internal;

import org.jspecify.annotations.NullMarked;
