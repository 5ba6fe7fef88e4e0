/**
 * RCRT tools: tool definitions read from breadcrumbs, the {@link dev.rcrt.tools.ToolHandler} SPI
 * for tool authors, and the {@link dev.rcrt.tools.ToolRunner} that turns a {@code tool.request.v1}
 * breadcrumb into a {@code tool.response.v1} breadcrumb.
 *
 * <p>Tools are breadcrumbs: {@code tool.code.v1}, {@code tool.v1} or {@code tool.definition.v1}.
 * There is no central registry; {@link dev.rcrt.tools.ToolDiscovery} reads them from the store when
 * asked. Depends on rcrt-core only; knows nothing about agents or language models.
 */
@NullMarked
package dev.rcrt.tools;

import org.jspecify.annotations.NullMarked;
