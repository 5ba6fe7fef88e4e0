/** Conversions between the SDK's and LangChain4j's messages and JSON Schemas; not API. */
@NullMarked
package dev.rcrt.langchain4j.internal;

import org.jspecify.annotations.NullMarked;
