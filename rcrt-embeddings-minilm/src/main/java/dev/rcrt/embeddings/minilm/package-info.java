/** RCRT's own embedding model in process. */
@NullMarked
package dev.rcrt.embeddings.minilm;

import org.jspecify.annotations.NullMarked;
