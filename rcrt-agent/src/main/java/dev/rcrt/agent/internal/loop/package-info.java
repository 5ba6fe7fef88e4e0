/** Implementation detail of the agent loop. Not API. */
@NullMarked
package dev.rcrt.agent.internal.loop;

import org.jspecify.annotations.NullMarked;
