/** Implementation detail of rcrt-agent. Not API: may change in any release. */
@NullMarked
package dev.rcrt.agent.internal.openai;

import org.jspecify.annotations.NullMarked;
