/** How the MCP server keeps its tool list in step with the store, runs calls, and listens on HTTP; not API. */
@NullMarked
package dev.rcrt.mcp.internal;

import org.jspecify.annotations.NullMarked;
