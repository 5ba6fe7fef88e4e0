/** Implementation detail of rcrt-llm: the OpenAI chat-completions wire. Not API: may change in any release. */
@NullMarked
package dev.rcrt.llm.internal.openai;

import org.jspecify.annotations.NullMarked;
