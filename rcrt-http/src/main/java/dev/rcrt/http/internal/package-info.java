/** The embedded HTTP server of the MCP, A2A and AG-UI endpoints, and what every request passes; not API. */
@NullMarked
package dev.rcrt.http.internal;

import org.jspecify.annotations.NullMarked;
